"""Resolution a run at a time (``indexer.RUN_BYTES``): references read from the index per run,
edges and reads stored as each run comes, in this process or in forked workers (which a large
world never uses: ``indexer.FORK_MAX_SYMBOLS``). However the files are cut into runs and wherever
they resolve, the index comes out the same."""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from helpers import CART_FILES, SMALL_APP_FILES, make_repo

from mnemo_core.index import indexer
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import index_path
from mnemo_core.index.store.snapshot import Snapshot, snapshot

FILES = {
    **SMALL_APP_FILES,
    **CART_FILES,
    "shop/base.py": "class Base:\n    def items(self):\n        return [1]\n",
    "shop/sub.py": (
        "from shop.base import Base\nfrom shop.cart import Cart\n\n"
        "class Sub(Base):\n    def run(self):\n        return self.items() + Cart().checkout()\n"
    ),
}


def _built(root: Path) -> tuple[Snapshot, Counter[tuple[str, str]]]:
    """The index's rows, and what each file's resolution read (keys by path)."""
    index_repo(root)
    with closing(sqlite3.connect(index_path(root))) as conn:
        deps = Counter(
            (key, path)
            for key, path in conn.execute("SELECT key, path FROM deps JOIN files ON files.id = deps.file_id")
        )
        return snapshot(conn), deps


def _spied(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of one of the indexer's functions (it still runs)."""
    calls: list[int] = []
    real = getattr(indexer, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(indexer, name, counted)
    return calls


def test_runs_of_one_file_resolve_as_one_run_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _built(make_repo(tmp_path / "whole", FILES))
    monkeypatch.setattr(indexer, "RUN_BYTES", 1)  # a run per file
    here = _spied(monkeypatch, "_resolve_here")
    assert _built(make_repo(tmp_path / "runs", FILES)) == whole
    assert here and whole[0].edges and whole[1]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="resolution forks only with two cores or more")
def test_forked_workers_resolve_as_this_process_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _built(make_repo(tmp_path / "whole", FILES))
    monkeypatch.setattr(indexer, "PARALLEL_RESOLVE_MIN_FILES", 1)
    monkeypatch.setattr(indexer, "RUN_BYTES", 1)
    forked = _spied(monkeypatch, "_resolve_forked")
    assert _built(make_repo(tmp_path / "forked", FILES)) == whole
    assert forked
    monkeypatch.setattr(indexer, "FORK_MAX_SYMBOLS", 0)  # a world too large to copy: one process
    assert _built(make_repo(tmp_path / "large", FILES)) == whole
    assert len(forked) == 1
