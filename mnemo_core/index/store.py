"""The index database: schema, opening (with rebuild of old or damaged files), reads and writes.

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
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, cast

from mnemo_core.errors import MnemoError
from mnemo_core.index.recovery import (
    SIDE_FILES,
    IndexDamaged,
    IndexReadOnly,
    is_read_only,
    quarantine,
    writable,
)
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.index.world import SymbolRow
from mnemo_core.model import Edge, Field, FileExtract, RawImport, RawRef, RawSymbol, Symbol, SymbolKind
from mnemo_core.statedir import own_database, state_dir
from mnemo_core.vcs.changes import LoggedCommit

log = logging.getLogger(__name__)

# 6: refs deduplicated per scope, call-result return types; 7: refs column stored last; 8: supers;
# 9: imports scoped to the function they are written in; 10: iteration, returned call results;
# 11: parametrised test parameters typed; 12: body text; 13: commit memory; 14: path and name in body text;
# 16: the functions a remembered commit changed, once asked; 17: a random index id;
# 18: a commit's files only in commit_files; 19: dynamic dispatch references (values, registries, getattr);
# 20: getattr(obj, name) reads and parametrised module values (a module's __getattr__);
# 21: *Test and *Tests classes; 22: pytest's python_files/classes/functions, fixtures are never tests;
# 23: getattr dispatch by a variable the function builds from a literal prefix; 24: or a module constant;
# 25: functions handed over in a list or tuple are values; 26: len(), str(), x[k], ==, + on known classes;
# 27: and on plain names in test files (fixture parameters); 28: module constants read by name (``uses``);
# 29: a class calls its metaclass; 30: a src layout's modules are named without ``src.``;
# 31: Go variables typed by their declarations; 32: ``self.x = param`` takes the parameter's type;
# 33: a Java class's constants read by bare name or through the class; 34: Ruby specs, mixins, A::B;
# 35: a base class found by name where no import is read (PHP, Kotlin, C#, C++);
# 36: Go's package-level vars and consts are constants, linked to what reads them; 37: C# and Kotlin
# tests by their attributes and annotations; overloads count as one definition to a name guess;
# 38: PHPUnit's tests; 39: JavaScript's methods assigned to an object or a prototype;
# 40: Ruby's ``x = Foo.new`` and a spec's ``let(:x) { Foo.new }`` type ``x``
# 41: prefix collectors (PLY ``yacc.yacc(module=self)``), ``self.x = f()``, ``isinstance`` types,
# fixtures imported into a test module, truth tests (``__bool__``); 42: overloads are one definition
# to a name guess only in languages that have them (Java, C#, Kotlin, C++); 43: Ruby's ``@x = Foo.new``;
# 44: GoogleTest's ``TEST(Suite, Name)`` are test cases; 45: ``getattr(self, name)`` reads no module
# 48: a class's typed attributes (``self.hook = HookRelay()``), so ``pm.hook.x()`` is typed;
# 49: ``except UsageError as e`` types ``e``; 50: a call's result is typed by the callee's return type;
# 51: a type variable bound to a class stands for it (``cls: type[CmdType]`` builds a ``Command``),
# ``obj, rest = resolve()`` types ``obj`` by the first of the tuple it declares, and a class's fields
# include the classes it holds (``jinja_environment = Environment``), for subclasses in other files
# 52: a property read through a chain of attributes (``ctx.request.blueprints``) runs it
# 53: ``next(x)`` runs ``__next__`` of x's class
# 54: ``x = a or b`` types x as a is declared
# 55: a method of an object built from an outside class is no guess at a namesake
# 56: an object of a known class stored in a collection (``stack.postprocess.append(fltr)``) is handed over
# 57: a `test_*.py` module that tests nothing (no assert, no test framework) is the package's own code
# 58: a closure's free variable that is its enclosing function's parameter is typed as it (fixtures too)
# 59: a parameter whose default is a class (``lexer=CLexer``) is an alias of it
# 60: a variable assigned an attribute chain (``si = self.app.session_interface``) holds what it holds
# 61: ``getattr(self, name)`` where the name is a class's name alone (``node_class.__name__.upper()``)
# 62: a class defined in a function calls its bases' ``__init_subclass__`` (it runs the hook)
# 63: a property read on any variable typed in its scope, in every file (was: self, and tests)
# 64: a read of a property runs its getter (was the setter too), an assignment its setter; the calls
# in a definition's body are its own where its name has several (a property's setter), not the first's
# 65: Go: a function handed as a value (an argument, a struct field's value) is referenced, an exported
# name too (another file of the package may define it)
# 66: JavaScript, TypeScript and Rust: a function handed as a value (``xs.map(f)``, ``run(this.m)``,
# ``Handler { cb: f }``) is referenced; in JavaScript and TypeScript one stored in an object or array too
# 67: JavaScript and TypeScript: a monorepo's own package imported by its name (``zod/v4``) resolves to
# ``packages/<name>/src/...``
# 68: JSX and TSX: a function handed to a component as a prop (``onClick={handleClick}``) is referenced
# 69: Kotlin: a function reference (``xs.map(::upper)``) calls the function
# 71: Python: a definition named by its dotted path in a string (``"pkg.plugins.table.table"``) is referenced
# 72: Python: a module-level dict of any case is a registry constant (``_plugins = {"table": ...}``)
# 73: Python: an object a class attribute holds, called through self (``self.to_html(x)``), runs ``__call__``
# 74: Python: a dict of plain strings (``type_aliases = {T: "T"}``) is no registry
# 75: Python: a test class whose module's top-level code calls it (``TestCli.load_fixtures(...)``) is a
#     test case, and that call is the class's
# 76: Python: a test class a function builds is no test case; the test module whose top-level code
#     calls that function is (``tests/test_plugins.py``: pytest runs the file to collect them)
SCHEMA_VERSION = 76
DB_NAME = "index.db"
BUSY_TIMEOUT_S = 5.0
INSTR_SCAN_MAX_NAMES = 40  # more names than this: splitting every file's name list beats text scans

# BM25 column weights for symbols_fts(name, words, qualified, signature, docstring, path):
# a hit in the name says far more about a symbol than a hit in its docstring or path.
FTS_WEIGHTS = (10.0, 6.0, 4.0, 2.0, 1.0, 1.5)

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
CREATE VIRTUAL TABLE symbols_fts USING fts5(
    name, words, qualified, signature, docstring, path, tokenize='porter unicode61', detail=column);
-- each symbol as a reader sees it: its path and qualified name words, then its own body words
-- (identifiers, comments, strings): a channel of its own
CREATE VIRTUAL TABLE bodies_fts USING fts5(body, tokenize='porter unicode61', detail=none);
-- past commits (newest ones reachable from HEAD) and the (path, function name) pairs each changed
CREATE TABLE commits(id INTEGER PRIMARY KEY, sha TEXT UNIQUE NOT NULL, time INTEGER NOT NULL,
    author TEXT NOT NULL, subject TEXT NOT NULL, targets TEXT);
CREATE TABLE commit_files(commit_id INTEGER NOT NULL, path TEXT NOT NULL);
CREATE INDEX commit_files_path ON commit_files(path, commit_id);
CREATE VIRTUAL TABLE commits_fts USING fts5(message, tokenize='porter unicode61', detail=none);
"""

# Indexes by table. Filling an empty table and then indexing it is faster than both at once, so a
# cold build drops these and creates them again once the rows are in (see ``indexes_deferred``).
_INDEXES = {
    "symbols": {
        "symbols_file": "(file_id)",
        "symbols_short": "(short_name)",
        "symbols_short_lower": "(lower(short_name))",
        "symbols_properties": "(short_name) WHERE decorators LIKE '%property%'",
    },
    "edges": {"edges_src": "(src)", "edges_dst": "(dst)", "edges_file": "(file_id)"},
}


_SYMBOL_FIELDS = (  # the columns a Symbol is read from, in the order _symbol unpacks them
    "id",
    "path",
    "name",
    "kind",
    "language",
    "signature",
    "docstring",
    "start_line",
    "end_line",
    "size",
    "is_test",
    "is_test_case",
    "exported",
    "parent_id",
    "decorators",
)
_FILE_SIDE = frozenset({"path", "language"})  # the columns a symbol row takes from its file
_SYMBOL_COLUMNS = ", ".join(f"{'f' if c in _FILE_SIDE else 's'}.{c}" for c in _SYMBOL_FIELDS)


@dataclass(frozen=True, slots=True)
class PastCommit:
    """A remembered commit found by the similarity of its message, and its BM25 score."""

    sha: str
    time: int
    subject: str
    score: float


@dataclass(frozen=True, slots=True)
class FileCommits:
    """A file's newest remembered commit, and the number of remembered commits since a date."""

    sha: str
    time: int
    author: str
    subject: str
    recent: int


@dataclass(frozen=True, slots=True)
class FileRow:
    """What the index remembers about one file."""

    id: int
    path: str
    language: str
    hash: str
    size: int
    mtime_ns: int


_FILE_COLUMNS = ", ".join(f.name for f in fields(FileRow))  # in the order FileRow takes them
EdgeRow = tuple[int, int, str, str, float, int, int]  # an Edge's fields, then the file it was resolved from


@dataclass(frozen=True, slots=True)
class FileFacts:
    """The content facts of a file being (re-)indexed."""

    hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class EncodedRefs:
    """A file's references as stored: JSON rows, and the space-framed list of the names they use."""

    json: str
    names: str


def encode_refs(refs: Iterable[RawRef]) -> EncodedRefs:
    """The stored form of references (cheap to send from a worker process, unlike the tuples), with
    the names they use: each reference's own and the attributes its receiver reads (``hook`` of
    ``manager.hook.ping()``, whose call depends on how ``hook`` is typed)."""
    rows = list(refs)
    names = {r[1] for r in rows} | {a for r in rows for a in r[2].split(".")[1:] if a.isidentifier()}
    return EncodedRefs(json.dumps(rows), f" {' '.join(sorted(names))} ")


def index_path(root: Path) -> Path:
    """Where the index of the repository at ``root`` lives (see ``mnemo_core.statedir``)."""
    return state_dir(root, create=False) / DB_NAME


def prepare_index_dir(root: Path) -> Path:
    """The state directory of ``root``, created when missing."""
    return state_dir(root)


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError:
        return conn  # a corrupt file: the schema check reports it
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
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


def _open_checked(path: Path) -> tuple[sqlite3.Connection, int | None, str | None]:
    """Connect and read the schema version: None for a new file, -1 for a foreign one, -2 if damaged."""
    conn = _connect(path)
    try:
        return conn, _schema_version(conn), None
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


def _create_schema(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    for table in _INDEXES:
        _create_indexes(conn, table)
    conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    conn.execute("INSERT INTO meta VALUES ('index_id', ?)", (os.urandom(8).hex(),))


def _create_indexes(conn: sqlite3.Connection, table: str) -> None:
    for name, definition in _INDEXES[table].items():
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table}{definition}")


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

    def __init__(self, conn: sqlite3.Connection, path: Path, root: Path) -> None:
        self.conn = conn
        self.path = path
        self._root = root
        self.read_only = False  # opened read-only: it can answer, not be updated
        self._reads: _ReadMemo | None = None  # inside ``remembering``: symbols and edges read once
        self._next_id: int | None = None

    @property
    def root(self) -> Path:
        """The repository this index belongs to (the index lives in its state directory)."""
        return self._root

    @classmethod
    def open(cls, root: Path, create: bool = True) -> Store:
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
            conn, version, reason = _open_checked(path)
        except IndexReadOnly as exc:
            if not path.exists():
                raise
            log.info("%s; answering from it read-only", exc)
            return cls._open_read_only(path, root)
        if version == SCHEMA_VERSION:
            return cls(conn, path, root)
        if version is not None:
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
            conn = _connect(path)
        with _transaction(conn):
            if _schema_version(conn) is None:  # another process may have created it meanwhile
                _create_schema(conn)
        return cls(conn, path, root)

    @classmethod
    def _open_read_only(cls, path: Path, root: Path) -> Store:
        conn = _connect_read_only(path)
        try:
            version = _schema_version(conn)
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
        try:
            with _transaction(self.conn):
                yield
        finally:
            self._next_id = None
            if not durable:
                self.conn.execute("PRAGMA synchronous=NORMAL")

    @contextmanager
    def indexes_deferred(self, table: str) -> Iterator[None]:
        """Fill ``table`` and index it afterwards when it starts empty (faster than row by row)."""
        if self.conn.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:
            for name in _INDEXES[table]:
                self.conn.execute(f"DROP INDEX IF EXISTS {name}")
        yield
        _create_indexes(self.conn, table)

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
        """A counter bumped by every write, so readers can tell when cached graphs are stale."""
        return int(self.meta("generation") or 0)

    # -- files ------------------------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        """Every indexed file by path."""
        rows = self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files")
        return {f.path: f for f in (FileRow(*r) for r in rows)}

    def touch_file(self, file_id: int, facts: FileFacts) -> None:
        """Record a new size and mtime for a file whose content did not change."""
        self.conn.execute(
            "UPDATE files SET size=?, mtime_ns=? WHERE id=?", (facts.size, facts.mtime_ns, file_id)
        )

    def remove_files(self, file_ids: Sequence[int]) -> None:
        """Forget files, their symbols, references and every edge touching them."""
        for chunk in _chunks(file_ids):
            marks = ",".join("?" * len(chunk))
            ids = f"SELECT id FROM symbols WHERE file_id IN ({marks})"
            self.conn.execute(f"DELETE FROM edges WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM edges WHERE dst IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM symbols_fts WHERE rowid IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM bodies_fts WHERE rowid IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM symbols WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM files WHERE id IN ({marks})", chunk)

    def write_file(
        self, extract: FileExtract, facts: FileFacts, old: FileRow | None, refs: EncodedRefs | None = None
    ) -> tuple[int, set[str], set[int]]:
        """Store one file's extraction, reusing old symbol ids. Returns the file id, the short names
        whose definitions appeared or disappeared, and the files that had edges to removed symbols.
        ``refs``, when given, replaces ``extract.refs`` (encoded where the file was parsed)."""
        imports = json.dumps(extract.imports)  # NamedTuples encode as JSON arrays
        encoded = refs or encode_refs(extract.refs)
        exports = json.dumps(list(extract.exports)) if extract.exports is not None else None
        values = (
            extract.language,
            facts.hash,
            facts.size,
            facts.mtime_ns,
            extract.parse_errors,
            exports,
            imports,
            encoded.json,
            encoded.names,
        )
        if old is None:
            cur = self.conn.execute(
                "INSERT INTO files(language, hash, size, mtime_ns, parse_errors, exports, imports, refs,"
                " ref_names, path) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (*values, extract.path),
            )
            file_id = int(cur.lastrowid or 0)
        else:
            file_id = old.id
            self.conn.execute(
                "UPDATE files SET language=?, hash=?, size=?, mtime_ns=?, parse_errors=?, exports=?,"
                " imports=?, refs=?, ref_names=? WHERE id=?",
                (*values, file_id),
            )
        changed_names, dependents = self._write_symbols(file_id, extract, old is None)
        return file_id, changed_names, dependents - {file_id}

    def _write_symbols(self, file_id: int, extract: FileExtract, new: bool) -> tuple[set[str], set[int]]:
        """The short names whose definitions appeared or disappeared, with the attributes whose
        typing changed (and their classes: ``manager.hook.ping()`` reads ``hook`` of a ``Manager``),
        and the files that had edges to removed symbols."""
        before: set[str] = set()
        dependents: set[int] = set()
        fields_before = set() if new else self._typed_attributes(file_id)
        if new:  # file ids are never reused: a new file has no old symbols to match or delete
            ids = [self._allocate_id() for _ in extract.symbols]
        else:
            ids, before, dependents = self._reuse_ids(file_id, extract)
        self._insert_symbols(file_id, extract, ids)
        after = {s.name.rsplit(".", 1)[-1] for s in extract.symbols}
        fields_after = {(s.name, *f) for s in extract.symbols for f in s.fields}
        changed = fields_before ^ fields_after
        retyped = {n for cls, attr, *_ in changed for n in (cls.rsplit(".", 1)[-1], attr)}
        return (before ^ after) | retyped, dependents

    def _typed_attributes(self, file_id: int) -> set[tuple[str, ...]]:
        """(class, attribute, kind, text, scope) of each typed attribute of the file's classes."""
        rows = self.conn.execute(
            "SELECT name, fields FROM symbols WHERE file_id=? AND fields != ''", (file_id,)
        )
        return {(name, *f) for name, fields in rows for f in json.loads(fields)}

    def _reuse_ids(self, file_id: int, extract: FileExtract) -> tuple[list[int], set[str], set[int]]:
        """Ids for a re-parsed file's symbols (old ones where they match), after deleting the old rows;
        also the old short names and the files that had edges into removed symbols."""
        old = self.conn.execute(
            "SELECT id, name, kind FROM symbols WHERE file_id=? ORDER BY id", (file_id,)
        ).fetchall()
        old_ids = dict(
            zip(_ordinal_keys((name, kind) for _, name, kind in old), (row[0] for row in old), strict=True)
        )
        keys = _ordinal_keys((s.name, s.kind) for s in extract.symbols)
        new_keys = set(keys)
        ids = [old_ids.get(key) or self._allocate_id() for key in keys]
        dependents = self._delete_symbols([sid for key, sid in old_ids.items() if key not in new_keys])
        kept = [sid for key, sid in old_ids.items() if key in new_keys]
        for where, args in _id_filters("id", kept):
            self.conn.execute(f"DELETE FROM symbols {where}", args)
            self.conn.execute(f"DELETE FROM symbols_fts {where.replace('id', 'rowid', 1)}", args)
            self.conn.execute(f"DELETE FROM bodies_fts {where.replace('id', 'rowid', 1)}", args)
        return ids, {name.rsplit(".", 1)[-1] for (name, _kind, _n) in old_ids}, dependents

    def _insert_symbols(self, file_id: int, extract: FileExtract, ids: list[int]) -> None:
        by_name: dict[str, int] = {}
        rows, fts, bodies = [], [], []
        path_words = " ".join(identifier_words(extract.path))
        module_id = ids[0] if extract.symbols and extract.symbols[0].kind == "module" else None
        for sid, sym in zip(ids, extract.symbols, strict=True):
            parent_id = None
            if sym.kind != "module":
                parent_id = by_name.get(sym.name.rsplit(".", 1)[0]) if "." in sym.name else None
                parent_id = parent_id or module_id
                by_name.setdefault(sym.name, sid)
            rows.append((sid, *_symbol_row(sym, file_id, parent_id)))
            fts.append(
                (
                    sid,
                    sym.name.rsplit(".", 1)[-1],
                    sym.words,
                    sym.name,
                    sym.signature,
                    sym.docstring,
                    path_words,
                )
            )
            if sym.body:  # (a path or name word weighted up in a column of its own ranked no better)
                bodies.append((sid, f"{path_words} {sym.words} {sym.body}"))
        self.conn.executemany(_INSERT_SYMBOL, rows)
        self.conn.executemany(_INSERT_FTS, fts)
        self.conn.executemany("INSERT INTO bodies_fts(rowid, body) VALUES (?,?)", bodies)

    def _allocate_id(self) -> int:
        if self._next_id is None:
            self._next_id = int(self.conn.execute("SELECT coalesce(max(id), 0) FROM symbols").fetchone()[0])
        self._next_id += 1
        return self._next_id

    def _delete_symbols(self, ids: Sequence[int]) -> set[int]:
        """Delete symbols and their edges; return the files that had edges into them."""
        dependents: set[int] = set()
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT DISTINCT file_id FROM edges WHERE dst IN ({marks})", chunk)
            dependents.update(r[0] for r in rows)
            self.conn.execute(
                f"DELETE FROM edges WHERE dst IN ({marks}) OR src IN ({marks})", (*chunk, *chunk)
            )
            self.conn.execute(f"DELETE FROM symbols_fts WHERE rowid IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM bodies_fts WHERE rowid IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM symbols WHERE id IN ({marks})", chunk)
        return dependents

    def files_referencing(self, names: set[str], exclude: set[int]) -> set[int]:
        """Files (other than ``exclude``) with a reference to any of ``names``."""
        if len(names) > INSTR_SCAN_MAX_NAMES:  # many names: one pass over every file's name list
            rows = self.conn.execute("SELECT id, ref_names FROM files")
            return {
                fid for fid, listed in rows if fid not in exclude and not names.isdisjoint(listed.split())
            }
        result: set[int] = set()
        if names:
            where = " OR ".join("instr(ref_names, ?) > 0" for _ in names)
            result.update(
                r[0]
                for r in self.conn.execute(f"SELECT id FROM files WHERE {where}", [f" {n} " for n in names])
            )
        return result - exclude

    def files_with_edges_into(self, file_ids: Iterable[int]) -> set[int]:
        """Files whose resolved edges point into any of ``file_ids``."""
        result: set[int] = set()
        for chunk in _chunks(list(file_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT DISTINCT e.file_id FROM edges e JOIN symbols s ON s.id = e.dst"
                f" WHERE s.file_id IN ({marks})",
                chunk,
            )
            result.update(r[0] for r in rows)
        return result

    # -- resolver input and output ----------------------------------------------------------
    def resolver_files(self) -> list[tuple[int, str, str]]:
        """(id, path, language) of every file."""
        return list(self.conn.execute("SELECT id, path, language FROM files"))

    def imports_of(
        self, file_ids: Iterable[int] | None
    ) -> dict[int, tuple[list[RawImport], tuple[str, ...] | None]]:
        """The imports and declared exports of some files (all of them for None)."""
        out = {}
        for where, args in _id_filters("id", file_ids):
            for fid, imports, exports in self.conn.execute(
                f"SELECT id, imports, exports FROM files {where}", args
            ):
                parsed = [RawImport(*row) for row in json.loads(imports)]
                out[fid] = (parsed, tuple(json.loads(exports)) if exports else None)
        return out

    def resolver_symbols(self, file_ids: Iterable[int] | None) -> list[SymbolRow]:
        """The symbols of some files (all of them for None), in the shape the resolver needs."""
        out = []
        for where, args in _id_filters("file_id", file_ids):
            out.extend(
                _symbol_rows(self.conn.execute(f"SELECT {_RESOLVER_COLUMNS} FROM symbols {where}", args))
            )
        return out

    def symbol_files(self, symbol_ids: Iterable[int]) -> dict[int, int]:
        """The file of each symbol."""
        out: dict[int, int] = {}
        for where, args in _id_filters("id", symbol_ids):
            out.update(self.conn.execute(f"SELECT id, file_id FROM symbols {where}", args))
        return out

    def property_names(self) -> set[str]:
        """Short names of symbols decorated with ``property`` or ``cached_property``."""
        rows = self.conn.execute("SELECT DISTINCT short_name FROM symbols WHERE decorators LIKE '%property%'")
        return {r[0] for r in rows}

    def symbols_with_short_name(self, name: str) -> list[SymbolRow]:
        """Every symbol whose last name component is ``name``."""
        return _symbol_rows(
            self.conn.execute(f"SELECT {_RESOLVER_COLUMNS} FROM symbols WHERE short_name=?", (name,))
        )

    def bases_of(self, class_ids: Iterable[int] | None, exclude_files: set[int]) -> list[tuple[int, int]]:
        """Stored (class, base) pairs, leaving out those resolved from ``exclude_files``."""
        out: list[tuple[int, int]] = []
        for where, args in _id_filters("src", class_ids):
            clause = f"{where} AND type='inherits'" if where else "WHERE type='inherits'"
            rows = self.conn.execute(f"SELECT src, dst, file_id FROM edges {clause}", args)
            out.extend((src, dst) for src, dst, fid in rows if fid not in exclude_files)
        return out

    def refs_of(self, file_ids: Iterable[int]) -> dict[int, list[Any]]:
        """The unresolved references of some files, as ``RawRef``-shaped lists."""
        out: dict[int, list[Any]] = {}
        for where, args in _id_filters("id", file_ids):
            out.update(
                (fid, json.loads(refs))
                for fid, refs in self.conn.execute(f"SELECT id, refs FROM files {where}", args)
            )
        return out

    def files_subclassing(self, file_ids: Iterable[int]) -> set[int]:
        """Files with classes whose bases are defined in ``file_ids`` (their overrides may change)."""
        result: set[int] = set()
        for where, args in _id_filters("s.file_id", file_ids):
            rows = self.conn.execute(
                f"SELECT DISTINCT e.file_id FROM edges e JOIN symbols s ON s.id = e.dst {where}"
                " AND e.type='inherits'",
                args,
            )
            result.update(r[0] for r in rows)
        return result

    def replace_edges(self, file_ids: Iterable[int], edges: Iterable[EdgeRow]) -> None:
        """Swap the resolved edges of some files for new ones (consumed as they come)."""
        for where, args in _id_filters("file_id", list(file_ids)):
            self.conn.execute(f"DELETE FROM edges {where}", args)
        with self.indexes_deferred("edges"):
            self.conn.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?)", edges)

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
        self._reads = _ReadMemo()
        try:
            yield
        finally:
            self._reads = None

    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, Symbol]:
        """Symbols by id."""
        reads = self._reads
        if reads is None:
            return self._symbols_by_ids(ids)
        wanted = sorted(set(ids))  # the order SQLite gives them in
        missing = [i for i in wanted if i not in reads.symbols and i not in reads.absent]
        if missing:
            loaded = self._symbols_by_ids(missing)
            reads.symbols.update(loaded)
            reads.absent.update(i for i in missing if i not in loaded)
        return {i: reads.symbols[i] for i in wanted if i in reads.symbols}

    def _symbols_by_ids(self, ids: Iterable[int]) -> dict[int, Symbol]:
        out: dict[int, Symbol] = {}
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
                f" WHERE s.id IN ({marks})",
                chunk,
            )
            out.update((r[0], _symbol(r)) for r in rows)
        return out

    def symbols_by_keys(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Symbol]:
        """Symbols by (path, qualified name, kind); the first of duplicates wins."""
        out: dict[tuple[str, str, str], Symbol] = {}
        for path, name, kind in keys:
            row = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
                " WHERE f.path=? AND s.name=? AND s.kind=? ORDER BY s.id LIMIT 1",
                (path, name, kind),
            ).fetchone()
            if row is not None:
                out[(path, name, kind)] = _symbol(row)
        return out

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """The symbols of one file, in line order."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path=?"
            " ORDER BY s.start_line, s.end_line DESC",
            (path,),
        )
        return [_symbol(r) for r in rows]

    def product_symbols(self) -> list[Symbol]:
        """Every definition that is not test code (modules left out), by path and line."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.is_test = 0 AND s.kind != 'module' ORDER BY f.path, s.start_line"
        )
        return [_symbol(r) for r in rows]

    def module_of(self, path: str) -> Symbol | None:
        """The module symbol of one file (None for a file the index does not have)."""
        row = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.path=? AND s.kind='module'",
            (path,),
        ).fetchone()
        return _symbol(row) if row is not None else None

    def classes_holding(self, names: Iterable[str]) -> dict[str, set[int]]:
        """For each class name, the classes whose body binds an attribute to a class of that name
        (``code_generator_class = NativeCodeGenerator``, a dotted name by its last part)."""
        wanted = set(names)
        holding: dict[str, set[int]] = {}
        rows = self.conn.execute(
            "SELECT id, fields FROM symbols WHERE kind='class' AND fields LIKE '%\"alias\"%'"
        )
        for sid, held_fields in rows:
            for name, kind, text, _ in json.loads(held_fields):
                held = text.rsplit(".", 1)[-1]
                if kind == "alias" and held in wanted and name:
                    holding.setdefault(held, set()).add(sid)
        return holding

    def test_cases_under(self, directory: str) -> list[int]:
        """The test cases of the files in ``directory`` ("" for the whole repository) and below it."""
        prefix = f"{directory}/" if directory else ""
        rows = self.conn.execute(
            "SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.is_test_case AND substr(f.path, 1, ?) = ? ORDER BY s.id",
            (len(prefix), prefix),
        )
        return [r[0] for r in rows]

    def find_symbols(self, pattern: str, limit: int = 50) -> list[Symbol]:
        """Symbols whose qualified or short name matches a name or a glob (``*`` and ``?``), and
        modules whose dotted name or path does (``flask.app``, ``src/flask/app.py``, not ``app``):
        product code before tests, implementations before their ``@overload`` stubs, modules after
        what they define, then by place."""
        test = "GLOB" if any(c in pattern for c in "*?[") else "="
        named = f"s.name {test} ? OR s.short_name {test} ? OR f.path || ':' || s.name {test} ?"
        module = f"s.name {test} ? OR f.path {test} ?"
        where = f"((s.kind != 'module' AND ({named})) OR (s.kind = 'module' AND ({module})))"
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where}"
            " ORDER BY s.is_test, s.kind = 'module', s.decorators LIKE '%overload%', f.path, s.start_line"
            " LIMIT ?",
            (*[pattern] * 5, limit),
        )
        return [_symbol(r) for r in rows]

    def edges_touching(self, ids: Iterable[int], direction: str) -> list[Edge]:
        """Edges into (``direction='in'``) or out of (``'out'``) the given symbols."""
        reads = self._reads
        if reads is None:
            return self._edges_touching(ids, direction)
        known = reads.edges_in if direction == "in" else reads.edges_out
        wanted = sorted(set(ids))
        missing = [i for i in wanted if i not in known]
        if missing:
            for i in missing:
                known[i] = []
            for e in self._edges_touching(missing, direction):
                known[e.dst if direction == "in" else e.src].append(e)
        return [e for i in wanted for e in known[i]]

    def _edges_touching(self, ids: Iterable[int], direction: str) -> list[Edge]:
        column = "dst" if direction == "in" else "src"
        out: list[Edge] = []
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT src, dst, type, resolution, confidence, line FROM edges WHERE {column} IN ({marks})",
                chunk,
            )
            out.extend(Edge(*r) for r in rows)
        return out

    def all_edges(self) -> list[tuple[int, int, str, float]]:
        """Every edge as (src, dst, type, confidence); ``contains`` edges come from the symbol tree."""
        edges = list(self.conn.execute("SELECT src, dst, type, confidence FROM edges"))
        edges += self.conn.execute(
            "SELECT parent_id, id, 'contains', 1.0 FROM symbols WHERE parent_id IS NOT NULL"
        ).fetchall()
        return edges

    def fts_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25-ranked symbol ids for an FTS5 match expression over names, signatures, docstrings
        and paths (best first)."""
        weights = ",".join(str(w) for w in FTS_WEIGHTS)
        return self._bm25("symbols_fts", weights, match, limit)

    def body_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25-ranked symbol ids for an FTS5 match expression over body words (best first)."""
        return self._bm25("bodies_fts", "1.0", match, limit)

    def matched_terms(self, table: str, terms: Sequence[str], ids: Sequence[int]) -> dict[int, list[str]]:
        """Which of ``terms`` each of ``ids`` matches in a full-text table (``symbols_fts`` or
        ``bodies_fts``), asked of FTS5 itself so stemming agrees with the search."""
        if table not in ("symbols_fts", "bodies_fts"):
            raise ValueError(table)
        found: dict[int, list[str]] = {}
        marks = ",".join("?" * len(ids))
        for term in terms:
            rows = self.conn.execute(
                f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN ({marks})", (f'"{term}"', *ids)
            )
            for (sid,) in rows:
                found.setdefault(int(sid), []).append(term)
        return found

    def _bm25(self, table: str, weights: str, match: str, limit: int) -> list[tuple[int, float]]:
        try:
            rows = self.conn.execute(
                f"SELECT rowid, bm25({table}, {weights}) AS rank FROM {table} WHERE {table} MATCH ?"
                " ORDER BY rank, rowid LIMIT ?",
                (match, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), -float(r[1])) for r in rows]

    # -- history ----------------------------------------------------------------------------
    def add_commits(self, commits: Iterable[LoggedCommit]) -> None:
        """Remember past commits (oldest first, so ids grow with time)."""
        for commit in commits:
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO commits(sha, time, author, subject) VALUES (?,?,?,?)",
                (commit.sha, commit.time, commit.author, commit.subject),
            )
            if cur.rowcount:
                self.conn.execute(
                    "INSERT INTO commits_fts(rowid, message) VALUES (?,?)", (cur.lastrowid, commit.message)
                )
                self.conn.executemany(
                    "INSERT INTO commit_files VALUES (?,?)", [(cur.lastrowid, path) for path in commit.paths]
                )

    def forget_commits(self, keep: int | None = None) -> None:
        """Forget every remembered commit but the newest ``keep`` (all of them for None)."""
        newest = f"SELECT id FROM commits ORDER BY time DESC, id DESC LIMIT {int(keep or 0)}"
        where = "" if keep is None else f"WHERE id NOT IN ({newest})"
        for table, column in (("commits_fts", "rowid"), ("commit_files", "commit_id")):
            self.conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT id FROM commits {where})")
        self.conn.execute(f"DELETE FROM commits {where}")

    def similar_commits(self, match: str, limit: int) -> list[PastCommit]:
        """Remembered commits whose messages match an FTS5 expression, best BM25 first."""
        hits = self._bm25("commits_fts", "1.0", match, limit)
        marks = ",".join("?" * len(hits))
        found = {
            commit: (sha, time, subject)
            for commit, sha, time, subject in self.conn.execute(
                f"SELECT id, sha, time, subject FROM commits WHERE id IN ({marks})",
                [c for c, _ in hits],
            )
        }
        return [PastCommit(*found[c], score) for c, score in hits if c in found]

    def commit_targets(self, shas: Sequence[str]) -> dict[str, tuple[tuple[str, str], ...]]:
        """The functions each remembered commit changed, where they were asked before."""
        marks = ",".join("?" * len(shas))
        rows = self.conn.execute(
            f"SELECT sha, targets FROM commits WHERE targets IS NOT NULL AND sha IN ({marks})", list(shas)
        )
        return {sha: tuple((p, n) for p, n in json.loads(targets)) for sha, targets in rows}

    def save_commit_targets(self, found: dict[str, tuple[tuple[str, str], ...]]) -> None:
        """Remember what ``commit_targets`` did not know, if the index can be written right now: a
        cache, so a busy or read-only index just goes without."""
        if self.read_only or not found:
            return
        try:
            self.conn.execute("PRAGMA busy_timeout=0")
            with _transaction(self.conn):
                self.conn.executemany(
                    "UPDATE commits SET targets=? WHERE sha=?",
                    [(json.dumps(t), sha) for sha, t in found.items()],
                )
        except sqlite3.Error as exc:
            log.info("commit targets not cached: %s", exc)
        finally:
            self.conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")

    def file_commits(self, paths: Iterable[str], since: int) -> dict[str, FileCommits]:
        """Per path, its newest remembered commit and how many remembered commits touched it
        since ``since`` (Unix seconds)."""
        out: dict[str, FileCommits] = {}
        for chunk in _chunks(list(dict.fromkeys(paths))):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT cf.path, c.sha, c.time, c.author, c.subject,"
                " (SELECT count(*) FROM commit_files x JOIN commits y ON y.id = x.commit_id"
                "  WHERE x.path = cf.path AND y.time >= ?)"
                f" FROM commit_files cf JOIN commits c ON c.id = cf.commit_id WHERE cf.path IN ({marks})"
                " AND c.id = (SELECT max(commit_id) FROM commit_files WHERE path = cf.path)",
                (since, *chunk),
            )
            out.update(
                (path, FileCommits(sha, int(time), author, subject, int(recent)))
                for path, sha, time, author, subject, recent in rows
            )
        return out

    def newest_commit_time(self) -> int | None:
        """The author time of the newest remembered commit."""
        row = self.conn.execute("SELECT max(time) FROM commits").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def symbols_at(self, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
        """Symbol ids by (path, short name)."""
        wanted = set(targets)
        out: dict[tuple[str, str], list[int]] = {}
        for chunk in _chunks(list({p for p, _ in wanted})):
            rows = self.conn.execute(
                "SELECT s.id, f.path, s.short_name FROM symbols s JOIN files f ON f.id = s.file_id"
                f" WHERE f.path IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for sid, path, name in rows:
                if (path, name) in wanted:
                    out.setdefault((path, name), []).append(int(sid))
        return out

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

    def symbols_named(
        self, names: Iterable[str], prefix: bool = False, limit: int = 50
    ) -> dict[str, list[Symbol]]:
        """Symbols by case-insensitive short name (or name prefix), best candidates first."""
        out: dict[str, list[Symbol]] = {}
        for name in names:
            lower = name.lower()
            args: tuple[str, ...]
            if prefix:
                where, args = (
                    "lower(s.short_name) >= ? AND lower(s.short_name) < ? AND lower(s.short_name) != ?",
                    (lower, lower + "\uffff", lower),
                )
            else:
                where, args = "lower(s.short_name) = ?", (lower,)
            rows = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where}"
                " AND s.kind != 'module'"
                " ORDER BY s.is_test, length(s.short_name), f.path, s.start_line LIMIT ?",
                (*args, limit),
            )
            out[name] = [_symbol(r) for r in rows]
        return out

    def symbols_containing(self, fragment: str, limit: int) -> list[Symbol]:
        """Symbols whose short name contains ``fragment`` (case-insensitive), shortest names first."""
        pattern = fragment.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE lower(s.short_name) LIKE ? ESCAPE '\\' AND lower(s.short_name) != ?"
            " AND s.kind != 'module'"
            " ORDER BY s.is_test, length(s.short_name), f.path, s.start_line LIMIT ?",
            (f"%{pattern}%", fragment.lower(), limit),
        )
        return [_symbol(r) for r in rows]

    def namesakes(self, symbol_id: int) -> list[int]:
        """The definitions that share a symbol's file, qualified name and kind, itself included, in
        id order (a property's getter and setter, a function's ``@overload`` stubs)."""
        rows = self.conn.execute(
            "SELECT b.id FROM symbols a JOIN symbols b"
            " ON b.file_id = a.file_id AND b.name = a.name AND b.kind = a.kind WHERE a.id = ? ORDER BY b.id",
            (symbol_id,),
        )
        return [r[0] for r in rows] or [symbol_id]

    def symbols_with_qualified_name(self, qualified: str) -> list[Symbol]:
        """Symbols whose qualified name is ``qualified`` or ends with ``.qualified``."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE (s.name = ? OR s.name LIKE ?) AND s.kind != 'module' ORDER BY s.is_test, f.path LIMIT 20",
            (qualified, "%." + qualified),
        )
        return [_symbol(r) for r in rows]

    def file_paths(self) -> list[tuple[int, str]]:
        """(id, path) of every file."""
        return list(self.conn.execute("SELECT id, path FROM files ORDER BY path"))

    def file_symbols_by_fan_in(self, file_id: int, limit: int) -> list[Symbol]:
        """A file's symbols, the most called first."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.file_id = ? AND s.kind != 'module'"
            " ORDER BY (SELECT count(*) FROM edges e WHERE e.dst = s.id AND e.type = 'calls') DESC,"
            " s.start_line LIMIT ?",
            (file_id, limit),
        )
        return [_symbol(r) for r in rows]

    def children_of(self, ids: Iterable[int]) -> dict[int, list[Symbol]]:
        """Direct members of some symbols, in line order."""
        out: dict[int, list[Symbol]] = {}
        for where, args in _id_filters("s.parent_id", list(ids)):
            rows = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id {where}"
                " ORDER BY s.start_line",
                args,
            )
            for r in rows:
                symbol = _symbol(r)
                out.setdefault(symbol.parent_id or 0, []).append(symbol)
        return out

    def fan_in(self, ids: Iterable[int]) -> dict[int, int]:
        """How many distinct callers each symbol has."""
        out: dict[int, int] = {}
        for where, args in _id_filters("dst", list(ids)):
            clause = f"{where} AND type='calls'"
            out.update(
                self.conn.execute(f"SELECT dst, count(DISTINCT src) FROM edges {clause} GROUP BY dst", args)
            )
        return out

    def totals(self) -> tuple[int, int, int]:
        """(files, symbols, edges) in the index, ``contains`` edges included."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM symbols),"
            " (SELECT count(*) FROM edges) + (SELECT count(*) FROM symbols WHERE parent_id IS NOT NULL)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def counts(self) -> dict[str, dict[str, int]]:
        """Files by language, symbols by kind, edges by type and by resolution."""
        queries = {
            "files": "SELECT language, count(*) FROM files GROUP BY language",
            "symbols": "SELECT kind, count(*) FROM symbols GROUP BY kind",
            "edges": "SELECT type, count(*) FROM edges GROUP BY type"
            " UNION ALL SELECT 'contains', count(*) FROM symbols WHERE parent_id IS NOT NULL",
            "resolution": "SELECT resolution, count(*) FROM edges GROUP BY resolution"
            " UNION ALL SELECT 'structure', count(*) FROM symbols WHERE parent_id IS NOT NULL",
        }
        return {key: dict(self.conn.execute(sql).fetchall()) for key, sql in queries.items()}


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if is_read_only(exc):
            raise IndexReadOnly(
                f"the index cannot be written ({exc}); check the free space and permissions of its directory"
            ) from exc
        raise MnemoError(
            f"the index is locked by another process ({exc}); try again when it finishes"
        ) from exc
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


_INSERT_FTS = (
    "INSERT INTO symbols_fts(rowid, name, words, qualified, signature, docstring, path)"
    " VALUES (?,?,?,?,?,?,?)"
)
_INSERT_SYMBOL = (
    "INSERT INTO symbols(id, file_id, name, short_name, kind, signature, docstring, start_line, end_line,"
    " size, is_test, is_test_case, exported, parent_id, params, decorators, returns, supers, fields)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
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
        file_id,
        sym.name,
        sym.name.rsplit(".", 1)[-1],
        sym.kind,
        sym.signature,
        sym.docstring,
        sym.start_line,
        sym.end_line,
        sym.size,
        int(sym.is_test),
        int(sym.is_test_case),
        int(sym.exported),
        parent_id,
        " ".join(sym.params),
        "\n".join(sym.decorators),
        sym.returns,
        " ".join(sym.supers),
        json.dumps(sym.fields) if sym.fields else "",
    )


def _symbol(row: Sequence[Any]) -> Symbol:
    """A row of ``SELECT {_SYMBOL_COLUMNS}`` as a Symbol."""
    (
        symbol_id,
        path,
        name,
        kind,
        language,
        signature,
        docstring,
        start_line,
        end_line,
        size,
        is_test,
        is_test_case,
        exported,
        parent_id,
        decorators,
    ) = row
    return Symbol(
        id=int(symbol_id),
        path=str(path),
        name=str(name),
        kind=cast(SymbolKind, kind),  # written by the indexer from the vocabulary
        language=str(language),
        signature=str(signature),
        docstring=str(docstring),
        start_line=int(start_line),
        end_line=int(end_line),
        size=int(size),
        is_test=bool(is_test),
        is_test_case=bool(is_test_case),
        exported=bool(exported),
        parent_id=int(parent_id) if parent_id is not None else None,
        decorators=tuple(str(decorators).split("\n")) if decorators else (),
    )


_RESOLVER_FIELDS = (  # the columns a SymbolRow is read from, in the order _symbol_rows unpacks them
    "id",
    "file_id",
    "name",
    "kind",
    "parent_id",
    "is_test",
    "is_test_case",
    "params",
    "decorators",
    "returns",
    "supers",
    "fields",
    "start_line",
    "end_line",
)
_RESOLVER_COLUMNS = ", ".join(_RESOLVER_FIELDS)


def _symbol_rows(rows: Iterable[Sequence[Any]]) -> list[SymbolRow]:
    """Rows of ``SELECT {_RESOLVER_COLUMNS}`` as SymbolRows."""
    return [
        SymbolRow(
            symbol_id,
            file_id,
            name,
            kind,
            parent_id,
            bool(is_test),
            bool(is_test_case),
            tuple(params.split()) if params else (),
            tuple(decorators.split("\n")) if decorators else (),
            returns,
            tuple(supers.split()) if supers else (),
            tuple(Field(*f) for f in json.loads(fields)) if fields else (),
            start_line,
            end_line,
        )
        for (
            symbol_id,
            file_id,
            name,
            kind,
            parent_id,
            is_test,
            is_test_case,
            params,
            decorators,
            returns,
            supers,
            fields,
            start_line,
            end_line,
        ) in rows
    ]


def _id_filters(column: str, ids: Iterable[int] | None) -> Iterator[tuple[str, list[object]]]:
    """``WHERE column IN (...)`` clauses in chunks; one empty clause for "all rows"."""
    if ids is None:
        yield "", []
        return
    for chunk in _chunks(list(ids)):
        yield f"WHERE {column} IN ({','.join('?' * len(chunk))})", chunk


@dataclass
class _ReadMemo:
    """What ``Store.remembering`` has read: symbols (and ids that are none), edges by endpoint."""

    symbols: dict[int, Symbol] = field(default_factory=dict)
    absent: set[int] = field(default_factory=set)
    edges_in: dict[int, list[Edge]] = field(default_factory=dict)
    edges_out: dict[int, list[Edge]] = field(default_factory=dict)


def _chunks(items: Sequence[object] | list[object], size: int = 500) -> Iterator[list[object]]:
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]


def db_size(path: Path) -> int:
    """Bytes on disk of the database and its WAL."""
    return sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))
