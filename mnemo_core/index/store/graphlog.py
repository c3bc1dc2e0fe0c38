"""What an update changed of the graph: the symbols at either end of every edge it wrote or removed.

The graph file of a generation (``retrieve/graphcache``) can be derived from an earlier
generation's file plus the rows of the symbols whose edges changed since. Which those are is
recorded where every change happens, in SQLite itself: while an update runs, temporary triggers on
the writer's connection (nothing is stored in the index file; another connection never sees them)
note both ends of each edge inserted, deleted or updated, and a symbol and its parent when a symbol
row comes or goes (its ``contains`` edge). However the indexer writes (a file parsed again, its
edges resolved again in place or replaced, a file removed), nothing escapes the record.

When the update has committed a new generation, the record is kept beside the index as
``graphdelta-<index id>-<generation>.bin``: the generation whose graph file it starts from and the
changed symbols since (a second update before any query adds its own to the first's, from the same
start). The first query of the new generation derives its graph from the two (and removes them); a
verb that never walks (``pr``, ``tests``, the hook) pays nothing but the triggers. The file is a
header (magic, index id, generation, base generation, CRC-32, count) and the ids as 64-bit numbers,
ascending; one that does not check out is ignored (the graph is then built from every edge).

The derivation reads the current edges of the changed symbols only: the index's edges in rowid
order, then the ``contains`` edges in child id order, as ``SymbolReads.edge_batches`` reads every
edge.
"""

from __future__ import annotations

import logging
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from mnemo_core.index.store.connection import Connection
from mnemo_core.index.store.derived import (
    DELTA_PREFIX,
    DELTA_SUFFIX,
    GRAPH_PREFIX,
    GRAPH_SUFFIXES,
    derived_path,
    remove_other_generations,
)
from mnemo_core.index.store.schema import ANALYSIS_META, ANALYSIS_VERSION
from mnemo_core.statedir import replacing

log = logging.getLogger(__name__)

_DELTA_MAGIC = f"mnemo delta 1 {sys.byteorder[0]}\n".encode()  # 16 bytes
_DELTA_HEADER = struct.Struct("=16s16sqqQq")  # magic, index id, generation, base generation, CRC, count
_CRC_AT = 16 + 16 + 8 + 8

_LOG = "graph_touched"  # TEMP table: one row per end of a changed edge (repeats allowed: no conflict)
_NODES = "graph_nodes"  # TEMP table: symbol ids for a read to join
# rows the record holds at most (~15 MB): an update that writes more (every edge resolved again) has
# changed so much that building the graph from every edge is as cheap, so the triggers stop there
LOG_CAP = 1_000_000


def _triggers(cap: int) -> dict[str, str]:
    """The triggers' names and bodies; each writes while the record holds fewer than ``cap`` rows."""
    room = f"coalesce((SELECT max(rowid) FROM temp.{_LOG}), 0) < {int(cap)}"
    return {
        "graph_edge_in": (
            f"AFTER INSERT ON main.edges WHEN {room} BEGIN INSERT INTO {_LOG} VALUES (new.src), (new.dst);"
            " END"
        ),
        "graph_edge_out": (
            f"AFTER DELETE ON main.edges WHEN {room} BEGIN INSERT INTO {_LOG} VALUES (old.src), (old.dst);"
            " END"
        ),
        "graph_edge_moved": (  # an edge's line is not the graph's: its update changes nothing there
            f"AFTER UPDATE OF src, dst, type, confidence ON main.edges WHEN {room} BEGIN INSERT INTO {_LOG}"
            " VALUES (old.src), (old.dst), (new.src), (new.dst); END"
        ),
        "graph_symbol_in": (
            f"AFTER INSERT ON main.symbols WHEN new.parent_id IS NOT NULL AND {room} BEGIN INSERT INTO {_LOG}"
            " VALUES (new.id), (new.parent_id); END"
        ),
        "graph_symbol_out": (
            f"AFTER DELETE ON main.symbols WHEN old.parent_id IS NOT NULL AND {room} BEGIN INSERT INTO {_LOG}"
            " VALUES (old.id), (old.parent_id); END"
        ),
        "graph_symbol_moved": (
            f"AFTER UPDATE OF id, parent_id ON main.symbols WHEN {room} BEGIN INSERT INTO {_LOG} VALUES"
            " (old.id), (old.parent_id), (new.id), (new.parent_id); END"
        ),
    }


@dataclass(frozen=True)
class GraphDelta:
    """The symbols whose edges changed between the graph file of ``base`` and ``generation``."""

    generation: int
    base: int
    changed: array[int]  # ascending


class GraphLog(Connection):
    """The record of the graph's changed symbols, kept on this connection while an update runs."""

    def begin_graph_log(self) -> int | None:
        """Before an update: record what it changes of the graph, when an earlier generation's
        graph can be derived from (an index that is whole; not a first build, whose every insert
        the triggers would note). Returns the generation the record starts from."""
        if self.meta("commit") is None or self.meta(ANALYSIS_META) != str(ANALYSIS_VERSION):
            return None  # a first build, or every edge resolved again
        self.log_graph_changes()
        return self.generation()

    def end_graph_log(self, started: int | None) -> None:
        """After the update committed: keep its record as the new generation's delta, from the
        graph file of ``started`` or from that of the delta ``started`` had; then stop recording."""
        if started is None:
            return
        try:
            generation = self.generation()
            changed = self.graph_changes() if generation != started else None
            if changed is not None:
                self._keep_delta(started, generation, changed)
        finally:
            self.stop_graph_log()

    def _keep_delta(self, started: int, generation: int, changed: list[int]) -> None:
        index_id = self.index_id()
        if self._graph_file(started).is_file():
            delta = GraphDelta(generation, started, array("q", changed))
        else:
            earlier = self.graph_delta(started)
            if earlier is None or not self._graph_file(earlier.base).is_file():
                return  # nothing to derive from: the first query builds the graph from every edge
            merged = sorted(set(earlier.changed).union(changed))
            delta = GraphDelta(generation, earlier.base, array("q", merged))
        path = derived_path(self.path.parent, DELTA_PREFIX, index_id, generation, DELTA_SUFFIX)
        if _write_delta(path, index_id, delta):
            remove_other_generations(path, index_id)

    def graph_at_hand(self) -> bool:
        """Whether the current generation's graph file is there, or a change record to derive it."""
        generation = self.generation()
        delta = derived_path(self.path.parent, DELTA_PREFIX, self.index_id(), generation, DELTA_SUFFIX)
        return self._graph_file(generation).is_file() or delta.is_file()

    def graph_delta(self, generation: int) -> GraphDelta | None:
        """The kept record of what changed up to ``generation``, when there is a sound one."""
        path = derived_path(self.path.parent, DELTA_PREFIX, self.index_id(), generation, DELTA_SUFFIX)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        delta = _read_delta(data, self.index_id(), generation)
        if delta is None:
            log.info("graph change record %s is damaged or another index's; not used", path)
        return delta

    def forget_graph_deltas(self, upto: int) -> None:
        """Remove the change records of generations up to ``upto`` (their graph files exist)."""
        directory = self.path.parent
        prefix = f"{DELTA_PREFIX}{self.index_id()}-"
        try:
            names = [p.name for p in directory.iterdir() if p.name.startswith(prefix)]
        except OSError:
            return
        for name in names:
            number = name[len(prefix) : -len(DELTA_SUFFIX)] if name.endswith(DELTA_SUFFIX) else ""
            if number.isdigit() and int(number) <= upto:
                try:
                    (directory / name).unlink(missing_ok=True)
                except OSError as exc:  # a read-only .mnemo: the record is simply not used again
                    log.info("graph change record %s not removed: %s", directory / name, exc)

    def _graph_file(self, generation: int) -> Path:
        return derived_path(self.path.parent, GRAPH_PREFIX, self.index_id(), generation, GRAPH_SUFFIXES[0])

    def log_graph_changes(self) -> None:
        """Start recording (an earlier record on this connection is dropped)."""
        self.stop_graph_log()
        self.conn.execute(f"CREATE TEMP TABLE {_LOG}(id INTEGER)")
        for name, body in _triggers(LOG_CAP).items():
            self.conn.execute(f"CREATE TEMP TRIGGER {name} {body}")

    def stop_graph_log(self) -> None:
        """Stop recording and forget the record."""
        for name in _triggers(LOG_CAP):
            self.conn.execute(f"DROP TRIGGER IF EXISTS temp.{name}")
        for table in (_LOG, _NODES):
            self.conn.execute(f"DROP TABLE IF EXISTS temp.{table}")

    def graph_changes(self) -> list[int] | None:
        """The distinct symbols recorded so far, ascending; None once the record is full."""
        if self.conn.execute(f"SELECT count(*) >= ? FROM temp.{_LOG}", (LOG_CAP,)).fetchone()[0]:
            log.info("graph: the update changed too many edges to record; the graph is built from every edge")
            return None
        query = f"SELECT DISTINCT id FROM temp.{_LOG} WHERE id IS NOT NULL ORDER BY id"
        return [int(sid) for (sid,) in self.conn.execute(query)]

    def edges_at(self, ids: Sequence[int], types: Sequence[str]) -> list[tuple[int, int, int, float]]:
        """(src, dst, type code, confidence) of every edge at either end of one of ``ids``, in
        rowid order (each type given as its position in ``types``, -1 for a type not there)."""
        codes = " ".join(f"WHEN ? THEN {i}" for i in range(len(types)))
        query = (
            f"SELECT src, dst, CASE type {codes} ELSE -1 END, confidence FROM main.edges"
            f" WHERE src IN temp.{_NODES} OR dst IN temp.{_NODES} ORDER BY rowid"
        )
        with self._nodes(ids):
            return self.conn.execute(query, list(types)).fetchall()

    def contains_at(self, ids: Sequence[int], code: int) -> list[tuple[int, int, int, float]]:
        """(parent, child, ``code``, 1.0) of every ``contains`` edge at either end of one of
        ``ids``, in child id order (a member lies in its parent's file: the files of ``ids`` are
        read, ``parent_id`` is not indexed)."""
        query = (
            f"SELECT parent_id, id, ?, 1.0 FROM main.symbols WHERE parent_id IS NOT NULL AND file_id IN"
            f" (SELECT file_id FROM main.symbols WHERE id IN temp.{_NODES})"
            f" AND (id IN temp.{_NODES} OR parent_id IN temp.{_NODES}) ORDER BY id"
        )
        with self._nodes(ids):
            return self.conn.execute(query, (code,)).fetchall()

    @contextmanager
    def _nodes(self, ids: Sequence[int]) -> Iterator[None]:
        """``ids`` as a TEMP table for a read to join, dropped after it."""
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{_NODES}")
        self.conn.execute(f"CREATE TEMP TABLE {_NODES}(id INTEGER PRIMARY KEY)")
        try:
            self.conn.executemany(f"INSERT OR IGNORE INTO temp.{_NODES} VALUES (?)", ((int(i),) for i in ids))
            yield
        finally:
            self.conn.execute(f"DROP TABLE IF EXISTS temp.{_NODES}")


def _write_delta(path: Path, index_id: str, delta: GraphDelta) -> bool:
    """Write a change record under a temporary name, then rename it; False when it cannot be."""
    body = delta.changed.tobytes()
    header = _DELTA_HEADER.pack(
        _DELTA_MAGIC, index_id.encode(), delta.generation, delta.base, 0, len(delta.changed)
    )
    crc = zlib.crc32(body, zlib.crc32(header))
    try:
        with replacing(path) as out:
            out.write(header[:_CRC_AT] + struct.pack("=Q", crc) + header[_CRC_AT + 8 :] + body)
    except OSError as exc:
        log.info("graph change record not written to %s: %s", path.parent, exc)
        return False
    return True


def _read_delta(data: bytes, index_id: str, generation: int) -> GraphDelta | None:
    """A change record from its bytes; None when its header, stamp, size, CRC or order is wrong."""
    if len(data) < _DELTA_HEADER.size:
        return None
    magic, stored_id, stored_generation, base, crc, count = _DELTA_HEADER.unpack_from(data)
    if (
        magic != _DELTA_MAGIC
        or stored_id.rstrip(b"\0") != index_id.encode()
        or stored_generation != generation
    ):
        return None
    if count < 0 or len(data) != _DELTA_HEADER.size + 8 * count or base >= generation:
        return None
    unchecked = data[:_CRC_AT] + bytes(8) + data[_CRC_AT + 8 :]
    if zlib.crc32(unchecked) != crc:
        return None
    changed = array("q")
    changed.frombytes(data[_DELTA_HEADER.size :])
    if any(a >= b for a, b in pairwise(changed)):
        return None
    return GraphDelta(generation, base, changed)
