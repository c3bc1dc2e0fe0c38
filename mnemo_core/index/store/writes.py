"""The indexer's writes: a file's extraction (symbol ids kept stable across re-indexing: a
re-parsed file's symbols keep the id of the old symbol with the same qualified name, kind and
ordinal, so edges from other files stay valid), removed files and resolved edges."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from mnemo_core.index.store.connection import Connection
from mnemo_core.index.store.schema import (
    chunks,
    id_filters,
)
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.model import FileExtract, RawRef, RawSymbol


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
_LINE = 5  # an edge row's line


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


_INSERT_FTS = (
    "INSERT INTO symbols_fts(rowid, name, words, qualified, signature, docstring, path)"
    " VALUES (?,?,?,?,?,?,?)"
)
_SELECT_FTS = "SELECT rowid, name, words, qualified, signature, docstring, path FROM symbols_fts"
# old symbols' rows (as ``_symbol_row`` makes them), kept ones' full-text rows and bodies
_Kept = tuple[dict[int, tuple[Any, ...]], dict[int, tuple[object, ...]], dict[int, str]]
_SYMBOL_FIELDS = (  # a symbol's columns in the order ``_symbol_row`` gives them
    "file_id", "name", "short_name", "kind", "signature", "docstring", "start_line", "end_line", "size",
    "is_test", "is_test_case", "exported", "parent_id", "params", "decorators", "returns", "supers", "fields",
)  # fmt: skip
_SYMBOL_COLUMNS = ", ".join(_SYMBOL_FIELDS)
_NAME, _KIND, _FIELDS = (_SYMBOL_FIELDS.index(c) for c in ("name", "kind", "fields"))
_INSERT_SYMBOL = f"INSERT INTO symbols(id, {_SYMBOL_COLUMNS}) VALUES (?{',?' * len(_SYMBOL_FIELDS)})"


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


class Writes(Connection):
    """The indexer's writes: files, their symbols (ids kept stable) and edges."""

    # -- files ------------------------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        """Every indexed file by path."""
        rows = self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files")
        return {f.path: f for f in (FileRow(*r) for r in rows)}

    def files_named(self, paths: Iterable[str]) -> dict[str, FileRow]:
        """The indexed files among ``paths``, by path (a few, where ``files`` would read them all)."""
        found: dict[str, FileRow] = {}
        for chunk in chunks(list(paths)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE path IN ({marks})", chunk)
            found.update((f.path, f) for f in (FileRow(*r) for r in rows))
        return found

    def touch_file(self, file_id: int, facts: FileFacts) -> None:
        """Record a new size and mtime for a file whose content did not change."""
        self.conn.execute(
            "UPDATE files SET size=?, mtime_ns=? WHERE id=?", (facts.size, facts.mtime_ns, file_id)
        )

    def remove_files(self, file_ids: Sequence[int]) -> None:
        """Forget files, their symbols, references and every edge touching them."""
        for chunk in chunks(file_ids):
            marks = ",".join("?" * len(chunk))
            ids = f"SELECT id FROM symbols WHERE file_id IN ({marks})"
            self.conn.execute(f"DELETE FROM edges WHERE file_id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM edges WHERE dst IN ({ids})", chunk)
            self.conn.execute(f"DELETE FROM deps WHERE file_id IN ({marks})", chunk)
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
        fields_before: set[tuple[str, ...]] = set()
        kept: _Kept = ({}, {}, {})
        if new:  # file ids are never reused: a new file has no old symbols to match or delete
            ids = [self._allocate_id() for _ in extract.symbols]
        else:
            ids, before, dependents, kept = self._reuse_ids(file_id, extract)
            fields_before = {
                (row[_NAME], *f) for row in kept[0].values() if row[_FIELDS] for f in json.loads(row[_FIELDS])
            }
        self._insert_symbols(file_id, extract, ids, kept)
        after = {s.name.rsplit(".", 1)[-1] for s in extract.symbols}
        fields_after = {(s.name, *f) for s in extract.symbols for f in s.fields}
        changed = fields_before ^ fields_after
        retyped = {n for cls, attr, *_ in changed for n in (cls.rsplit(".", 1)[-1], attr)}
        return (before ^ after) | retyped, dependents

    def _reuse_ids(self, file_id: int, extract: FileExtract) -> tuple[list[int], set[str], set[int], _Kept]:
        """Ids for a re-parsed file's symbols (old ones where they match), after deleting the old
        symbols that have no match; also the old short names, the files that had edges into removed
        symbols, and the old rows: every old symbol's own (as read before any was deleted; a kept
        one is updated in the columns that differ), the kept ones' full-text rows (left in place
        where they come out the same: deleting from FTS5 costs a tokenisation of the old text)."""
        rows = {
            row[0]: tuple(row[1:])
            for row in self.conn.execute(
                f"SELECT id, {_SYMBOL_COLUMNS} FROM symbols WHERE file_id=? ORDER BY id", (file_id,)
            )
        }
        old_ids = dict(
            zip(_ordinal_keys((row[_NAME], row[_KIND]) for row in rows.values()), rows, strict=True)
        )
        keys = _ordinal_keys((s.name, s.kind) for s in extract.symbols)
        new_keys = set(keys)
        ids = [old_ids.get(key) or self._allocate_id() for key in keys]
        dependents = self._delete_symbols([sid for key, sid in old_ids.items() if key not in new_keys])
        kept = [sid for key, sid in old_ids.items() if key in new_keys]
        fts: dict[int, tuple[object, ...]] = {}
        bodies: dict[int, str] = {}
        for where, args in id_filters("rowid", kept):
            fts.update((row[0], tuple(row)) for row in self.conn.execute(f"{_SELECT_FTS} {where}", args))
            bodies.update(self.conn.execute(f"SELECT rowid, body FROM bodies_fts {where}", args))
        names = {name.rsplit(".", 1)[-1] for (name, _kind, _n) in old_ids}
        return ids, names, dependents, (rows, fts, bodies)

    def _insert_symbols(self, file_id: int, extract: FileExtract, ids: list[int], kept: _Kept) -> None:
        by_name: dict[str, int] = {}
        rows, fts, bodies = [], [], []
        path_words = " ".join(identifier_words(extract.path))
        module_id = ids[0] if extract.symbols and extract.symbols[0].kind == "module" else None
        old_rows, old_fts, old_bodies = kept
        stale_fts, stale_bodies = [], []
        updates: dict[tuple[int, ...], list[tuple[object, ...]]] = {}
        for sid, sym in zip(ids, extract.symbols, strict=True):
            parent_id = None
            if sym.kind != "module":
                parent_id = by_name.get(sym.name.rsplit(".", 1)[0]) if "." in sym.name else None
                parent_id = parent_id or module_id
                by_name.setdefault(sym.name, sid)
            row = _symbol_row(sym, file_id, parent_id)
            old_row = old_rows.get(sid)
            if old_row is None:
                rows.append((sid, *row))
            elif old_row != row:
                differ = tuple(i for i, (a, b) in enumerate(zip(old_row, row, strict=True)) if a != b)
                updates.setdefault(differ, []).append((*(row[i] for i in differ), sid))
            text = (
                sid,
                sym.name.rsplit(".", 1)[-1],
                sym.words,
                sym.name,
                sym.signature,
                sym.docstring,
                path_words,
            )
            old_text = old_fts.get(sid)
            if old_text != text:
                stale_fts += [(sid,)] if old_text is not None else []
                fts.append(text)
            # (a path or name word weighted up in a column of its own ranked no better)
            body = f"{path_words} {sym.words} {sym.body}" if sym.body else None
            old_body = old_bodies.get(sid)
            if old_body != body:
                stale_bodies += [(sid,)] if old_body is not None else []
                bodies += [(sid, body)] if body is not None else []
        self.conn.executemany("DELETE FROM symbols_fts WHERE rowid=?", stale_fts)
        self.conn.executemany("DELETE FROM bodies_fts WHERE rowid=?", stale_bodies)
        for differ, values in updates.items():  # only the columns that differ: their indexes alone
            columns = ", ".join(f"{_SYMBOL_FIELDS[i]}=?" for i in differ)
            self.conn.executemany(f"UPDATE symbols SET {columns} WHERE id=?", values)
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
        for chunk in chunks(ids):
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

    def replace_edges(
        self, file_ids: Iterable[int], edges: Iterable[EdgeRow], in_place: bool = False
    ) -> None:
        """Swap the resolved edges of some files for new ones (consumed as they come). ``in_place``:
        only the rows that differ are written (a few files resolved again mostly come out as before,
        or moved by some lines; their old rows are held meanwhile, so not for a whole index)."""
        if not in_place:
            for where, args in id_filters("file_id", list(file_ids)):
                self.conn.execute(f"DELETE FROM edges {where}", args)
            with self.indexes_deferred("edges"):
                self.conn.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?)", edges)
            return
        old: dict[tuple[object, ...], list[int]] = {}
        for where, args in id_filters("file_id", list(file_ids)):
            for rowid, *row in self.conn.execute(f"SELECT rowid, * FROM edges {where}", args):
                old.setdefault(tuple(row), []).append(rowid)
        moved, inserted, gone = _moved(old, [row for row in edges if not _taken(old, row)])
        self.conn.executemany("UPDATE edges SET line=? WHERE rowid=?", moved)
        self.conn.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?)", inserted)
        self._delete_rows("edges", gone)

    def deps_rows(self, file_ids: Iterable[int]) -> dict[int, dict[str, list[int]]]:
        """What some files' resolution read: per file, each key with its rows' ids."""
        out: dict[int, dict[str, list[int]]] = {}
        for where, args in id_filters("file_id", list(file_ids)):
            for rowid, key, fid in self.conn.execute(f"SELECT rowid, key, file_id FROM deps {where}", args):
                out.setdefault(fid, {}).setdefault(key, []).append(rowid)
        return out

    def forget_deps(self, file_ids: Iterable[int]) -> None:
        """Drop what some files' resolution read (they are resolved again)."""
        for where, args in id_filters("file_id", list(file_ids)):
            self.conn.execute(f"DELETE FROM deps {where}", args)

    def add_deps(self, rows: Iterable[tuple[str, int]]) -> None:
        """Add ``(key, file id)`` rows of what some files' resolution read."""
        self.conn.executemany("INSERT INTO deps VALUES (?,?)", rows)

    def drop_deps(self, rowids: Iterable[int]) -> None:
        """Delete rows of ``deps`` by their ids (see ``deps_rows``)."""
        self._delete_rows("deps", rowids)

    def _delete_rows(self, table: str, rowids: Iterable[int]) -> None:
        for where, args in id_filters("rowid", list(rowids)):
            self.conn.execute(f"DELETE FROM {table} {where}", args)


def _moved(
    old: dict[tuple[object, ...], list[int]], new: list[EdgeRow]
) -> tuple[list[tuple[object, int]], list[EdgeRow], list[int]]:
    """Pair the new rows with the old ones left that differ from them in their line only (code
    above them was edited): ``(line, rowid)`` for each such old row, the new rows left to insert
    and the old rows' ids left to delete. An update of the line leaves the table's indexes (src,
    dst, file) as they are, where a deletion and an insertion write an entry in each of them twice."""
    unplaced: dict[tuple[object, ...], list[int]] = {}
    for row, rowids in old.items():
        unplaced.setdefault(row[:_LINE] + row[_LINE + 1 :], []).extend(rowids)
    moved: list[tuple[object, int]] = []
    inserted: list[EdgeRow] = []
    for row in new:
        spare = unplaced.get(row[:_LINE] + row[_LINE + 1 :])
        if spare:
            moved.append((row[_LINE], spare.pop()))
        else:
            inserted.append(row)
    return moved, inserted, [rowid for rowids in unplaced.values() for rowid in rowids]


def _taken(old: dict[tuple[object, ...], list[int]], row: EdgeRow) -> bool:
    """Whether an equal old row is there to keep (each old row kept once)."""
    rowids = old.get(row)
    if not rowids:
        return False
    rowids.pop()
    return True
