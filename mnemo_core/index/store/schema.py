"""The index file: its tables and indexes, its version, and opening a connection to it (a file
of another version or a damaged one is reported, for ``Connection.open`` to rebuild)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.recovery import (
    IndexReadOnly,
    is_read_only,
)
from mnemo_core.statedir import state_dir

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
INDEXES = {
    "symbols": {
        "symbols_file": "(file_id)",
        "symbols_short": "(short_name)",
        "symbols_short_lower": "(lower(short_name))",
        "symbols_properties": "(short_name) WHERE decorators LIKE '%property%'",
    },
    "edges": {"edges_src": "(src)", "edges_dst": "(dst)", "edges_file": "(file_id)"},
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


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
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
