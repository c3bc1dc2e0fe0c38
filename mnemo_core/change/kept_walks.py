"""Walks to tests kept across processes and index generations, each with what it read.

The tests of a symbol (``impact.tests_reaching``) and its sure tests (``sure_tests_reaching``) are
the walks a change's answer spends most of its time in, and an edit somewhere else leaves most of
them as they were: an edit bumps the index's generation, but the tests of a symbol whose walk read
nothing the edit rewrote are the same. So each walk is made through a :class:`Recording` of the
store, which notes what it reads:

- the symbols it reads by id, by file or by parent, and the edges it reads by symbol: the ids it
  asked about or was given (every symbol of an edge included) and the files all of them live in;
- the reads by name or by directory (the classes holding a name, the symbols of a short name, the
  test cases under a directory), with their results.

A kept walk is used at a later generation when nothing it read can have changed: none of the files
the index rewrote since (``index.changelog``) is one it read; none of their symbols is one it asked
about or a child of one; none of their edges touches one; and every read by name or directory
answers the same now. A read the recording does not know makes the walk unkept. The walk is
made in a namespace of its own (its own generation, as the readers' caches see it), so nothing
it uses was read by another walk, whose reads it would not have noted; the cost is that walks
made in one process share fewer of their steps. The source lines the readers take from the
files (call sites, test sources) belong to symbols the walk read, so their files are among those
noted, and a file whose content changed is one the index rewrote.

The entries live in one SQLite file in mnemo's state directory (``KEPT`` at most, the oldest
written going first), keyed by the index's id, the kind of walk and the symbol, and used only
under the code that made them (``answers.code_digest``). Trouble with the file only costs speed.
"""

from __future__ import annotations

import itertools
import json
import logging
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from mnemo_core.change.answers import code_digest
from mnemo_core.change.assumptions import Assumption
from mnemo_core.errors import MnemoError
from mnemo_core.index.changelog import changed_since
from mnemo_core.index.store import Store
from mnemo_core.model import Edge, Symbol
from mnemo_core.statedir import own_database

log = logging.getLogger(__name__)

FILE_NAME = "walks.db"
FORMAT = 1  # the file's layout (its user_version): a file of another is started over
KEPT = 20_000  # walks kept: every changed symbol of a few hundred changes
COMPRESSION = 1  # zlib's fastest level
BUSY_TIMEOUT_S = 2.0  # another process writing: wait this long, then only lose the speed
_CHUNK = 500  # keys per query: under SQLite's bound on parameters
_NAMESPACES = itertools.count(1)  # each recorded walk's own generation, as readers' caches see it

T = TypeVar("T")


@dataclass
class Footprint:
    """What the walks of a batch read, in the order they first read it: symbols by id (asked or
    given), files read by path, reads by name or directory with their answers; whether it read
    anything else, and from which symbol on (``unknown``)."""

    ids: dict[int, None] = field(default_factory=dict)  # an ordered set: a walk is a prefix of it
    inward: dict[int, None] = field(default_factory=dict)  # the symbols whose edges in were read
    paths: dict[str, None] = field(default_factory=dict)
    replays: list[tuple[str, Any, Any]] = field(default_factory=list)
    unknown: bool = False


Mark = tuple[int, int, int, int]  # how much of a batch's footprint the walks up to one had read


class Recording:
    """The store as the walks of one process over one generation see it (a batch): every read
    answered by ``store`` and noted; its own generation (a namespace for the readers' caches,
    which key by generation: what a walk takes from them was read by this batch, so it is noted
    here, before the walk's mark)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._namespace = -next(_NAMESPACES)  # never a real generation (those count up from 0)
        self.footprint = Footprint()
        self.batch: int | None = None  # its row among the kept batches, once kept
        self._where: dict[int, str] = {}  # the file of each symbol read
        self._written = (0, 0, 0, 0)  # how much of the footprint is kept already

    def unwritten(self) -> dict[str, list[Any]]:
        """What the batch read since it was last kept, each symbol with its file."""
        f = self.footprint
        ids, inward, paths, replays = self._written
        new = list(f.ids)[ids:]
        unknown = [i for i in new if i not in self._where]
        if unknown:  # the far ends of edges, read by no walk
            self._where.update((i, s.path) for i, s in self._store.symbols_by_ids(unknown).items())
        return {
            "ids": [[i, self._where.get(i)] for i in new],
            "inward": list(f.inward)[inward:],
            "paths": list(f.paths)[paths:],
            "replays": f.replays[replays:],
        }

    def written(self) -> None:
        """Note that the footprint so far is kept."""
        f = self.footprint
        self._written = (len(f.ids), len(f.inward), len(f.paths), len(f.replays))

    def mark(self) -> Mark | None:
        """How much has been read so far (None once something unknown was read)."""
        f = self.footprint
        return None if f.unknown else (len(f.ids), len(f.inward), len(f.paths), len(f.replays))

    @property
    def path(self) -> Path:
        return self._store.path

    @property
    def root(self) -> Path:
        return self._store.root

    def generation(self) -> int:
        return self._namespace

    def remembering(self) -> AbstractContextManager[None]:
        return self._store.remembering()

    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, Symbol]:
        asked = list(ids)
        found = self._store.symbols_by_ids(asked)
        self._symbols(asked, found.values())
        return found

    def edges_touching(self, ids: Iterable[int], direction: str) -> list[Edge]:
        asked = list(ids)
        found = self._store.edges_touching(asked, direction)
        noted = self.footprint.ids
        noted.update(dict.fromkeys(asked))
        noted.update(dict.fromkeys(i for e in found for i in (e.src, e.dst)))
        if direction == "in":
            self.footprint.inward.update(dict.fromkeys(asked))
        return found

    def children_of(self, ids: Iterable[int]) -> dict[int, list[Symbol]]:
        asked = list(ids)
        found = self._store.children_of(asked)
        self._symbols(asked, (s for members in found.values() for s in members))
        return found

    def symbols_in_file(self, path: str) -> list[Symbol]:
        found = self._store.symbols_in_file(path)
        self.footprint.paths[path] = None
        self._symbols((), found)
        return found

    def module_of(self, path: str) -> Symbol | None:
        found = self._store.module_of(path)
        self.footprint.paths[path] = None
        self._symbols((), [found] if found else [])
        return found

    def test_cases_under(self, directory: str) -> list[int]:
        found = self._replayed("test_cases_under", directory, self._store.test_cases_under)
        self.footprint.ids.update(dict.fromkeys(found))
        return found

    def classes_holding(self, names: Iterable[str]) -> dict[str, set[int]]:
        asked = sorted(set(names))
        found = self._replayed("classes_holding", asked, self._store.classes_holding)
        self.footprint.ids.update(dict.fromkeys(i for ids in found.values() for i in sorted(ids)))
        return found

    def symbol_ids_by_short_names(self, names: Iterable[str]) -> dict[str, list[int]]:
        asked = sorted(set(names))
        found = self._replayed("symbol_ids_by_short_names", asked, self._store.symbol_ids_by_short_names)
        self.footprint.ids.update(dict.fromkeys(i for ids in found.values() for i in ids))
        return found

    def __getattr__(self, name: str) -> Any:
        self.footprint.unknown = True  # a read this recording cannot vouch for: no later walk is kept
        return getattr(self._store, name)

    def _symbols(self, asked: Iterable[int], found: Iterable[Symbol]) -> None:
        noted = self.footprint.ids
        noted.update(dict.fromkeys(asked))
        for s in found:
            noted[s.id] = None
            self._where[s.id] = s.path
            self.footprint.paths[s.path] = None

    def _replayed(self, method: str, argument: Any, read: Callable[[Any], T]) -> T:
        found = read(argument)
        self.footprint.replays.append((method, argument, _plain(found)))
        return found

    def as_store(self) -> Store:
        """This recording where a walk takes a store (it answers every read a walk makes)."""
        return cast(Store, self)


def _plain(value: Any) -> Any:
    """A read's answer as JSON keeps it (sets sorted), to compare with a replay."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return value


# -- the kept walks ------------------------------------------------------------------------------


@dataclass
class _Changes:
    """What the index rewrote since a generation, as the checks read it."""

    paths: frozenset[str]
    ids: frozenset[int]  # the current symbols of those files and their parents
    led_to: frozenset[int]  # where the edges out of those symbols lead (each may be new)


class KeptWalks:
    """The walks of one index kept on disk, for one kind of walk (``kind``)."""

    def __init__(self, store: Store, kind: str) -> None:
        self._store = store
        self._kind = kind
        self._database = _database(store)
        self._changes: dict[int, _Changes | None] = {}
        self._code = code_digest()

    def read(self, ids: Iterable[int], decode: Callable[[Any], T]) -> dict[int, T]:
        """The kept walks of ``ids`` that are still true."""
        if self._database is None or not self._database.is_file():
            return {}
        keys = {self._key(sid): sid for sid in ids}
        found: dict[int, T] = {}
        try:
            with closing(sqlite3.connect(self._database, timeout=BUSY_TIMEOUT_S)) as db:
                if db.execute("PRAGMA user_version").fetchone()[0] != FORMAT:
                    return {}
                rows = _selected(db, _WALKS, "key", list(keys))
                wanted = sorted({r[1] for r in rows})
                batches = {
                    b: int(g) for b, g, code in _selected(db, _BATCHES, "id", wanted) if code == self._code
                }
                noted: dict[int, dict[str, list[Any]]] = {b: _empty() for b in batches}
                for b, data in _selected(db, _SEGMENTS, "batch", sorted(batches), "ORDER BY rowid"):
                    for part, items in json.loads(zlib.decompress(data)).items():
                        noted[b][part] += items
            reach = {b: self._still_true(batches[b], noted[b]) for b in batches}
            for key, batch, ids_n, inward_n, paths_n, replays_n, answer in rows:
                until = reach.get(batch)
                if until is not None and all(
                    m <= u for m, u in zip((ids_n, inward_n, paths_n, replays_n), until, strict=True)
                ):
                    found[keys[key]] = decode(json.loads(zlib.decompress(answer)))
        except (sqlite3.Error, zlib.error, ValueError, TypeError, KeyError) as exc:
            log.info("kept walks not read: %s", exc)
            return {}
        return found

    def keep(self, recording: Recording, made: Mapping[int, tuple[Mark, Any]]) -> None:
        """Keep the walks of a batch (symbol -> how much of ``recording`` it had read, its answer as
        JSON keeps it), and what the batch read since it was last kept (a segment of its
        footprint: the walks' marks count from its start)."""
        if self._database is None or not made:
            return
        segment = recording.unwritten()
        try:
            with closing(sqlite3.connect(self._database, timeout=BUSY_TIMEOUT_S)) as db, db:
                if db.execute("PRAGMA user_version").fetchone()[0] != FORMAT:  # another layout: start over
                    for table in ("walks", "segments", "batches"):
                        db.execute(f"DROP TABLE IF EXISTS {table}")
                    db.execute(f"PRAGMA user_version = {FORMAT}")
                for table in _TABLES:
                    db.execute(table)
                if recording.batch is None:  # ids are never reused: no other process's walks point here
                    recording.batch = db.execute(
                        "INSERT INTO batches(generation, code) VALUES (?, ?)",
                        (self._store.generation(), self._code),
                    ).lastrowid
                db.execute("INSERT INTO segments VALUES (?, ?)", (recording.batch, _packed(segment)))
                rows = [
                    (self._key(sid), recording.batch, *mark, _packed(answer))
                    for sid, (mark, answer) in made.items()
                ]
                db.executemany("INSERT OR REPLACE INTO walks VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
                db.execute(f"DELETE FROM walks WHERE rowid <= (SELECT max(rowid) FROM walks) - {KEPT}")
                db.execute("DELETE FROM batches WHERE id NOT IN (SELECT batch FROM walks)")
                db.execute("DELETE FROM segments WHERE batch NOT IN (SELECT id FROM batches)")
            recording.written()
        except sqlite3.Error as exc:
            log.info("walks not kept: %s", exc)

    def _key(self, sid: int) -> str:
        return f"{FORMAT}:{self._store.index_id()}:{self._kind}:{sid}"

    def _still_true(self, generation: int, noted: dict[str, Any]) -> Mark | None:
        """How much of a batch's footprint (made at ``generation``) reads the same now: the walks
        that read no more than that are still true (None: none is)."""
        changes = self._changes_since(generation)
        if changes is None:
            return None
        ids, inward, paths, replays = noted["ids"], noted["inward"], noted["paths"], noted["replays"]
        if not changes.paths:
            return (len(ids), len(inward), len(paths), len(replays))
        replayed = (_plain(_REPLAYS[m](self._store, arg)) == kept for m, arg, kept in replays)
        return (
            _first(((i in changes.ids or path in changes.paths) for i, path in ids), len(ids)),
            _first((i in changes.led_to for i in inward), len(inward)),
            _first((path in changes.paths for path in paths), len(paths)),
            _first((not same for same in replayed), len(replays)),
        )

    def _changes_since(self, generation: int) -> _Changes | None:
        if generation not in self._changes:
            paths = changed_since(self._store, generation)
            self._changes[generation] = None if paths is None else _changes(self._store, paths)
        return self._changes[generation]


_TABLES = (
    "CREATE TABLE IF NOT EXISTS batches(id INTEGER PRIMARY KEY AUTOINCREMENT, generation INTEGER NOT NULL,"
    " code TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS segments(batch INTEGER NOT NULL, data BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS segments_batch ON segments(batch)",
    "CREATE TABLE IF NOT EXISTS walks(key TEXT PRIMARY KEY, batch INTEGER NOT NULL, ids INTEGER NOT NULL,"
    " inward INTEGER NOT NULL, paths INTEGER NOT NULL, replays INTEGER NOT NULL, answer BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS walks_batch ON walks(batch)",
)


_WALKS = "SELECT key, batch, ids, inward, paths, replays, answer FROM walks"
_BATCHES = "SELECT id, generation, code FROM batches"
_SEGMENTS = "SELECT batch, data FROM segments"  # read in the order they were written (rowid)


def _empty() -> dict[str, list[Any]]:
    return {"ids": [], "inward": [], "paths": [], "replays": []}


def _packed(value: Any) -> bytes:
    return zlib.compress(json.dumps(value).encode("utf-8", "surrogateescape"), COMPRESSION)


def _first(conflicts: Iterable[bool], count: int) -> int:
    """The index of the first conflict (``count`` when there is none)."""
    return next((n for n, conflict in enumerate(conflicts) if conflict), count)


def _selected(
    db: sqlite3.Connection, query: str, column: str, values: list[Any], order: str = ""
) -> list[Any]:
    """The rows of ``query`` whose ``column`` is one of ``values`` (in chunks, each ``order``ed)."""
    rows: list[Any] = []
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows += db.execute(f"{query} WHERE {column} IN ({marks}) {order}", chunk).fetchall()
    return rows


def _changes(store: Store, paths: frozenset[str]) -> _Changes:
    """What a walk cannot have read as it is now: the symbols of the rewritten files (a new one may
    hold an id a walk asked about), and the edges into the symbols theirs lead to (resolved again,
    an edge out of them may be new; an edge from a file not rewritten is the same edge)."""
    symbols = [s for path in sorted(paths) for s in store.symbols_in_file(path)]
    own = [s.id for s in symbols]
    ids = {*own, *(s.parent_id for s in symbols if s.parent_id is not None)}
    return _Changes(paths, frozenset(ids), frozenset(e.dst for e in store.edges_touching(own, "out")))


_REPLAYS: dict[str, Callable[[Store, Any], Any]] = {
    "test_cases_under": lambda store, arg: store.test_cases_under(arg),
    "classes_holding": lambda store, arg: store.classes_holding(arg),
    "symbol_ids_by_short_names": lambda store, arg: store.symbol_ids_by_short_names(arg),
}


def _database(store: Store) -> Path | None:
    """The file of kept walks, beside the index (in mnemo's state directory)."""
    try:
        return own_database(store.path.parent / FILE_NAME)
    except MnemoError as exc:
        log.info("walks are not kept: %s", exc)
        return None


# -- answers as JSON keeps them --------------------------------------------------------------------


def plain_reaches(reaches: Mapping[int, Any]) -> list[list[Any]]:
    """A walk's ``{test: Reach}`` in order, each ``Reach`` as its fields (assumptions as theirs)."""
    return [[sid, _plain_reach(r)] for sid, r in reaches.items()]


def _plain_reach(r: Any) -> list[Any]:
    return [
        r.symbol_id,
        r.depth,
        r.weight,
        list(r.path),
        list(r.labels),
        r.name_matches,
        sorted([a.kind, a.symbol, list(a.words)] for a in r.assumes),
        r.receiver,
        r.confidence,
        r.resolution,
        list(r.runs),
    ]


def reaches_of(raw: list[list[Any]], make: Callable[..., T]) -> dict[int, T]:
    """``plain_reaches``' inverse, each made by ``make`` (``Reach``) from its fields."""
    found: dict[int, T] = {}
    for sid, (symbol_id, depth, weight, path, labels, matches, assumes, receiver, conf, how, runs) in raw:
        kept = frozenset(_assumption(kind, symbol, words) for kind, symbol, words in assumes)
        found[sid] = make(
            symbol_id,
            depth,
            weight,
            tuple(path),
            tuple(labels),
            matches,
            kept,
            receiver,
            conf,
            how,
            tuple(runs),
        )
    return found


def _assumption(kind: Any, symbol: int, words: list[str]) -> Assumption:
    return Assumption(kind, symbol, tuple(words))
