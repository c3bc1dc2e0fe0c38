"""Tests for mnemo_core/vcs/commitgraph.py: mnemo's own commit-graph, written beside the index and
read by git through an alternate object directory, in real repositories.

Whether git read a graph's changed-path filters is what git itself reports: with
``trace2.eventTarget`` in the global configuration (``HOME`` points at the test's), every git
process writes a "bloom" statistics event when it walked history through the filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.vcs.blame import blame_lines, clear_blame_cache
from mnemo_core.vcs.commitgraph import GRAPH_SUBDIR, HEAD_NOTE, graph_in, refresh

PATH = "app.py"


def _repo(root: Path) -> str:
    """Three commits of ``app.py`` (and one of another file); the state directory made and ignored."""
    make_repo(root)
    commit(root, {PATH: "a = 1\nb = 2\n"}, "c1", date="2026-01-01T00:00:00Z")
    commit(root, {"other.py": "x = 1\n"}, "c2", date="2026-01-02T00:00:00Z")
    head = commit(root, {PATH: "a = 1\nb = 3\n"}, "c3", date="2026-01-03T00:00:00Z")
    (root / ".mnemo").mkdir()
    (root / ".git" / "info" / "exclude").write_text(".mnemo/\n", encoding="utf-8")
    return head


@pytest.fixture
def traced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file git's trace2 events go to, for every git process of the test."""
    home, events = tmp_path / "home", tmp_path / "events.json"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[trace2]\n\teventTarget = {events}\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    return events


def _bloom(events: Path) -> list[dict[str, int]]:
    """The changed-path filter statistics git reported since the last call (the file is emptied)."""
    if not events.exists():
        return []
    rows = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    events.unlink()
    return [r["value"] for r in rows if r.get("category") == "bloom" and r.get("key") == "statistics"]


def _consulted(stats: list[dict[str, int]]) -> int:
    """How many commits' filters git asked (each says "maybe" or "definitely not")."""
    return sum(s["maybe"] + s["definitely_not"] for s in stats)


def test_blame_walks_history_through_the_graph_the_index_keeps(tmp_path: Path, traced: Path) -> None:
    repo = tmp_path / "repo"
    head = _repo(repo)
    before = blame_lines(repo, PATH, "HEAD", disk_cache=False)
    assert _bloom(traced) == []  # no graph: git reads every commit
    index_repo(repo)
    state = repo / ".mnemo"
    assert graph_in(state) == state / GRAPH_SUBDIR
    assert (state / GRAPH_SUBDIR / HEAD_NOTE).read_text(encoding="utf-8") == head
    _bloom(traced)
    clear_blame_cache()
    assert blame_lines(repo, PATH, "HEAD", disk_cache=False) == before  # the same answer
    stats = _bloom(traced)
    assert stats and all(s["filter_not_present"] == 0 for s in stats)  # rev-list and blame used it


def test_a_new_commit_gets_a_layer_only_once_head_moved(tmp_path: Path, traced: Path) -> None:
    repo = tmp_path / "repo"
    head = _repo(repo)
    refresh(repo, head)
    chain = repo / ".mnemo" / GRAPH_SUBDIR / "info" / "commit-graphs" / "commit-graph-chain"
    written = chain.stat().st_mtime_ns
    _bloom(traced)
    refresh(repo, head)  # HEAD did not move: no git process at all
    assert not traced.exists() and chain.stat().st_mtime_ns == written
    new = commit(repo, {"other.py": "x = 2\n"}, "c4", date="2026-01-04T00:00:00Z")  # walked past
    clear_blame_cache()
    blame_lines(repo, PATH, "HEAD", disk_cache=False)
    outside = _consulted(_bloom(traced))  # c4 is not in the graph: its filter is not there to ask
    refresh(repo, new)
    clear_blame_cache()
    blame_lines(repo, PATH, "HEAD", disk_cache=False)
    assert _consulted(_bloom(traced)) == outside + 1


def test_a_repository_with_a_graph_of_its_own_gets_none_of_mnemos(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    head = _repo(repo)
    git(repo, "commit-graph", "write", "--reachable")
    refresh(repo, head)
    assert graph_in(repo / ".mnemo") is None
    assert (repo / ".mnemo" / GRAPH_SUBDIR / HEAD_NOTE).read_text(encoding="utf-8") == head  # not tried again


def test_no_graph_without_a_state_directory_or_in_a_shallow_clone(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    head = _repo(origin)
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    shallow = tmp_path / "shallow"
    refresh(shallow, head)
    assert not (shallow / ".mnemo").exists()  # nothing made where mnemo keeps no state yet
    (shallow / ".mnemo").mkdir()
    refresh(shallow, head)
    assert graph_in(shallow / ".mnemo") is None
