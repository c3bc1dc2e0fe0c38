"""A first build commits what it stored as it goes (``indexer.FIRST_BUILD_BATCH_S``): an editor
asking during it answers from those files; a first build that stops midway is redone whole."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from helpers import indexed_edges, make_repo, many_functions

from mnemo_core.index import indexer
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import index_path

FILES = many_functions("v1")
SOURCES = len(FILES)


class Stopped(Exception):
    """The build was stopped (an editor closed, a machine went down)."""


def _stored(root: Path) -> int:
    """How many files another connection sees in the index."""
    with closing(sqlite3.connect(index_path(root))) as reader:
        return int(reader.execute("SELECT count(*) FROM files").fetchone()[0])


def test_a_first_build_lets_readers_see_the_files_it_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "r", FILES)
    monkeypatch.setattr(indexer, "FIRST_BUILD_BATCH_S", 0.0)  # commit after every file
    seen: list[int] = []
    index_repo(root, progress=lambda phase, done, total: seen.append(_stored(root)))
    assert SOURCES >= 3 and seen == list(range(1, SOURCES + 1))


def test_a_first_build_lets_readers_see_every_file_before_it_resolves_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "r", FILES)
    monkeypatch.setattr(indexer, "FIRST_BUILD_BATCH_S", 3600.0)  # no commit while parsing
    resolve = indexer._resolve
    seen: list[int] = []

    def resolving(*args: object, **kwargs: object) -> None:
        seen.append(_stored(root))
        resolve(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer, "_resolve", resolving)
    index_repo(root)
    assert seen == [SOURCES]


def test_a_first_build_that_stops_midway_is_redone_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = make_repo(tmp_path / "whole", FILES)
    index_repo(whole)
    root = make_repo(tmp_path / "r", FILES)
    monkeypatch.setattr(indexer, "FIRST_BUILD_BATCH_S", 0.0)

    def stop(phase: str, done: int, total: int) -> None:
        if done == 2:
            raise Stopped

    with pytest.raises(Stopped):
        index_repo(root, progress=stop)
    assert 0 < _stored(root) < SOURCES  # committed, unresolved
    stats = index_repo(root)
    assert stats.parsed == SOURCES  # every file read again: the stored ones had no edges yet
    assert indexed_edges(root) == indexed_edges(whole)
