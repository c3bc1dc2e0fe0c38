"""Tests for ``mnemo history`` (mnemo_core/symbol_history.py, vcs/linelog.py): real repositories
with commits at pinned dates, a file renamed, uncommitted edits and a shallow clone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.cli import main
from mnemo_core.lookup import resolve_symbol
from mnemo_core.repository import Repository
from mnemo_core.symbol_history import known_history, symbol_history
from mnemo_core.vcs.linelog import pull_request_of

CORE = "def keep():\n    return 0\n\n\ndef price(item):\n    return item * 2\n"


def shop(root: Path) -> Path:
    """price: added, changed (#12), its file renamed, changed again by another author; keep: never after."""
    make_repo(root, {"shop/core.py": CORE}, date="2026-01-01T10:00:00+00:00")
    commit(
        root,
        {"shop/core.py": CORE.replace("* 2", "* 3")},
        "Raise prices (#12)",
        date="2026-02-01T10:00:00+00:00",
    )
    git(root, "mv", "shop/core.py", "shop/pricing.py")
    commit(root, {}, "Move pricing", date="2026-03-01T10:00:00+00:00")
    commit(
        root,
        {"shop/pricing.py": CORE.replace("* 2", "* 4")},
        "Merge pull request #34 from bo/prices",
        date="2026-04-01T10:00:00+00:00",
        author=("Bo Maker", "bo@example.com"),
    )
    commit(root, {"README.md": "# shop\n"}, "docs", date="2026-05-01T10:00:00+00:00")
    return root


def history_of(
    root: Path, handle: str, limit: int = 50
) -> tuple[list[tuple[str, str, str, int | None]], tuple[str, ...]]:
    repo = Repository.open(root, plain=True)
    repo.refresh()
    [symbol] = resolve_symbol(repo, handle)
    found = symbol_history(repo, symbol, limit)
    return [(c.subject, c.author, c.path, c.pull_request) for c in found.commits], found.notes


def test_the_commits_that_changed_the_lines_newest_first_across_a_rename(tmp_path: Path) -> None:
    commits, notes = history_of(shop(tmp_path / "shop"), "price")
    assert commits == [
        ("Merge pull request #34 from bo/prices", "Bo Maker", "shop/pricing.py", 34),
        ("Raise prices (#12)", "Ada Tester", "shop/core.py", 12),
        ("initial commit", "Ada Tester", "shop/core.py", None),
    ]
    assert notes == ()
    assert [c[0] for c in history_of(tmp_path / "shop", "keep")[0]] == ["initial commit"]


def test_uncommitted_edits_above_the_symbol_do_not_shift_its_history(tmp_path: Path) -> None:
    root = shop(tmp_path / "shop")
    (root / "shop" / "pricing.py").write_text("import os\n\n\n" + CORE.replace("* 2", "* 4"))
    commits, _ = history_of(root, "price")
    assert [c[3] for c in commits] == [34, 12, None]


def test_a_symbol_not_committed_yet_says_so(tmp_path: Path) -> None:
    root = shop(tmp_path / "shop")
    (root / "shop" / "pricing.py").write_text(CORE + "\n\ndef fresh():\n    return 1\n")
    commits, notes = history_of(root, "fresh")
    assert commits == [] and notes == ("shop/pricing.py:fresh is not committed yet: HEAD does not have it",)


def test_the_limit_and_a_shallow_clone_are_named(tmp_path: Path) -> None:
    commits, notes = history_of(shop(tmp_path / "shop"), "price", limit=2)
    assert len(commits) == 2 and notes == ("the newest 2 commits; --limit shows more",)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{tmp_path / 'shop'}", str(clone))
    commits, notes = history_of(clone, "price")
    assert len(commits) == 1 and notes[0].startswith("a shallow clone")


@pytest.mark.parametrize(
    ("subject", "number"),
    [
        ("Fix x (#123)", 123),
        ("Merge pull request #7 from a/b", 7),
        ("Refs #5 in passing", None),
        ("plain", None),
    ],
)
def test_pull_request_numbers_from_subjects(subject: str, number: int | None) -> None:
    assert pull_request_of(subject) == number


def test_the_command_answers_json_with_the_schema_and_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = shop(tmp_path / "shop")
    assert main(["history", "price", "--repo", str(root), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    [history] = answer["histories"]
    assert answer["schema"] == 1 and history["symbol"]["name"] == "price"
    assert history["commits"][0]["date"] == "2026-04-01T10:00:00+00:00"
    assert history["commits"][0]["pull_request"] == 34
    assert main(["history", "price", "--repo", str(root)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "shop/pricing.py:price  (function, shop/pricing.py:5-6)"
    assert "2026-02-01  Ada Tester  Raise prices (#12)  [shop/core.py]" in text[2]
    assert main(["history", "nothing_like_it", "--repo", str(root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("mnemo: error: ")


def test_outside_git_and_before_the_first_commit_the_history_says_why_it_is_empty(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "core.py").write_text(CORE)
    assert history_of(loose, "price") == ([], ("not a git repository: there is no history to read",))
    fresh = tmp_path / "fresh"
    git(tmp_path, "init", "-q", str(fresh))
    (fresh / "core.py").write_text(CORE)
    assert history_of(fresh, "price") == ([], ("the repository has no commits yet",))


def test_a_history_read_once_is_known_until_head_or_the_file_moves(tmp_path: Path) -> None:
    root = shop(tmp_path / "shop")
    repo = Repository.open(root)
    repo.refresh()
    [price] = resolve_symbol(repo, "price")
    assert known_history(repo, price) is None  # nothing read yet: no git process on this path
    read = symbol_history(repo, price)
    assert known_history(repo, price) is read
    assert known_history(repo, price, limit=2) is None  # another limit is another answer
    commit(
        root, {"shop/pricing.py": CORE.replace("* 2", "* 5")}, "Cut prices", date="2026-06-01T10:00:00+00:00"
    )
    repo.refresh()
    [price] = resolve_symbol(repo, "price")
    assert known_history(repo, price) is None
    assert symbol_history(repo, price).commits[0].subject == "Cut prices"
    (root / "shop/pricing.py").write_text(CORE.replace("* 2", "* 6") + "\n")  # edited, not committed
    assert known_history(repo, price) is None


def test_the_history_of_an_overloaded_name_is_its_implementations(tmp_path: Path) -> None:
    """Twenty ``@overload`` stubs above one implementation: ``history`` lists the implementation."""
    stubs = "".join(f"    @overload\n    def visit(self, node: N{i}) -> int: ...\n" for i in range(20))
    source = (
        "from typing import overload\n\nclass Walker:\n"
        + stubs
        + "    def visit(self, node):\n        return 1\n"
    )
    root = make_repo(tmp_path / "walk", {"walk.py": source})
    commit(root, {"walk.py": source.replace("return 1", "return 2")}, "visit returns 2")
    from mnemo_core.engine import Engine

    histories = Engine.open(root).history("Walker.visit")
    assert [h.symbol.start_line for h in histories] == [44]
    assert [c.subject for c in histories[0].commits][:1] == ["visit returns 2"]
