"""Files derived from an index, kept beside it and named after it.

A derived file (the graph cache, ``graph-<index id>-<generation>.bin``, the record of what changed
of the graph since an earlier file, ``graphdelta-<index id>-<generation>.bin``, and the distinct
short names, ``names-<index id>-<generation>.txt``) carries the random id the
index was given when it was created, so a file of the same name committed to a repository's
``.mnemo/`` never passes for one of ours. When an index is rebuilt under a new id (another schema
version), the files named after the old id are mnemo's own and nothing reads them any more: the
rebuild removes exactly those, matched by their whole name, never a pattern a planted file could
also fit (a file of another id, or of an index that had none).
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)

GRAPH_PREFIX = "graph-"  # graph-<index id>-<generation><suffix>
GRAPH_SUFFIXES = (".bin", ".npz")  # the cache's file, and the one it replaced
NAMES_PREFIX = "names-"  # names-<index id>-<generation><suffix>: the distinct short names
NAMES_SUFFIX = ".txt"
DELTA_PREFIX = "graphdelta-"  # graphdelta-<index id>-<generation><suffix>: the graph's changes since a file
DELTA_SUFFIX = ".bin"
_DERIVED = ((GRAPH_PREFIX, GRAPH_SUFFIXES), (NAMES_PREFIX, (NAMES_SUFFIX,)), (DELTA_PREFIX, (DELTA_SUFFIX,)))
INDEX_ID = re.compile(r"[0-9a-f]{16}")  # os.urandom(8).hex(), as schema.create_schema names an index


def index_id_of(conn: sqlite3.Connection) -> str | None:
    """The id stored in an index's meta table, or None when it has none (an index older than ids)
    or it cannot be read."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='index_id'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return str(row[0]) if row and INDEX_ID.fullmatch(str(row[0])) else None


def derived_path(directory: Path, prefix: str, index_id: str, generation: int, suffix: str) -> Path:
    """Where the file of one kind (``prefix``, ``suffix``) derived from the index ``index_id`` at
    ``generation`` is kept."""
    return directory / f"{prefix}{index_id}-{generation}{suffix}"


def remove_derived(directory: Path, index_id: str | None) -> None:
    """Remove the files derived from the index ``index_id`` in ``directory`` (nothing for None)."""
    if index_id is not None:
        _remove(directory, _pattern(index_id, _DERIVED), keep="")


def remove_other_generations(kept: Path, index_id: str) -> None:
    """Remove the files of ``kept``'s kind derived from the index ``index_id`` at any other
    generation (written when ``kept`` is: one file of a kind per index)."""
    kinds = tuple(kind for kind in _DERIVED if kept.name.startswith(kind[0]))
    _remove(kept.parent, _pattern(index_id, kinds), keep=kept.name)


def _pattern(index_id: str, kinds: tuple[tuple[str, tuple[str, ...]], ...]) -> re.Pattern[str]:
    """The whole names of ``index_id``'s files of ``kinds``: never a pattern a planted file of
    another id could also fit."""
    return re.compile(
        "|".join(
            rf"{re.escape(prefix)}{re.escape(index_id)}-[0-9]+(?:{'|'.join(map(re.escape, suffixes))})"
            for prefix, suffixes in kinds
        )
    )


def _remove(directory: Path, ours: re.Pattern[str], keep: str) -> None:
    """Remove the regular files of ``directory`` whose whole name ``ours`` matches, but ``keep``."""
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries if entry.is_file(follow_symlinks=False)]
    except OSError as exc:
        log.info("derived files in %s were not removed: %s", directory, exc)
        return
    for name in names:
        if name != keep and ours.fullmatch(name):
            try:
                (directory / name).unlink(missing_ok=True)
            except OSError as exc:  # another process may still map it where that forbids removal
                log.info("derived file %s not removed: %s", directory / name, exc)
