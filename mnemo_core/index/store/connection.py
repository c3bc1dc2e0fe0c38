"""One open index database: opening (with rebuild of old or damaged files), transactions,
metadata and the read memo that the other rooms of the store share."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from mnemo_core.errors import MnemoError
from mnemo_core.index.recovery import (
    SIDE_FILES,
    IndexDamaged,
    IndexReadOnly,
    quarantine,
    writable,
)
from mnemo_core.index.store.derived import index_id_of, remove_derived
from mnemo_core.index.store.schema import (
    INDEXES,
    SCHEMA_VERSION,
    connect,
    connect_read_only,
    create_indexes,
    create_schema,
    index_path,
    open_checked,
    prepare_index_dir,
    schema_version,
    transaction,
)
from mnemo_core.model import Edge, Symbol
from mnemo_core.statedir import own_database

log = logging.getLogger(__name__)


@dataclass
class ReadMemo:
    """What ``Store.remembering`` has read: symbols (and ids that are none), edges by endpoint, the
    generation."""

    symbols: dict[int, Symbol] = field(default_factory=dict)
    absent: set[int] = field(default_factory=set)
    edges_in: dict[int, list[Edge]] = field(default_factory=dict)
    edges_out: dict[int, list[Edge]] = field(default_factory=dict)
    generation: int | None = None  # the index's, read once (every walk and reader keys by it)


class Connection:
    """An open index database: opening, transactions and metadata."""

    def __init__(self, conn: sqlite3.Connection, path: Path, root: Path) -> None:
        self.conn = conn
        self.path = path
        self._root = root
        self.read_only = False  # opened read-only: it can answer, not be updated
        self._reads: ReadMemo | None = None  # inside ``remembering``: symbols and edges read once
        self._next_id: int | None = None

    @property
    def root(self) -> Path:
        """The repository this index belongs to (the index lives in its state directory)."""
        return self._root

    @classmethod
    def open(cls, root: Path, create: bool = True) -> Self:
        """Open the index of ``root``; create it, or rebuild it when it is old, foreign or damaged
        (a damaged or foreign file is moved aside first, see ``recovery``). An index mnemo cannot
        write is opened read-only, as it is."""
        path = index_path(root)
        if not create and not path.exists():
            raise MnemoError(f"no index at {path}. Run `mnemo index {root}` first.")
        own_database(path)
        if path.exists() and not writable(path):
            return cls._open_read_only(path, root)
        if create:
            prepare_index_dir(root)
        try:
            conn, version, reason = open_checked(path)
        except IndexReadOnly as exc:
            if not path.exists():
                raise
            log.info("%s; answering from it read-only", exc)
            return cls._open_read_only(path, root)
        if version == SCHEMA_VERSION:
            return cls(conn, path, root)
        if version is not None:
            old_id = index_id_of(conn) if version >= 0 else None  # a damaged or foreign file's is not ours
            conn.close()
            if version < 0:
                quarantine(path, reason or "not an index of mnemo")
            else:
                log.warning(
                    "the index %s was built by another version of mnemo (schema %d, expected %d); "
                    "rebuilding it",
                    path,
                    version,
                    SCHEMA_VERSION,
                )
                for suffix in ("", *SIDE_FILES):  # mnemo's own file, rewritable: nothing to keep
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
                remove_derived(path.parent, old_id)
            conn = connect(path)
        with transaction(conn):
            if schema_version(conn) is None:  # another process may have created it meanwhile
                create_schema(conn)
        return cls(conn, path, root)

    @classmethod
    def _open_read_only(cls, path: Path, root: Path) -> Self:
        conn = connect_read_only(path)
        try:
            version = schema_version(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise IndexDamaged(
                f"the index {path} is damaged ({exc}) and cannot be rebuilt: it is read-only. "
                f"Make {path.parent} writable, then run `mnemo index` again"
            ) from exc
        if version != SCHEMA_VERSION:
            conn.close()
            raise IndexReadOnly(
                f"the index {path} was built by another version of mnemo and cannot be "
                f"rebuilt: it is read-only. Make {path.parent} writable"
            )
        store = cls(conn, path, root)
        store.read_only = True
        return store

    def quick_check(self) -> None:
        """Raise ``IndexDamaged`` when SQLite's ``quick_check`` finds damage (O(size): for full rebuilds)."""
        try:
            rows = self.conn.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            raise IndexDamaged(f"damaged ({exc})") from exc
        if rows != [("ok",)]:
            raise IndexDamaged(f"damaged (quick_check: {rows[0][0]})")

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """One write transaction: all of it lands, or none of it does. Without ``durable`` (a build
        from scratch) it skips the fsyncs: only an OS crash or power loss could then corrupt the
        index, and a corrupt index is rebuilt."""
        self._next_id = None
        if not durable:
            self.conn.execute("PRAGMA synchronous=OFF")
            # and sorts (the deferred indexes) through temporary files, spilled past the page cache,
            # not in memory: edges' three indexes over 3.3M rows peaked 179 MB above the rows so, 64
            self.conn.execute("PRAGMA temp_store=FILE")
        try:
            with transaction(self.conn):
                yield
        finally:
            self._next_id = None
            if not durable:
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute("PRAGMA temp_store=MEMORY")

    def checkpoint(self) -> None:
        """Inside ``transaction``: commit what it wrote so far and go on in a new one (a first build
        lets readers see the files it stored; one that stops after is redone as a whole)."""
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN IMMEDIATE")

    @contextmanager
    def indexes_deferred(self, table: str) -> Iterator[None]:
        """Fill ``table`` and index it afterwards when it starts empty (faster than row by row)."""
        if self.conn.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:
            for name in INDEXES[table]:
                self.conn.execute(f"DROP INDEX IF EXISTS {name}")
        yield
        create_indexes(self.conn, table)

    # -- meta -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        """A stored metadata value."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def index_id(self) -> str:
        """A random name given to this index when it was created: files derived from it carry it,
        so a file of the same name committed to a repository's ``.mnemo/`` is never mistaken for one."""
        return self.meta("index_id") or "none"

    def generation(self) -> int:
        """A counter bumped by every write, so readers can tell when cached graphs are stale (read
        once inside ``remembering``, whose index does not change)."""
        reads = self._reads
        if reads is None:
            return int(self.meta("generation") or 0)
        if reads.generation is None:
            reads.generation = int(self.meta("generation") or 0)
        return reads.generation

    # -- reads for the pipelines ------------------------------------------------------------
    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Within the block, ``symbols_by_ids`` and ``edges_touching`` read each symbol and each
        symbol's edges from SQLite once: for a batch of graph walks (the tests of every function in
        a file visit the same callers and helpers again and again) over an index that does not
        change meanwhile. Nested blocks share the outer one's memory."""
        if self._reads is not None:
            yield
            return
        self._reads = ReadMemo()
        try:
            yield
        finally:
            self._reads = None
