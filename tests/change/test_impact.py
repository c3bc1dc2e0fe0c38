"""One definition of "the tests that reach a symbol", and guessed links kept apart.

``base`` is tested directly (``test_base``) and through ``wrap`` (``test_wrap``); ``inner`` only
through ``wrap``; a change to all three must credit every test to each symbol it reaches, and every
front end (``files``, ``pr``, ``tests``, the hover card, the code lens) must count the same tests.
``guess.py`` calls ``base`` by a bare name that two files define: a name guess (confidence 0.25),
so its functions are possible callers, listed apart and counted in no verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import commit, git, make_repo

from ci.precommit import main as precommit_main
from mnemo_core.change import impact as engine
from mnemo_core.cli import main
from mnemo_core.insight import file_lenses, symbol_at, symbol_card
from mnemo_core.repository import Repository

GUESSERS = 12  # more than risk.BLAST_MEDIUM: counted, they would make the blast radius "wide"
LIB = (
    "def base(x):\n"
    "    return x + 1\n"
    "\n"
    "def inner(x):\n"
    "    return x * 3\n"
    "\n"
    "def wrap(x):\n"
    "    return base(x) + inner(x)\n"
)
FILES = {
    "core/__init__.py": "",
    "core/lib.py": LIB,
    "other/__init__.py": "",
    "other/alt.py": "def base(x):\n    return x - 1\n",
    "app/__init__.py": "",
    "app/guess.py": "".join(f"def g{i}(x):\n    return base(x)\n\n" for i in range(GUESSERS)),
    "tests/test_lib.py": (
        "from core.lib import base, wrap\n"
        "from app.guess import g0\n"
        "\n"
        "def test_base():\n"
        "    assert base(1) == 2\n"
        "\n"
        "def test_wrap():\n"
        "    assert wrap(1) == 5\n"
        "\n"
        "def test_guess():\n"
        "    assert g0(1) == 2\n"
    ),
}
CHANGED = {
    "core/lib.py": LIB.replace("x + 1", "x + 2").replace("x * 3", "x * 4").replace(") + inner", ") - inner")
}
TESTS_OF = {
    "base": ["tests/test_lib.py::test_base", "tests/test_lib.py::test_wrap"],
    "inner": ["tests/test_lib.py::test_wrap"],
    "wrap": ["tests/test_lib.py::test_wrap"],
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "r", FILES)
    commit(root, CHANGED, "change base, inner and wrap")
    return root


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in entries}


def test_every_front_end_counts_the_same_tests(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = cli_json(capsys, "files", "core/lib.py", "--repo", str(repo))
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(repo))
    opened = Repository.open(repo)
    opened.update_index()
    lenses = {lens.symbol.name: lens.tests for lens in file_lenses(opened, "core/lib.py")}
    for name, expected in TESTS_OF.items():
        symbol = symbol_at(opened, "core/lib.py", LIB.split(f"def {name}")[0].count("\n") + 1, name)
        assert symbol is not None and symbol.name == name
        hover = symbol_card(opened, symbol).tests
        for answer in (files, pr):
            changed = by_name(answer["impact"]["changed"])[name]
            assert changed["reached_by"] == expected
            assert changed["components"]["tests"] == len(expected)
        assert hover == lenses[name] == len(engine.tests_reaching(opened.store, [symbol.id])[symbol.id].sure)
        assert hover == len(expected)
    union = sorted({t for tests in TESTS_OF.values() for t in tests})
    sure = cli_json(capsys, "tests", "--sure-only", "--base", "HEAD~1", "--repo", str(repo))["tests"]
    assert sorted(t["id"] for t in sure) == union
    assert all(t["resolution"] == "import" and t["confidence"] == 0.95 and not t["possible"] for t in sure)
    selected = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(repo))["tests"]
    assert selected[: len(sure)] == sure  # a selection runs the guesses too, after the sure ones
    assert [(t["id"], t["possible"]) for t in selected[len(sure) :]] == [
        ("tests/test_lib.py::test_guess", True)
    ]
    assert sorted(f"{t['path']}::{t['name']}" for t in pr["impact"]["tests"]) == union
    assert [t["name"] for t in pr["impact"]["tests"]] == [t["name"] for t in files["impact"]["tests"]]


def test_a_name_guess_is_a_possible_caller_and_counts_in_no_verdict(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(repo))
    impact = pr["impact"]
    guessed = by_name(impact["possible_callers"])
    assert set(guessed) == {f"g{i}" for i in range(GUESSERS)}
    assert all(g["possible"] and g["confidence"] < engine.SURE_FROM for g in guessed.values())
    assert {g["resolution"] for g in guessed.values()} == {"name"}
    assert guessed["g0"]["evidence"] == "calls base (changed, 1 hop)"
    assert not set(guessed) & set(by_name(impact["callers"]))
    assert [t["name"] for t in impact["possible_tests"]] == ["test_guess"]
    assert by_name(impact["changed"])["base"]["possibly_reached_by"] == ["tests/test_lib.py::test_guess"]
    assert impact["risk"] == "low" and not any("blast radius" in r for r in impact["reasons"])
    assert (pr["stats"]["callers"], pr["stats"]["possible_callers"]) == (len(impact["callers"]), GUESSERS)
    assert main(["pr", "--base", "HEAD~1", "--format", "text", "--repo", str(repo)]) == 0
    text = capsys.readouterr().out
    assert f"possible callers, through a name guess, not counted ({GUESSERS}):" in text
    assert main(["pr", "--base", "HEAD~1", "--format", "markdown", "--repo", str(repo)]) == 0
    markdown = capsys.readouterr().out
    assert f"Possible callers ({GUESSERS}, through a name guess, not counted)" in markdown
    opened = Repository.open(repo)
    base = symbol_at(opened, "core/lib.py", 1, "base")
    assert base is not None
    card = symbol_card(opened, base)
    callers, blast = 2, 1  # direct callers: wrap and test_base; blast radius: wrap
    assert (card.callers, card.possible_callers, card.blast_radius) == (callers, GUESSERS, blast)
    assert (card.tests, card.possible_tests) == (2, 1)  # test_base, test_wrap; test_guess


def test_require_tests_passes_when_each_changed_symbol_has_a_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "r", FILES)
    (root / "core/lib.py").write_text(CHANGED["core/lib.py"])
    git(root, "add", "-A")
    code = precommit_main(["--require-tests", "--repo", str(root)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert "no test reaches" not in out.out + out.err
