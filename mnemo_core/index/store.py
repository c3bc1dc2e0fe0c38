"""The index database: schema, opening (with rebuild of old or corrupt files), reads and writes.

One SQLite file per repository at ``.mnemo/index.db`` in WAL mode, so readers (the language
server, a CI job) never block the one writer. All SQL of the engine lives in this module.
Symbol ids are stable across re-indexing: a re-parsed file's symbols keep the id of the old
symbol with the same qualified name, kind and ordinal, so edges from other files stay valid.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.model import Edge, FileExtract, RawImport, RawRef, RawSymbol, Symbol

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
INDEX_DIR = ".mnemo"
DB_NAME = "index.db"
BUSY_TIMEOUT_S = 5.0

# BM25 column weights for symbols_fts(name, words, qualified, signature, docstring, path):
# a hit in the name says far more about a symbol than a hit in its docstring or path.
FTS_WEIGHTS = (10.0, 6.0, 4.0, 2.0, 1.0, 1.5)

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, language TEXT NOT NULL, hash TEXT NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, parse_errors INTEGER NOT NULL DEFAULT 0,
    exports TEXT, imports TEXT NOT NULL DEFAULT '[]', refs TEXT NOT NULL DEFAULT '[]');
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, short_name TEXT NOT NULL,
    kind TEXT NOT NULL, signature TEXT NOT NULL, docstring TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, tokens INTEGER NOT NULL,
    is_test INTEGER NOT NULL, is_test_case INTEGER NOT NULL, exported INTEGER NOT NULL,
    parent_id INTEGER, params TEXT NOT NULL, decorators TEXT NOT NULL);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_short ON symbols(short_name);
CREATE TABLE ref_names(name TEXT NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY(name, file_id)) WITHOUT ROWID;
CREATE INDEX ref_names_file ON ref_names(file_id);
CREATE TABLE edges(
    src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL, resolution TEXT NOT NULL,
    confidence REAL NOT NULL, line INTEGER NOT NULL, file_id INTEGER NOT NULL);
CREATE INDEX edges_src ON edges(src);
CREATE INDEX edges_dst ON edges(dst);
CREATE INDEX edges_file ON edges(file_id);
CREATE VIRTUAL TABLE symbols_fts USING fts5(
    name, words, qualified, signature, docstring, path, tokenize='porter unicode61');
"""

_SYMBOL_COLUMNS = (
    "s.id, f.path, s.name, s.kind, f.language, s.signature, s.docstring, s.start_line, s.end_line, "
    "s.tokens, s.is_test, s.is_test_case, s.exported, s.parent_id"
)


@dataclass(frozen=True, slots=True)
class FileRow:
    """What the index remembers about one file."""

    id: int
    path: str
    language: str
    hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class FileFacts:
    """The content facts of a file being (re-)indexed."""

    hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class SymbolRow:
    """A symbol as the resolver needs it."""

    id: int
    file_id: int
    name: str
    short_name: str
    kind: str
    parent_id: int | None
    is_test: bool
    is_test_case: bool
    params: tuple[str, ...]
    decorators: tuple[str, ...]


def index_path(root: Path) -> Path:
    """Where the index of the repository at ``root`` lives."""
    return root / INDEX_DIR / DB_NAME


def _prepare_dir(root: Path) -> Path:
    directory = root / INDEX_DIR
    try:
        directory.mkdir(exist_ok=True)
        ignore = directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
    except OSError as exc:
        raise MnemoError(f"cannot create {directory}: {exc.strerror}. Is the directory writable?") from exc
    return directory


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _schema_version(conn: sqlite3.Connection) -> int | None:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return None
    if "meta" not in tables:
        return -1
    row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return int(row[0]) if row else -1


class Store:
    """An open index database."""

    def __init__(self, conn: sqlite3.Connection, path: Path, rebuilt_because: str | None = None) -> None:
        self.conn = conn
        self.path = path
        self.rebuilt_because = rebuilt_because

    @classmethod
    def open(cls, root: Path, create: bool = True) -> Store:
        """Open the index of ``root``; create it, or rebuild it when it is old or corrupt."""
        path = index_path(root)
        if not create and not path.exists():
            raise MnemoError(f"no index at {path}. Run `mnemo index {root}` first.")
        if create:
            _prepare_dir(root)
        reason = None
        try:
            conn = _connect(path)
            version = _schema_version(conn)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise MnemoError(f"the index {path} is locked by another process; try again shortly") from exc
            reason, version = f"unreadable ({exc})", -2
        except sqlite3.DatabaseError as exc:
            reason, version = f"corrupt ({exc})", -2
        if version == SCHEMA_VERSION:
            return cls(conn, path)
        if version is not None and version != SCHEMA_VERSION:
            reason = reason or f"built by another version of mnemo (schema {version}, expected {SCHEMA_VERSION})"
            log.warning("index %s is %s; rebuilding it", path, reason)
            if version != -2:
                conn.close()
            _remove_db(path)
            conn = _connect(path)
        with _transaction(conn):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        return cls(conn, path, rebuilt_because=reason)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: all of it lands, or none of it does."""
        with _transaction(self.conn):
            yield

    # -- meta -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        """A stored metadata value."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def generation(self) -> int:
        """A counter bumped by every write, so readers can tell when cached graphs are stale."""
        return int(self.meta("generation") or 0)

    # -- files ------------------------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        """Every indexed file by path."""
        rows = self.conn.execute("SELECT id, path, language, hash, size, mtime_ns FROM files")
        return {r[1]: FileRow(*r) for r in rows}

    def touch_file(self, file_id: int, facts: FileFacts) -> None:
        """Record a new size and mtime for a file whose content did not change."""
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?", (facts.size, facts.mtime_ns, file_id))

    def remove_files(self, file_ids: Sequence[int]) -> None:
        """Forget files, their symbols, references and every edge touching them."""
        for chunk in _chunks(file_ids):
            marks = ",".join("?" * len(chunk))
            ids = f"SELECT id FROM symbols WHERE file_id IN ({marks})"
            self.conn.execute(f"DELETE FROM edges WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM edges WHERE dst IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM symbols_fts WHERE rowid IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM symbols WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM ref_names WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM files WHERE id IN ({marks})", chunk)

    def write_file(
        self, extract: FileExtract, facts: FileFacts, old: FileRow | None
    ) -> tuple[int, set[str], set[int]]:
        """Store one file's extraction, reusing old symbol ids. Returns the file id, the short names
        whose definitions appeared or disappeared, and the files that had edges to removed symbols."""
        imports = json.dumps([[i.module, i.name, i.alias, i.line, i.level] for i in extract.imports])
        refs = json.dumps([[r.kind, r.name, r.receiver, r.scope, r.line] for r in extract.refs])
        exports = json.dumps(list(extract.exports)) if extract.exports is not None else None
        values = (extract.language, facts.hash, facts.size, facts.mtime_ns, extract.parse_errors, exports, imports, refs)
        if old is None:
            cur = self.conn.execute(
                "INSERT INTO files(language, hash, size, mtime_ns, parse_errors, exports, imports, refs, path)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (*values, extract.path),
            )
            file_id = int(cur.lastrowid or 0)
        else:
            file_id = old.id
            self.conn.execute(
                "UPDATE files SET language=?, hash=?, size=?, mtime_ns=?, parse_errors=?, exports=?, imports=?,"
                " refs=? WHERE id=?",
                (*values, file_id),
            )
        changed_names, dependents = self._write_symbols(file_id, extract)
        self.conn.execute("DELETE FROM ref_names WHERE file_id=?", (file_id,))
        names = {r.name for r in extract.refs}
        self.conn.executemany("INSERT INTO ref_names VALUES (?, ?)", ((n, file_id) for n in names))
        return file_id, changed_names, dependents - {file_id}

    def _write_symbols(self, file_id: int, extract: FileExtract) -> tuple[set[str], set[int]]:
        old = self.conn.execute("SELECT id, name, kind FROM symbols WHERE file_id=? ORDER BY id", (file_id,)).fetchall()
        old_ids = dict(zip(_ordinal_keys((name, kind) for _, name, kind in old), (row[0] for row in old)))
        keys = _ordinal_keys((s.name, s.kind) for s in extract.symbols)
        new_keys = set(keys)
        gone = [sid for key, sid in old_ids.items() if key not in new_keys]
        dependents = self._delete_symbols(gone)
        ids: dict[str, int] = {}
        path = extract.path
        for key, sym in zip(keys, extract.symbols):
            parent_id = ids.get(sym.name.rsplit(".", 1)[0]) if "." in sym.name and sym.kind != "module" else None
            if parent_id is None and sym.kind != "module":
                parent_id = ids.get("\0module")
            row = _symbol_row(sym, file_id, parent_id)
            sid = old_ids.get(key)
            if sid is None:
                sid = int(self.conn.execute(_INSERT_SYMBOL, row).lastrowid or 0)
            else:
                self.conn.execute(_UPDATE_SYMBOL, (*row, sid))
                self.conn.execute("DELETE FROM symbols_fts WHERE rowid=?", (sid,))
            self.conn.execute("INSERT INTO symbols_fts(rowid, name, words, qualified, signature, docstring, path)"
                              " VALUES (?,?,?,?,?,?,?)", (sid, *_fts_row(sym, path)))
            ids.setdefault("\0module" if sym.kind == "module" else sym.name, sid)
        before = {name.rsplit(".", 1)[-1] for (name, _kind, _n) in old_ids}
        after = {s.name.rsplit(".", 1)[-1] for s in extract.symbols}
        return before ^ after, dependents

    def _delete_symbols(self, ids: Sequence[int]) -> set[int]:
        """Delete symbols and their edges; return the files that had edges into them."""
        dependents: set[int] = set()
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT DISTINCT file_id FROM edges WHERE dst IN ({marks})", chunk)
            dependents.update(r[0] for r in rows)
            self.conn.execute(f"DELETE FROM edges WHERE dst IN ({marks}) OR src IN ({marks})", (*chunk, *chunk))
            self.conn.execute(f"DELETE FROM symbols_fts WHERE rowid IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM symbols WHERE id IN ({marks})", chunk)
        return dependents

    def files_referencing(self, names: Iterable[str]) -> set[int]:
        """Files with a reference to any of ``names``."""
        result: set[int] = set()
        for chunk in _chunks(list(names)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT DISTINCT file_id FROM ref_names WHERE name IN ({marks})", chunk)
            result.update(r[0] for r in rows)
        return result

    def files_with_edges_into(self, file_ids: Iterable[int]) -> set[int]:
        """Files whose resolved edges point into any of ``file_ids``."""
        result: set[int] = set()
        for chunk in _chunks(list(file_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT DISTINCT e.file_id FROM edges e JOIN symbols s ON s.id = e.dst WHERE s.file_id IN ({marks})",
                chunk,
            )
            result.update(r[0] for r in rows)
        return result

    # -- resolver input and output ----------------------------------------------------------
    def resolver_files(self) -> list[tuple[int, str, str, list[RawImport], tuple[str, ...] | None]]:
        """(id, path, language, imports, exports) of every file."""
        out = []
        for fid, path, language, imports, exports in self.conn.execute(
            "SELECT id, path, language, imports, exports FROM files"
        ):
            parsed = [RawImport(m, n, a, line, level) for m, n, a, line, level in json.loads(imports)]
            out.append((fid, path, language, parsed, tuple(json.loads(exports)) if exports else None))
        return out

    def resolver_symbols(self) -> list[SymbolRow]:
        """Every symbol, in the shape the resolver needs."""
        rows = self.conn.execute(
            "SELECT id, file_id, name, short_name, kind, parent_id, is_test, is_test_case, params, decorators"
            " FROM symbols"
        )
        return [
            SymbolRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]),
                      tuple(r[8].split()) if r[8] else (), tuple(json.loads(r[9])) if r[9] != "[]" else ())
            for r in rows
        ]

    def refs_of(self, file_ids: Iterable[int]) -> dict[int, list[RawRef]]:
        """The unresolved references of some files."""
        out: dict[int, list[RawRef]] = {}
        for chunk in _chunks(list(file_ids)):
            marks = ",".join("?" * len(chunk))
            for fid, refs in self.conn.execute(f"SELECT id, refs FROM files WHERE id IN ({marks})", chunk):
                out[fid] = [RawRef(k, n, r, s, line) for k, n, r, s, line in json.loads(refs)]
        return out

    def inherits_edges(self, exclude_files: set[int]) -> list[tuple[int, int]]:
        """Resolved (class, base) pairs, leaving out those resolved from ``exclude_files``."""
        rows = self.conn.execute("SELECT src, dst, file_id FROM edges WHERE type='inherits'")
        return [(s, d) for s, d, f in rows if f not in exclude_files]

    def replace_edges(self, file_ids: Iterable[int], edges: Iterable[tuple[Edge, int]]) -> None:
        """Swap the resolved edges of some files (and all derived ``overrides``) for new ones."""
        for chunk in _chunks(list(file_ids)):
            marks = ",".join("?" * len(chunk))
            self.conn.execute(f"DELETE FROM edges WHERE file_id IN ({marks}) AND type != 'overrides'", chunk)
        self.conn.execute("DELETE FROM edges WHERE type='overrides'")
        self.conn.executemany(
            "INSERT INTO edges VALUES (?,?,?,?,?,?,?)",
            ((e.src, e.dst, e.type, e.resolution, e.confidence, e.line, fid) for e, fid in edges),
        )

    # -- reads for the pipelines ------------------------------------------------------------
    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, Symbol]:
        """Symbols by id."""
        out: dict[int, Symbol] = {}
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN ({marks})",
                chunk,
            )
            out.update((r[0], _symbol(r)) for r in rows)
        return out

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """The symbols of one file, in line order."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path=?"
            " ORDER BY s.start_line, s.end_line DESC",
            (path,),
        )
        return [_symbol(r) for r in rows]

    def find_symbols(self, pattern: str, limit: int = 50) -> list[Symbol]:
        """Symbols whose qualified or short name matches a name or a glob (``*`` and ``?``)."""
        glob = pattern if any(c in pattern for c in "*?[") else None
        if glob:
            where, args = "(s.name GLOB ? OR s.short_name GLOB ? OR f.path || ':' || s.name GLOB ?)", [glob] * 3
        else:
            where, args = "(s.name = ? OR s.short_name = ? OR f.path || ':' || s.name = ?)", [pattern] * 3
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where}"
            " AND s.kind != 'module' ORDER BY s.is_test, f.path, s.start_line LIMIT ?",
            (*args, limit),
        )
        return [_symbol(r) for r in rows]

    def edges_touching(self, ids: Iterable[int], direction: str) -> list[Edge]:
        """Edges into (``direction='in'``) or out of (``'out'``) the given symbols."""
        column = "dst" if direction == "in" else "src"
        out: list[Edge] = []
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT src, dst, type, resolution, confidence, line FROM edges WHERE {column} IN ({marks})", chunk
            )
            out.extend(Edge(*r) for r in rows)
        return out

    def all_edges(self) -> list[tuple[int, int, str, float]]:
        """Every edge as (src, dst, type, confidence)."""
        return list(self.conn.execute("SELECT src, dst, type, confidence FROM edges"))

    def fts_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25-ranked symbol ids for an FTS5 match expression (best first)."""
        weights = ",".join(str(w) for w in FTS_WEIGHTS)
        try:
            rows = self.conn.execute(
                f"SELECT rowid, bm25(symbols_fts, {weights}) AS rank FROM symbols_fts WHERE symbols_fts MATCH ?"
                " ORDER BY rank, rowid LIMIT ?",
                (match, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), -float(r[1])) for r in rows]

    def symbol_ids_by_short_names(self, names: Iterable[str]) -> dict[str, list[int]]:
        """Symbol ids by exact short name."""
        out: dict[str, list[int]] = {}
        for chunk in _chunks(list(names)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT short_name, id FROM symbols WHERE short_name IN ({marks}) AND kind != 'module'"
                " ORDER BY id",
                chunk,
            )
            for name, sid in rows:
                out.setdefault(name, []).append(sid)
        return out

    def counts(self) -> dict[str, dict[str, int]]:
        """Files by language, symbols by kind, edges by type and by resolution."""
        queries = {
            "files": "SELECT language, count(*) FROM files GROUP BY language",
            "symbols": "SELECT kind, count(*) FROM symbols GROUP BY kind",
            "edges": "SELECT type, count(*) FROM edges GROUP BY type",
            "resolution": "SELECT resolution, count(*) FROM edges GROUP BY resolution",
        }
        return {key: dict(self.conn.execute(sql).fetchall()) for key, sql in queries.items()}


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


_INSERT_SYMBOL = (
    "INSERT INTO symbols(file_id, name, short_name, kind, signature, docstring, start_line, end_line, tokens,"
    " is_test, is_test_case, exported, parent_id, params, decorators) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_UPDATE_SYMBOL = (
    "UPDATE symbols SET file_id=?, name=?, short_name=?, kind=?, signature=?, docstring=?, start_line=?,"
    " end_line=?, tokens=?, is_test=?, is_test_case=?, exported=?, parent_id=?, params=?, decorators=? WHERE id=?"
)


def _ordinal_keys(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """(name, kind, n): the n-th definition of that name and kind in a file (overloads, setters)."""
    seen: Counter[tuple[str, str]] = Counter()
    keys = []
    for pair in pairs:
        keys.append((*pair, seen[pair]))
        seen[pair] += 1
    return keys


def _symbol_row(sym: RawSymbol, file_id: int, parent_id: int | None) -> tuple[object, ...]:
    return (
        file_id, sym.name, sym.name.rsplit(".", 1)[-1], sym.kind, sym.signature, sym.docstring, sym.start_line,
        sym.end_line, sym.tokens, int(sym.is_test), int(sym.is_test_case), int(sym.exported), parent_id,
        " ".join(sym.params), json.dumps(list(sym.decorators)),
    )


def _fts_row(sym: RawSymbol, path: str) -> tuple[str, ...]:
    short = sym.name.rsplit(".", 1)[-1]
    words = " ".join(identifier_words(sym.name))
    return (short, words, sym.name, sym.signature, sym.docstring, " ".join(identifier_words(path)))


def _symbol(r: Sequence[object]) -> Symbol:
    return Symbol(
        id=int(r[0]), path=str(r[1]), name=str(r[2]), kind=str(r[3]), language=str(r[4]), signature=str(r[5]),
        docstring=str(r[6]), start_line=int(r[7]), end_line=int(r[8]), tokens=int(r[9]), is_test=bool(r[10]),
        is_test_case=bool(r[11]), exported=bool(r[12]), parent_id=int(r[13]) if r[13] is not None else None,
    )


def _chunks(items: Sequence[object] | list[object], size: int = 500) -> Iterator[list[object]]:
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]


def db_size(path: Path) -> int:
    """Bytes on disk of the database and its WAL."""
    return sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))
