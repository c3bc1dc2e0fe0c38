"""Tests for mnemo_core/vcs/state.py: the fingerprint of git's state that moves with a commit, a
checkout, packed refs and a linked work tree's own branch, read from git's files."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, git, make_repo, write_files

from mnemo_core.vcs.git import git_dirs
from mnemo_core.vcs.state import git_state

DATE = "2026-03-09T09:00:00+00:00"


def test_a_directory_without_git_has_no_state(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": "x = 1\n"})
    assert git_dirs(tmp_path) is None and git_state(tmp_path) == ()


def test_what_moves_the_state(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    first = git_state(root)
    assert first == git_state(root)  # nothing happened, nothing moved
    git(root, "branch", "feature")
    assert git_state(root) == first  # another branch: not what HEAD points to
    commit(root, {"a.py": "x = 2\n"}, "two", date=DATE)
    moved = git_state(root)
    assert moved != first  # the commit: the branch's ref and the index
    git(root, "checkout", "-q", "feature")
    assert git_state(root) not in (first, moved)  # the checkout: HEAD
    checked_out = git_state(root)
    git(root, "pack-refs", "--all")
    assert git_state(root) != checked_out  # the refs moved into packed-refs


def test_a_linked_work_tree(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main", {"a.py": "x = 1\n"})
    git(main, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    assert git_dirs(linked) == ((main / ".git/worktrees/linked").resolve(), (main / ".git").resolve())
    before, main_before = git_state(linked), git_state(main)
    commit(linked, {"a.py": "x = 2\n"}, "on the feature branch", date=DATE)
    assert git_state(linked) != before  # refs/heads/feature lives in the common directory
    assert git_state(main) == main_before  # main's HEAD, ref and index did not move
