"""The memory of past commits after a move through history: what a cold read at the new HEAD
holds, in the same order, with only the commits the memory lacked read from git."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.index import commits as commits_module
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import index_path
from mnemo_core.index.store.snapshot import snapshot

WINDOW = 4  # commits remembered: fewer than the repository has, so a move shifts the window
SWEEP = 31  # files one commit touches: past ``vcs.changes.MAX_FILES``, a sweep the memory leaves out


def _commits(root: Path) -> object:
    with sqlite3.connect(index_path(root)) as conn:
        return snapshot(conn).commits


def _cold(tmp_path: Path, repo: Path, rev: str) -> object:
    cold = tmp_path / f"cold-{rev}"
    if not cold.exists():
        git(tmp_path, "clone", "-q", str(repo), str(cold))
        git(cold, "checkout", "-q", rev)
        index_repo(cold)
    return _commits(cold)


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
    assert "history: read 2 of a window of 4 commits" in caplog.text
    assert _commits(root) == _cold(tmp_path, root, revs[5])
    git(root, "checkout", "-q", revs[7])  # forward: the window's tail moves, past the sweep
    index_repo(root)
    assert _commits(root) == _cold(tmp_path, root, revs[7])
    git(root, "checkout", "-q", revs[5])  # back again
    caplog.clear()
    with caplog.at_level("INFO", logger="mnemo_core.index.commits"):
        index_repo(root)
    assert "history: read 2 of a window of 4 commits" in caplog.text
    assert _commits(root) == _cold(tmp_path, root, revs[5])
    git(root, "checkout", "-q", "-b", "side", revs[4])  # another branch: newer and older commits both
    commit(root, {"app/b.py": "B = 1\n"}, "a side change", date="2025-02-01T00:00:00")
    index_repo(root)
    assert _commits(root) == _cold(tmp_path, root, "side")
    git(root, "checkout", "-q", revs[1])  # back past the sweep, to fewer commits than the window
    index_repo(root)
    assert _commits(root) == _cold(tmp_path, root, revs[1])
