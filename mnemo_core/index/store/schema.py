"""The index file: its tables and indexes, its version, and opening a connection to it (a file
of another version or a damaged one is reported, for ``Connection.open`` to rebuild)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.recovery import (
    IndexReadOnly,
    is_read_only,
)
from mnemo_core.sqlitetx import immediate
from mnemo_core.statedir import state_dir

# the tables, and what parsing a file stores in them: an index of another schema version is rebuilt
# (every file parsed again), so bump it only when a table or the extractor's output changes
SCHEMA_VERSION = 80
# what is derived from the stored parse (the resolver's edges): an index of another analysis version
# is resolved again from its stored references, no file parsed again; bump it for a heuristic, or
# when what the ``deps`` keys stand for changes (2: a symbol's columns keyed apart)
ANALYSIS_VERSION = 2
ANALYSIS_META = "analysis"  # the meta key that holds the analysis version an index was resolved by
DB_NAME = "index.db"
BUSY_TIMEOUT_S = 5.0

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- refs is the large column: last, so that scans of the others never read through it
CREATE TABLE files(
    id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT UNIQUE NOT NULL, language TEXT NOT NULL,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, parse_errors INTEGER NOT NULL DEFAULT 0,
    exports TEXT, imports TEXT NOT NULL DEFAULT '[]', ref_names TEXT NOT NULL DEFAULT ' ',
    refs TEXT NOT NULL DEFAULT '[]');
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, short_name TEXT NOT NULL,
    kind TEXT NOT NULL, signature TEXT NOT NULL, docstring TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, size INTEGER NOT NULL,
    is_test INTEGER NOT NULL, is_test_case INTEGER NOT NULL, exported INTEGER NOT NULL,
    parent_id INTEGER, params TEXT NOT NULL, decorators TEXT NOT NULL, returns TEXT NOT NULL,
    supers TEXT NOT NULL, fields TEXT NOT NULL);
CREATE TABLE edges(
    src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL, resolution TEXT NOT NULL,
    confidence REAL NOT NULL, line INTEGER NOT NULL, file_id INTEGER NOT NULL);
-- what resolving each file read (``World.reads``' keys): a file is resolved again when one changes
CREATE TABLE deps(key TEXT NOT NULL, file_id INTEGER NOT NULL);
-- detail=full: bm25() counts a term's instances in a row from the stored positions (under
-- detail=column or none FTS5 tokenizes every matching row's text again to count them: 2-8x the
-- CPU of a query's BM25 on the ten-copy stdlib, for 47 MB more index there, 3 %)
CREATE VIRTUAL TABLE symbols_fts USING fts5(
    name, words, qualified, signature, docstring, path, tokenize='porter unicode61', detail=full);
-- each symbol as a reader sees it: its path and qualified name words, then its own body words
-- (identifiers, comments, strings): a channel of its own
CREATE VIRTUAL TABLE bodies_fts USING fts5(body, tokenize='porter unicode61', detail=full);
-- past commits (newest ones reachable from HEAD) and the (path, function name) pairs each changed
CREATE TABLE commits(id INTEGER PRIMARY KEY, sha TEXT UNIQUE NOT NULL, time INTEGER NOT NULL,
    author TEXT NOT NULL, subject TEXT NOT NULL, targets TEXT);
CREATE TABLE commit_files(commit_id INTEGER NOT NULL, path TEXT NOT NULL);
CREATE INDEX commit_files_path ON commit_files(path, commit_id);
CREATE VIRTUAL TABLE commits_fts USING fts5(message, tokenize='porter unicode61', detail=none);
"""

# Indexes by table. Filling an empty table and then indexing it is faster than both at once, so a
# cold build drops these and creates them again once the rows are in (see ``indexes_deferred``).
INDEXES = {
    "symbols": {
        "symbols_file": "(file_id)",
        "symbols_short": "(short_name)",
        "symbols_short_lower": "(lower(short_name))",
        "symbols_properties": "(short_name) WHERE decorators LIKE '%property%'",
    },
    "edges": {"edges_src": "(src)", "edges_dst": "(dst)", "edges_file": "(file_id)"},
    "deps": {"deps_key": "(key)", "deps_file": "(file_id)"},
}


def index_path(root: Path) -> Path:
    """Where the index of the repository at ``root`` lives (see ``mnemo_core.statedir``)."""
    return state_dir(root, create=False) / DB_NAME


def prepare_index_dir(root: Path) -> Path:
    """The state directory of ``root``, created when missing."""
    return state_dir(root)


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError:
        return conn  # a corrupt file: the schema check reports it
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; ``immutable`` where SQLite could not even create the WAL's index."""
    for options in ("mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(
            f"{path.absolute().as_uri()}?{options}", uri=True, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
    raise IndexReadOnly(f"the index {path} cannot be written, nor opened read-only; check its permissions")


def open_checked(path: Path) -> tuple[sqlite3.Connection, int | None, str | None]:
    """Connect and read the schema version: None for a new file, -1 for a foreign one, -2 if damaged."""
    conn = connect(path)
    try:
        return conn, schema_version(conn), None
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            conn.close()
            raise MnemoError(f"the index {path} is locked by another process; try again shortly") from exc
        if is_read_only(exc):
            conn.close()
            raise IndexReadOnly(f"the index {path} cannot be written ({exc})") from exc
        return conn, -2, f"unreadable ({exc})"
    except sqlite3.DatabaseError as exc:
        return conn, -2, f"damaged ({exc})"


def create_schema(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    for table in INDEXES:
        create_indexes(conn, table)
    conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    conn.execute("INSERT INTO meta VALUES (?, ?)", (ANALYSIS_META, str(ANALYSIS_VERSION)))
    conn.execute("INSERT INTO meta VALUES ('index_id', ?)", (os.urandom(8).hex(),))


def create_indexes(conn: sqlite3.Connection, table: str) -> None:
    for name, definition in INDEXES[table].items():
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table}{definition}")


def schema_version(conn: sqlite3.Connection) -> int | None:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return None
    if "meta" not in tables:
        return -1
    row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return int(row[0]) if row else -1


def transaction(conn: sqlite3.Connection) -> AbstractContextManager[None]:
    """The index's write transaction: a read-only index or a busy lock is one clear error."""
    return immediate(conn, _refused)


def _refused(exc: sqlite3.OperationalError) -> MnemoError:
    if is_read_only(exc):
        return IndexReadOnly(
            f"the index cannot be written ({exc}); check the free space and permissions of its directory"
        )
    return MnemoError(f"the index is locked by another process ({exc}); try again when it finishes")


def id_filters(column: str, ids: Iterable[int] | None) -> Iterator[tuple[str, list[object]]]:
    """``WHERE column IN (...)`` clauses in chunks; one empty clause for "all rows"."""
    if ids is None:
        yield "", []
        return
    for chunk in chunks(list(ids)):
        yield f"WHERE {column} IN ({','.join('?' * len(chunk))})", chunk


def chunks(items: Sequence[object] | list[object], size: int = 500) -> Iterator[list[object]]:
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]


def db_size(path: Path) -> int:
    """Bytes on disk of the database and its WAL."""
    return sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))
