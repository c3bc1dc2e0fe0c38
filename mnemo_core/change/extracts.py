"""The diff's extractions kept by content, across processes.

A change's changed symbols come from extracting both sides of every changed file (``diffmap``):
for a range such as saleor's ``HEAD~5..HEAD`` that is 76 blobs, 1.3 MB of source, about half a
second of CPU, paid again by every question after the index moved (an edit bumps its generation,
so a kept answer no longer applies) although the blobs are the same. An extraction is a function
of the file's path, its bytes, its language, the repository's pytest settings and mnemo's code, so
those are the key (the bytes by their BLAKE2 digest, the code by ``answers.code_digest``), and an
entry can never be stale: it is used only for the same bytes under the same code and settings.

A side the index holds as it is (the same path, language and BLAKE2 digest of the bytes: the head
side of a range that ends at a clean HEAD, nearly always) is read from the index instead, a sixth of
an extraction's cost: the symbols the diff reads (names, kinds, lines, signatures, test flags,
exports, in source order) and the imports are what the index stored from the same bytes, by the
same extraction, under the settings the question's freshness check left it at (a file the index
holds only in part is extracted). Those are not kept (the index has them).

What must be extracted is shared with a forked child on the second core where one can be forked
(``beside``): 28 blobs on saleor's ``HEAD~5``, each an independent tree-sitter parse and query.

The entries live in one SQLite file in mnemo's state directory (only when the repository has one,
as with kept blames), each the extraction as compressed JSON, at most ``KEPT`` of them (the oldest
written go first). Trouble with the file only costs speed: it is logged, never raised.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from pathlib import Path

from mnemo_core.change.answers import code_digest
from mnemo_core.change.beside import Beside
from mnemo_core.errors import MnemoError
from mnemo_core.index.discovery import PytestDiscovery
from mnemo_core.index.extract import extract_once
from mnemo_core.index.files import content_digest
from mnemo_core.index.indexer import partial_files
from mnemo_core.index.languages import LanguageSpec
from mnemo_core.index.store import Store
from mnemo_core.index.store.shelf import raw_symbol
from mnemo_core.model import FileExtract, RawImport, RawRef, RawSymbol, Symbol
from mnemo_core.statedir import own_database, state_dir

log = logging.getLogger(__name__)

FILE_NAME = "extracts.db"
FORMAT = 1  # bumped when an entry's layout changes: older entries are then misses
KEPT = 4000  # extractions kept: both sides of a few dozen large changes (a few MB)
COMPRESSION = 1  # zlib's fastest level: the text is JSON of names, signatures and docstrings
BUSY_TIMEOUT_S = 2.0  # another process writing: wait this long, then only lose the speed
_TABLE = "CREATE TABLE IF NOT EXISTS extracts(key BLOB PRIMARY KEY, data BLOB NOT NULL)"
_CHUNK = 500  # keys per query: under SQLite's bound on parameters

Side = tuple[str, bytes, LanguageSpec]  # a file's path, its bytes and its language


def symbols_of(
    root: Path, sides: Iterable[Side], discovery: PytestDiscovery, store: Store | None = None
) -> dict[tuple[str, bytes], FileExtract]:
    """The symbols-only extraction (``extract(..., symbols_only=True)``) of each side, by (path,
    bytes): read back where kept, read from ``store``'s index where it holds the same bytes,
    extracted and kept otherwise."""
    wanted = {(path, text): (spec, _key(path, text, spec, discovery)) for path, text, spec in sides}
    database = _database(root)
    kept = _read(database, [key for _, key in wanted.values()]) if database else {}
    missing = [(path, text, spec) for (path, text), (spec, key) in wanted.items() if key not in kept]
    indexed = _indexed(store, missing) if store is not None and missing else {}
    todo = {
        key: (path, text, spec)
        for (path, text), (spec, key) in wanted.items()
        if key not in kept and (path, text) not in indexed
    }
    made = _extracted(todo, discovery)
    found: dict[tuple[str, bytes], FileExtract] = {}
    for (path, text), (_, key) in wanted.items():
        found[(path, text)] = kept.get(key) or indexed.get((path, text)) or made[key]
    if database and made:
        _write(database, made)
    return found


def _extracted(todo: Mapping[bytes, Side], discovery: PytestDiscovery) -> dict[bytes, FileExtract]:
    """The symbols-only extraction of each side, by key: some of them in a forked child on the
    second core (``beside``) where one can be forked, the rest (and all that the child does not
    send back) here."""

    def extracted(key: bytes) -> FileExtract:
        path, text, spec = todo[key]
        return extract_once(path, text, spec, discovery, symbols_only=True)

    def child(taken: Iterator[bytes]) -> bytes:
        return pickle.dumps({key: extracted(key) for key in taken}, protocol=pickle.HIGHEST_PROTOCOL)

    beside = Beside.start(list(todo), child)
    made: dict[bytes, FileExtract] = {}
    try:
        for key in beside.mine() if beside is not None else todo:
            made[key] = extracted(key)
        sent = beside.results() if beside is not None else None
    finally:
        if beside is not None:
            beside.close()  # only if an extraction here failed before the child's were taken
    if sent is not None:
        made.update(pickle.loads(sent))
    return made | {key: extracted(key) for key in todo if key not in made}


def _indexed(store: Store, sides: list[Side]) -> dict[tuple[str, bytes], FileExtract]:
    """The sides the index holds with the same bytes (by path, language and digest), as the
    extraction the diff reads: symbols in source order, imports."""
    rows = store.files_named({path for path, _, _ in sides})
    partial = partial_files(store)
    held = {}
    for path, text, spec in sides:
        row = rows.get(path)
        same = row is not None and row.language == spec.name and path not in partial
        if row is not None and same and row.hash == content_digest(text):
            held[row.id] = (path, text)
    if not held:
        return {}
    imports = store.imports_of(held)
    found = {}
    for file_id, (path, text) in held.items():
        symbols = tuple(_raw(s) for s in store.symbols_in_file(path))
        bound, exports = imports[file_id]
        found[(path, text)] = FileExtract(path, rows[path].language, symbols, (), tuple(bound), exports)
    return found


def _raw(symbol: Symbol) -> RawSymbol:
    """An indexed symbol as extraction gave it, in the fields a diff reads (and those the index keeps
    as extraction made them)."""
    return RawSymbol(
        symbol.name,
        symbol.kind,
        symbol.start_line,
        symbol.end_line,
        symbol.signature,
        symbol.docstring,
        symbol.size,
        symbol.is_test,
        symbol.is_test_case,
        symbol.exported,
    )


def _key(path: str, text: bytes, spec: LanguageSpec, discovery: PytestDiscovery) -> bytes:
    """What an extraction depends on, digested."""
    parts = json.dumps([FORMAT, code_digest(), spec.name, discovery.fingerprint, path])
    digest = hashlib.blake2b(parts.encode("utf-8", "surrogateescape"), digest_size=16)
    digest.update(hashlib.blake2b(text, digest_size=16).digest())
    return digest.digest()


def _database(root: Path) -> Path | None:
    """The file of kept extractions: only when the repository has a state directory already."""
    try:
        state = state_dir(root, create=False)
        return own_database(state / FILE_NAME) if state.is_dir() else None
    except MnemoError as exc:
        log.info("the diff's extractions are not kept: %s", exc)
        return None


def _read(database: Path, keys: list[bytes]) -> dict[bytes, FileExtract]:
    found: dict[bytes, FileExtract] = {}
    if not database.is_file():
        return found
    try:
        with closing(sqlite3.connect(database, timeout=BUSY_TIMEOUT_S)) as db:
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, data in db.execute(f"SELECT key, data FROM extracts WHERE key IN ({marks})", chunk):
                    found[bytes(key)] = decode(data)
    except (sqlite3.Error, zlib.error, ValueError, TypeError, KeyError) as exc:
        log.info("kept extractions not read: %s", exc)
        return {}
    return found


def _write(database: Path, made: Mapping[bytes, FileExtract]) -> None:
    try:
        with closing(sqlite3.connect(database, timeout=BUSY_TIMEOUT_S)) as db, db:
            db.execute(_TABLE)
            db.executemany(
                "INSERT OR REPLACE INTO extracts VALUES (?, ?)", [(k, encode(e)) for k, e in made.items()]
            )
            db.execute(f"DELETE FROM extracts WHERE rowid <= (SELECT max(rowid) FROM extracts) - {KEPT}")
    except sqlite3.Error as exc:
        log.info("extractions not kept: %s", exc)


def encode(extract: FileExtract) -> bytes:
    """The stored form of an extraction (every field)."""
    exports = list(extract.exports) if extract.exports is not None else None
    rows = [
        extract.path,
        extract.language,
        extract.symbols,
        extract.refs,
        extract.imports,
        exports,
        extract.parse_errors,
        extract.partial,
    ]
    return zlib.compress(json.dumps(rows).encode("utf-8", "surrogateescape"), COMPRESSION)


def decode(data: bytes) -> FileExtract:
    """An extraction from its stored form (``encode``'s inverse)."""
    path, language, symbols, refs, imports, exports, errors, partial = json.loads(
        zlib.decompress(data).decode("utf-8", "surrogateescape")
    )
    return FileExtract(
        path,
        language,
        tuple(raw_symbol(row) for row in symbols),
        tuple(RawRef(*row) for row in refs),
        tuple(RawImport(*row) for row in imports),
        tuple(exports) if exports is not None else None,
        errors,
        partial,
    )
