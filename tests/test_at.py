"""``--at REF``: answers against another commit's files, read from git, the work tree untouched."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import CART_FILES, commit, git, make_repo

from mnemo_core.cli import main
from mnemo_core.engine import Engine
from mnemo_core.statedir import private_dir

V1 = CART_FILES | {
    "shop/tax.py": "def vat(x):\n    return x * 0.2\n",
    "shop/money.py": "def cents(x):\n    return round(x * 100)\n",
}
V2 = {
    "shop/pricing.py": CART_FILES["shop/pricing.py"].replace("total", "grand_total"),
    "shop/cart.py": V1["shop/cart.py"].replace("total", "grand_total"),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", V1)
    commit(root, V2, "rename total to grand_total", date="2026-02-01T12:00:00+00:00")
    return root


def _json(args: list[str], repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*args, "--format", "json", "--repo", str(repo)]) == 0
    return json.loads(capsys.readouterr().out)


def _state(repo: Path) -> tuple[str, str, str, dict[str, bytes]]:
    files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in (repo / "shop").rglob("*.py")}
    return (
        git(repo, "status", "--porcelain", "--untracked-files=all"),
        git(repo, "for-each-ref"),
        git(repo, "worktree", "list", "--porcelain"),
        files,
    )


def test_find_callers_and_why_answer_at_the_older_commit_and_leave_the_work_tree_alone(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "shop" / "money.py").write_text("def cents(x):\n    return int(x * 100)\n", encoding="utf-8")
    before = _state(repo)
    old = git(repo, "rev-parse", "HEAD~1").strip()

    found = _json(["find", "total", "--at", "HEAD~1"], repo, capsys)
    assert [s["name"] for s in found["symbols"]] == ["total"]
    assert found["at"] == {"ref": "HEAD~1", "commit": old}
    assert main(["find", "total", "--repo", str(repo)]) == 1  # at HEAD it is gone
    capsys.readouterr()

    callers = _json(["callers", "total", "--at", "HEAD~1"], repo, capsys)
    assert sorted(h["name"] for h in callers["hops"]) == ["Cart.checkout", "tax"]
    why = _json(["why", "total", "--task", "sum the cart total", "--at", old[:10]], repo, capsys)
    assert why["symbol"]["name"] == "total" and why["at"]["commit"] == old
    history = _json(["history", "total", "--at", "HEAD~1"], repo, capsys)
    assert [c["subject"] for c in history["histories"][0]["commits"]] == ["initial commit"]

    assert _state(repo) == before


def test_the_task_answer_names_the_commit_and_the_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = git(repo, "rev-parse", "HEAD~1").strip()
    pack = _json(["task", "sum the cart total", "--at", "HEAD~1"], repo, capsys)
    assert pack["commit"] == old
    assert pack["repo"] == str(repo.resolve())
    assert pack["notes"][0].startswith(f"answered at HEAD~1 ({old[:12]})")
    assert "shop/pricing.py:total" in {f"{s['path']}:{s['name']}" for s in pack["symbols"]}

    assert main(["task", "sum the cart total", "--at", "HEAD~1", "--repo", str(repo)]) == 0
    assert f"note: answered at HEAD~1 ({old[:12]})" in capsys.readouterr().out


def test_another_commit_parses_only_the_files_that_differ(repo: Path) -> None:
    commit(repo, {"shop/tax.py": "def vat(x):\n    return x * 0.21\n"}, "vat is 21 %")
    with Engine.open(repo) as engine:
        assert engine.index().parsed == 4
    with Engine.open(repo, at="HEAD~1") as engine:  # seeded from the work tree's index
        first = engine.index()
        assert (first.parsed, first.files) == (1, 4)  # tax.py
        assert engine.find("grand_total")
    with Engine.open(repo, at="HEAD~2") as engine:  # the same tree, moved back one more commit
        assert engine.index().parsed == 2  # pricing.py and cart.py
        assert engine.find("total") and not engine.find("grand_total")
    with Engine.open(repo, at="HEAD~2") as engine:
        assert engine.index().parsed == 0


def test_nothing_the_analysed_history_holds_runs_or_replaces_mnemo_s_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    hook = hooks / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}-hook\n", encoding="utf-8")
    hook.chmod(0o755)
    (Path(os.environ["HOME"]) / ".gitconfig").write_text(
        f'[filter "evil"]\n\tsmudge = "touch {marker}-filter; cat"\n[core]\n\thooksPath = {hooks}\n',
        encoding="utf-8",
    )
    repo = make_repo(tmp_path / "repo")
    os.symlink("/etc/passwd", repo / "secrets.py")
    planted = {"app.py": "def run():\n    return 1\n", ".gitattributes": "*.py filter=evil\n"}
    commit(repo, planted | {".mnemo/index.db": b"not a database"}, "first")
    commit(repo, {"app.py": "def run():\n    return 2\n"}, "second")

    found = _json(["find", "run", "--at", "HEAD~1"], repo, capsys)
    assert [s["name"] for s in found["symbols"]] == ["run"]
    assert not list(tmp_path.glob("ran*"))
    assert (repo / ".mnemo" / "index.db").read_bytes() == b"not a database"  # theirs: left alone
    tree = private_dir(repo) / "at" / "tree"  # the repository tracks .mnemo: mnemo keeps out of it
    assert not (tree / "secrets.py").is_symlink()
    assert (tree / "secrets.py").read_text(encoding="utf-8") == "/etc/passwd"
    assert not (tree / ".mnemo").exists()

    clone = tmp_path / "clone"  # the same history checked out by plain git does run both
    git(tmp_path, "clone", "-q", str(repo), str(clone), env={"HOME": os.environ["HOME"]})
    assert {p.name for p in tmp_path.glob("ran*")} == {"ran-filter", "ran-hook"}


@pytest.mark.parametrize(
    ("ref", "words"),
    [("no-such-ref", "no-such-ref"), ("HEAD~9", "HEAD~9"), ("--all", "not a valid ref")],
)
def test_a_ref_that_names_no_commit_is_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str], ref: str, words: str
) -> None:
    assert main(["find", "total", f"--at={ref}", "--repo", str(repo)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mnemo: error: ") and words in err
    assert not (repo / ".mnemo" / "at" / "tree").exists()


def test_a_directory_without_git_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "app.py").write_text("def run():\n    return 1\n", encoding="utf-8")
    assert main(["find", "run", "--at", "HEAD", "--repo", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not inside a git work tree" in err
