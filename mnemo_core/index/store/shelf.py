"""Extractions kept by content: what an update parsed, keyed by path and content hash, so a file
whose content comes back (a checkout back and forth between two branches) is not parsed again.

Only updates keep extractions here (a cold build parses each file once and keeps nothing), at
most ``SHELF_MAX`` of them, the oldest written going first. An entry is used only under the
schema, analysis and pytest settings it was made under (``key``). The table is made on first
write, so an index without it reads as an empty shelf.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mnemo_core.index.store.connection import Connection
from mnemo_core.index.store.schema import ANALYSIS_VERSION, SCHEMA_VERSION, chunks
from mnemo_core.index.store.writes import EncodedRefs
from mnemo_core.model import Field, FileExtract, RawImport, RawRef, RawSymbol

log = logging.getLogger(__name__)

SHELF_MAX = 2000  # extractions kept: both sides of a move of about a thousand files
COMPRESSION = 1  # zlib's fastest level: the text is JSON, most of it identifiers and body words
_TABLE = (
    "CREATE TABLE IF NOT EXISTS shelf(path TEXT NOT NULL, hash TEXT NOT NULL, setting TEXT NOT NULL,"
    " data BLOB NOT NULL, PRIMARY KEY(path, hash, setting))"
)


@dataclass(frozen=True, slots=True)
class Shelved:
    """A kept extraction: the file's extract (its references apart), references, base-class references."""

    extract: FileExtract
    refs: EncodedRefs
    inherits: tuple[RawRef, ...]


def setting(discovery: str) -> str:
    """What an extraction depends on besides the file: the index's versions and the pytest settings."""
    return f"{SCHEMA_VERSION}.{ANALYSIS_VERSION}.{discovery}"


def encode(shelved: Shelved) -> bytes:
    """The stored form of a kept extraction."""
    ex = shelved.extract
    exports = list(ex.exports) if ex.exports is not None else None
    rows = [ex.path, ex.language, ex.symbols, ex.imports, exports, ex.parse_errors, ex.partial]
    text = json.dumps([rows, shelved.refs.json, shelved.refs.names, shelved.inherits])
    return zlib.compress(text.encode("utf-8"), COMPRESSION)


def decode(data: bytes) -> Shelved:
    """A kept extraction from its stored form (``encode``'s inverse)."""
    rows, refs, names, inherits = json.loads(zlib.decompress(data))
    path, language, symbols, imports, exports, parse_errors, partial = rows
    extract = FileExtract(
        path,
        language,
        tuple(raw_symbol(row) for row in symbols),
        (),
        tuple(RawImport(*row) for row in imports),
        tuple(exports) if exports is not None else None,
        parse_errors,
        partial,
    )
    return Shelved(extract, EncodedRefs(refs, names), tuple(RawRef(*row) for row in inherits))


def raw_symbol(row: list[Any]) -> RawSymbol:
    """A symbol from its fields in order, as JSON gives them back (lists where tuples were)."""
    values: dict[str, Any] = dict(zip(RawSymbol._fields, row, strict=True))
    for name in ("params", "decorators", "supers"):
        values[name] = tuple(values[name])
    values["fields"] = tuple(Field(*f) for f in values["fields"])
    return RawSymbol(**values)


class Shelf(Connection):
    """Kept extractions by path and content hash."""

    def shelved(self, paths: Iterable[str], key: str) -> dict[str, frozenset[str]]:
        """Per path, the content hashes kept for it under ``key``."""
        found: dict[str, set[str]] = {}
        try:
            for chunk in chunks(list(paths)):
                marks = ",".join("?" * len(chunk))
                rows = self.conn.execute(
                    f"SELECT path, hash FROM shelf WHERE setting=? AND path IN ({marks})", (key, *chunk)
                )
                for path, digest in rows:
                    found.setdefault(path, set()).add(digest)
        except sqlite3.OperationalError as exc:  # no shelf yet
            if "no such table" not in str(exc):
                raise
        return {path: frozenset(hashes) for path, hashes in found.items()}

    def unshelve(self, path: str, digest: str, key: str) -> Shelved | None:
        """The extraction kept for this content, if any (None for one that does not decode)."""
        row = self.conn.execute(
            "SELECT data FROM shelf WHERE path=? AND hash=? AND setting=?", (path, digest, key)
        ).fetchone()
        try:
            return decode(row[0]) if row else None
        except (zlib.error, ValueError, TypeError) as exc:
            log.warning("a kept extraction of %s does not decode (%s): parsing it", path, exc)
            return None

    def shelve(self, entries: Iterable[tuple[str, Shelved]], key: str) -> None:
        """Keep extractions (content hash, extraction); the oldest beyond ``SHELF_MAX`` go."""
        rows = [(s.extract.path, digest, key, encode(s)) for digest, s in entries]
        if not rows:
            return
        self.conn.execute(_TABLE)
        self.conn.executemany("INSERT OR REPLACE INTO shelf VALUES (?,?,?,?)", rows)
        self.conn.execute(f"DELETE FROM shelf WHERE rowid <= (SELECT max(rowid) FROM shelf) - {SHELF_MAX}")
