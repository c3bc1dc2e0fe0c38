"""The memory of past commits after a move through history: what a cold read at the new HEAD
holds, in the same order, with only the commits the memory lacked read from git."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import cold_snapshot, commit, git, index_snapshot, make_repo

from mnemo_core.index import commits as commits_module
from mnemo_core.index.indexer import index_repo

WINDOW = 4  # commits remembered: fewer than the repository has, so a move shifts the window
SWEEP = 31  # files one commit touches: past ``vcs.changes.MAX_FILES``, a sweep the memory leaves out


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    monkeypatch.setattr(commits_module, "MAX_COMMITS", WINDOW)
    root = make_repo(tmp_path / "repo", {"app/a.py": "def a():\n    return 0\n"}, date="2025-01-01T00:00:00")
    revs = [git(root, "rev-parse", "HEAD").strip()]
    for n in range(1, 8):
        files: dict[str, str | bytes | None] = {"app/a.py": f"def a():\n    return {n}\n"}
        if n == 5:  # a sweep inside the window: walked by git, never remembered
            files.update({f"app/s{i}.py": f"S = {i}\n" for i in range(SWEEP)})
        commit(root, files, f"change number {n}", date=f"2025-01-{n + 1:02d}T00:00:00")
        revs.append(git(root, "rev-parse", "HEAD").strip())
    return root, revs


def test_moves_keep_the_window_a_cold_read_gives(
    tmp_path: Path, repo: tuple[Path, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    root, revs = repo
    index_repo(root)
    git(root, "checkout", "-q", revs[5])  # back: two commits forgotten, two older ones read (not the sweep)
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read 2 commits past a window moved down 2 commits" in caplog.text  # nothing listed
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[5]).commits
    git(root, "checkout", "-q", revs[7])  # forward: the window's tail moves, past the sweep
    caplog.clear()
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read 2 commits of a window moved up 2 commits" in caplog.text  # nothing listed
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[7]).commits
    git(root, "checkout", "-q", revs[5])  # back again: past the window a listing kept
    caplog.clear()
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read 2 commits past a window moved down 2 commits" in caplog.text
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[5]).commits
    git(root, "checkout", "-q", "-b", "side", revs[4])  # another branch: newer and older commits both
    commit(root, {"app/b.py": "B = 1\n"}, "a side change", date="2025-02-01T00:00:00")
    index_repo(root)
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, "side").commits
    git(root, "checkout", "-q", revs[1])  # back past the sweep, to fewer commits than the window
    index_repo(root)
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[1]).commits


@pytest.mark.parametrize("beyond", [1, 0])  # fewer shas kept past the window than the move needs
def test_a_move_back_past_what_was_kept_lists_the_window(
    tmp_path: Path,
    repo: tuple[Path, list[str]],
    beyond: int,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(commits_module, "BEYOND", beyond)
    root, revs = repo
    index_repo(root)
    git(root, "checkout", "-q", revs[5])
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read 2 of a window of 4 commits" in caplog.text
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[5]).commits


def test_a_move_over_a_merge_lists_the_window(
    tmp_path: Path, repo: tuple[Path, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    root, revs = repo  # a branch from an older commit, merged: the walk from HEAD interleaves both
    git(root, "checkout", "-q", "-b", "side", revs[2])
    commit(root, {"app/side.py": "S = 1\n"}, "a side change", date="2025-01-05T12:00:00")
    git(root, "checkout", "-q", "-")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    commit(root, {"app/a.py": "def a():\n    return 9\n"}, "after the merge", date="2025-03-01T00:00:00")
    index_repo(root)
    merged = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", revs[6])
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read" in caplog.text and "past a window" not in caplog.text
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, revs[6]).commits
    git(root, "checkout", "-q", merged)  # forward over the merge
    caplog.clear()
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read" in caplog.text and "moved up" not in caplog.text
    assert index_snapshot(root).commits == cold_snapshot(tmp_path, root, merged).commits
