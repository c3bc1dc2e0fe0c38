"""A re-parsed file's symbols and edges that only moved by some lines are updated in place (their
columns that differ), not deleted and written again: the graph's change record leaves them out,
and the index still equals a cold one, its indexes agreeing with its tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import cold_snapshot, commit, index_snapshot, make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store, index_path
from mnemo_core.retrieve import graphcache

BEFORE = {
    "pkg/__init__.py": "",
    "pkg/a.py": (
        "def first():\n    return 1\n\n\n"
        "def helper(n):\n    return n\n\n\n"
        "def moved():\n    return helper(2)\n\n\n"
        "class Box:\n    def size(self):\n        return helper(3)\n\n    def gone(self):\n        return 0\n"
    ),
    "pkg/b.py": "from pkg.a import Box, moved\n\n\ndef use():\n    return moved() + Box().size\n",
    # files the edit leaves alone: an update resolves few enough files again to write in place
    **{f"pkg/other{i}.py": f"def other{i}():\n    return {i}\n" for i in range(12)},
}
# ``first`` grows (every symbol and call below it moves down), ``Box.size`` becomes a property
# (its decorators' column, which a partial index reads), ``Box.gone`` goes and ``Box.came`` comes
AFTER = {
    "pkg/a.py": (
        "def first():\n    x = 1\n    y = x + 1\n    return y\n\n\n"
        "def helper(n):\n    return n\n\n\n"
        "def moved():\n    return helper(2)\n\n\n"
        "class Box:\n    @property\n    def size(self):\n        return helper(3)\n\n"
        "    def came(self, n):\n        return n\n"
    ),
}


def _ids(root: Path, *names: str) -> dict[str, int]:
    with sqlite3.connect(index_path(root)) as conn:
        return {
            name: conn.execute("SELECT id FROM symbols WHERE name=?", (name,)).fetchone()[0] for name in names
        }


def test_moved_rows_are_updated_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        graphcache, "DERIVE_MAX_SHARE", 1.0
    )  # a small repository's graph derived all the same
    repo = make_repo(tmp_path / "repo", BEFORE)
    index_repo(repo)
    graphcache._graphs.clear()
    store = Store.open(repo)
    graphcache._cached(store)  # the graph file of the first generation: the update's record derives from it
    store.close()
    before = _ids(repo, "moved", "helper", "Box.size", "Box.gone")
    sha = commit(repo, AFTER, "first grows")
    index_repo(repo)

    assert _ids(repo, "moved", "helper", "Box.size") == {k: v for k, v in before.items() if k != "Box.gone"}
    store = Store.open(repo)
    try:
        delta = store.graph_delta(store.generation())
        assert delta is not None
        changed = set(delta.changed)
        assert before["Box.gone"] in changed  # a symbol that went is recorded (its ``contains`` edge)
        assert not changed & {before["moved"], before["helper"]}  # their rows and call only moved
        assert "size" in store.property_names()
        assert store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        graphcache._graphs.clear()
        derived = graphcache._cached(store)  # from the first generation's file and the record
        built = graphcache.build(store)
        assert derived.graph.ids.tolist() == built.graph.ids.tolist()
        assert derived.fan_in.counts.tolist() == built.fan_in.counts.tolist()
    finally:
        store.close()
    assert index_snapshot(repo).differences(cold_snapshot(tmp_path, repo, sha)) == []
