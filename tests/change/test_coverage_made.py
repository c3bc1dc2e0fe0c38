"""Tests the coverage data names but no source line defines: a test module that builds its classes
in a function and publishes them under names made at run time (``globals()["TestUpper_" + n]``).
pytest runs them, the data says which ran the change, and ``mnemo tests`` selects those by the ids
the data names (their file stands for them in counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coverage_helpers import run_coverage
from helpers import commit, git, make_repo

from mnemo_core.cli import main

CALC = "def upper(text):\n    return text.upper()\n\ndef lower(text):\n    return text.lower()\n"
MADE = (
    "from calc.text import lower, upper\n"
    "\n"
    "def load(name):\n"
    "    class TestCase:\n"
    "        def test_upper(self):\n"
    "            assert upper(name) == name.upper()\n"
    "    globals()['TestUpper_' + name] = TestCase\n"
    "\n"
    "load('a')\n"
    "load('b')\n"
    "\n"
    "def build_lower():\n"
    "    class TestCase:\n"
    "        def test_lower(self):\n"
    "            assert lower('A') == 'a'\n"
    "    globals()['TestLower'] = TestCase\n"
    "\n"
    "build_lower()\n"
)
PLAIN = (
    "from calc.text import lower, upper\n"
    "\n"
    "def test_lower():\n"
    "    assert lower('A') == 'a'\n"
    "\n"
    "def test_gone():\n"
    "    assert upper('a') == 'A'\n"
)
FILES = {
    "calc/__init__.py": "",
    "calc/text.py": CALC,
    "tests/test_made.py": MADE,
    "tests/test_plain.py": PLAIN,
    ".gitignore": ".coverage\n.pytest_cache/\n",
}


def covered(tmp_path: Path) -> tuple[Path, str]:
    """The repository with coverage data taken at its first commit (returned too)."""
    root = make_repo(tmp_path / "calc", FILES)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", tmp_path)
    return root, first


def impacted(root: Path, first: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    args = ["tests", "--repo", str(root), "--base", "HEAD~1", "--coverage", str(root / ".coverage")]
    assert main([*args, "--coverage-commit", first]) == 0
    return capsys.readouterr().out.split()


def test_tests_made_at_run_time_are_selected_by_the_ids_the_data_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = covered(tmp_path)
    commit(
        root,
        {
            "calc/text.py": CALC.replace("text.upper()", "str.upper(text)"),
            "tests/test_plain.py": PLAIN.split("def test_gone")[0],  # a test removed since the data
        },
        "upper, one test fewer",
    )
    assert impacted(root, first, capsys) == [
        "tests/test_made.py::TestUpper_a",
        "tests/test_made.py::TestUpper_b",
    ]
    args = ["tests", "--repo", str(root), "--base", "HEAD~1", "--coverage", str(root / ".coverage")]
    assert main([*args, "--coverage-commit", first, "--format", "json"]) == 0
    (test,) = json.loads(capsys.readouterr().out)["tests"]
    args[0] = "pr"
    assert main([*args, "--coverage-commit", first, "--format", "json"]) == 0
    (in_pr,) = json.loads(capsys.readouterr().out)["impact"]["tests"]
    assert in_pr["runs"] == test["runs"]
    assert (test["id"], test["runs"]) == (
        "tests/test_made.py",
        ["tests/test_made.py::TestUpper_a", "tests/test_made.py::TestUpper_b"],
    )


def test_without_coverage_data_the_file_that_builds_them_is_their_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest never collects ``load.TestCase.test_upper`` under that name (``tests/test_made.py::
    load::TestCase::test_upper`` is not found): the module whose top-level code builds the class is
    the selection, as the coverage data's would be."""
    root = make_repo(tmp_path / "calc", FILES)
    commit(root, {"calc/text.py": CALC.replace("text.upper()", "str.upper(text)")}, "upper")
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1"]) == 0
    assert sorted(capsys.readouterr().out.split()) == ["tests/test_made.py", "tests/test_plain.py::test_gone"]


def test_the_made_tests_of_each_changed_symbol_are_selected_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = covered(tmp_path)
    both = CALC.replace("text.upper()", "str.upper(text)").replace("text.lower()", "str.lower(text)")
    commit(root, {"calc/text.py": both}, "upper and lower")
    assert sorted(impacted(root, first, capsys)) == [
        "tests/test_made.py::TestLower",
        "tests/test_made.py::TestUpper_a",
        "tests/test_made.py::TestUpper_b",
        "tests/test_plain.py::test_gone",
        "tests/test_plain.py::test_lower",
    ]
