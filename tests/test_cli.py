"""The ``mnemo`` command line: exit codes and messages, called through ``main``."""

from __future__ import annotations

import argparse
import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import CART_FILES, commit, make_repo, write_files

from mnemo_core.cli import build_parser, main
from mnemo_core.commands import MODULES, VERBS

FILES = CART_FILES


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES)


def test_index_prints_a_summary(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "2 files (2 parsed, 0 removed)" in out


def test_stats_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--repo", str(repo), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == {"python": 2}
    assert data["symbols"]["method"] == 2
    assert data["edges"]["calls"] >= 3
    assert len(data["commit"]) == 40


def test_find_with_glob(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["find", "t*", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "shop/pricing.py:1  function  total  def total(items)" in out
    assert "tax" in out


def test_find_lists_a_module_by_its_dotted_name_or_path_not_by_a_word(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for pattern in ("shop.pricing", "shop/pricing.py", "shop.pr*"):
        assert main(["find", pattern, "--repo", str(repo), "--format", "json"]) == 0
        found = [(s["kind"], s["name"]) for s in json.loads(capsys.readouterr().out)["symbols"]]
        assert found == [("module", "shop.pricing")], pattern
    assert main(["find", "pricing", "--repo", str(repo)]) == 1  # a word names no module
    assert "no symbol matches 'pricing'" in capsys.readouterr().out


def test_callers_transitively(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["callers", "total", "--depth", "2", "--repo", str(repo), "--format", "json"]) == 0
    hops = {(h["name"], h["depth"]) for h in json.loads(capsys.readouterr().out)["hops"]}
    assert hops == {("Cart.checkout", 1), ("tax", 1)}


def test_callees(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["callees", "Cart.checkout", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "shop/pricing.py:total" in out and "shop/cart.py:Cart.items" in out


def test_unknown_symbol_suggests_close_names(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["callers", "totl", "--repo", str(repo)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "mnemo: error: no symbol named 'totl' in the index; did you mean total?"


def test_missing_directory_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such directory" in err


@pytest.mark.parametrize(
    "args",
    [
        ["callers", "total", "--depth", "0"],
        ["find", "total", "--limit", "-1"],
        ["task", "total", "--limit", "0"],
        ["task", "total", "--budget", "-5"],
        ["files", "x.py", "--depth", "zero"],
    ],
)
def test_counts_must_be_positive(repo: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*args, "--repo", str(repo)])
    assert exited.value.code == 2
    option = args[2]
    assert f"error: argument {option}: " in capsys.readouterr().err.splitlines()[-1]


def _json_run(args: list[str], repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*args, "--format", "json", "--repo", str(repo)]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_project_settings_are_the_default_budget_and_depth(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = "from shop.cart import Cart\n\ndef buy():\n    return Cart().checkout()\n"  # total is 2 hops away
    commit(repo, {"shop/app.py": app, "pyproject.toml": "[tool.mnemo]\nbudget = 1234\ndepth = 1\n"}, "app")
    write_files(repo, {"shop/pricing.py": FILES["shop/pricing.py"].replace("sum(items)", "sum(items) + 0")})

    configured = _json_run(["pr", "--worktree"], repo, capsys)
    assert configured["budget_tokens"] == 1234
    assert "buy" not in {c["name"] for c in configured["impact"]["callers"]}
    given = _json_run(["pr", "--worktree", "--depth", "2", "--budget", "2000"], repo, capsys)
    assert given["budget_tokens"] == 2000
    assert "buy" in {c["name"] for c in given["impact"]["callers"]}
    assert _json_run(["task", "total"], repo, capsys)["budget_tokens"] == 1234
    assert _json_run(["files", "shop/pricing.py"], repo, capsys)["budget_tokens"] == 1234


def test_pr_and_tests_take_a_range_as_git_writes_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``mnemo pr A..B`` is ``--base A --head B``; ``A`` alone is a pull request's range from its
    merge-base; a range beside --base is one clear error."""
    commit(repo, {"shop/pricing.py": FILES["shop/pricing.py"].replace("sum(items)", "sum(items) + 1")}, "one")
    commit(repo, {"shop/cart.py": FILES["shop/cart.py"].replace("return []", "return [1]")}, "two")
    changed = {c["name"] for c in _json_run(["pr", "HEAD~2..HEAD~1"], repo, capsys)["impact"]["changed"]}
    assert changed == {"total"}
    assert {c["name"] for c in _json_run(["pr", "HEAD~1.."], repo, capsys)["impact"]["changed"]} == {
        "Cart.items"
    }
    assert {c["name"] for c in _json_run(["pr", "HEAD~2"], repo, capsys)["impact"]["changed"]} == {
        "total",
        "Cart.items",
    }
    assert main(["pr", "HEAD~2..HEAD~1", "--repo", str(repo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"pr: [0-9a-f]{10}\.\.[0-9a-f]{10}", lines[0])
    (note,) = [line for line in lines if line.startswith("note: ")]
    assert re.fullmatch(r"note: .* index of the working tree, not of [0-9a-f]{10}", note)
    assert main(["tests", "HEAD~2..HEAD~1", "--repo", str(repo)]) == 5  # nothing tests `total`
    assert capsys.readouterr().err == "mnemo: no test is impacted by this change; nothing to run\n"
    assert main(["pr", "HEAD~2..HEAD", "--base", "HEAD~1", "--repo", str(repo)]) == 1
    assert capsys.readouterr().err.strip() == (
        "mnemo: error: give the commits as a range or with --base/--head/--staged/--worktree, not both"
    )
    assert main(["pr", "nope..HEAD", "--repo", str(repo)]) == 1
    assert "unknown ref 'nope'" in capsys.readouterr().err


def test_a_symbol_named_by_its_module_s_dotted_name(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["callers", "shop.pricing.total", "--repo", str(repo), "--format", "json"]) == 0
    assert {h["name"] for h in json.loads(capsys.readouterr().out)["hops"]} == {"Cart.checkout", "tax"}
    assert main(["callees", "shop.cart.Cart.checkout", "--repo", str(repo), "--format", "json"]) == 0
    assert {h["name"] for h in json.loads(capsys.readouterr().out)["hops"]} == {"Cart.items", "total"}
    assert main(["callers", "shop.pricing.totl", "--repo", str(repo)]) == 1
    assert "no symbol named 'shop.pricing.totl' in the index; did you mean total?" in capsys.readouterr().err


def test_each_verb_is_registered_by_the_module_the_table_names() -> None:
    for name in MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"mnemo_core.commands.{name}").register(sub)
        assert set(sub.choices) == {verb for verb, owner in VERBS.items() if owner == name}


def test_a_command_line_registers_its_verb_alone_and_the_help_every_verb() -> None:
    def verbs(parser: argparse.ArgumentParser) -> set[str]:
        return set(next(a for a in parser._actions if a.dest == "command").choices)  # type: ignore[arg-type]

    assert verbs(build_parser(["-v", "why", "--task", "x", "f"])) == {"task", "why"}
    assert verbs(build_parser(["--help"])) == verbs(build_parser()) == set(VERBS)
    assert verbs(build_parser(["taks", "x"])) == set(VERBS)  # a misspelt verb: the error lists them all
