"""What the resolver reads from the index: files' references and imports, symbols in the
resolver's shape, and the files a change of names makes it resolve again."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from mnemo_core.index.store.connection import Connection
from mnemo_core.index.store.schema import (
    chunks,
    id_filters,
)
from mnemo_core.index.world import SymbolRow
from mnemo_core.model import Field, RawImport

INSTR_SCAN_MAX_NAMES = 40  # more names than this: splitting every file's name list beats text scans


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
# a symbol's columns in ``resolver_view`` (lines aside: only a file's own references are placed by line)
VIEW_FIELDS = tuple(f for f in _RESOLVER_FIELDS if f not in ("id", "start_line", "end_line"))


def _symbol_rows(rows: Iterable[Sequence[Any]]) -> list[SymbolRow]:
    """Rows of ``SELECT {_RESOLVER_COLUMNS}`` as SymbolRows. A value met again (a kind, a file
    id, a line, a parameter or base name, a name repeated across files) is kept once: a world of
    a large repository holds a million rows, and most of their values repeat."""
    same: dict[Any, Any] = {}
    one = same.setdefault
    split: dict[tuple[str, str], tuple[str, ...]] = {}

    def words(text: str, sep: str | None) -> tuple[str, ...]:
        found = split.get((text, sep or ""))
        if found is None:
            found = split[(text, sep or "")] = tuple(one(w, w) for w in text.split(sep))
        return found

    return [
        SymbolRow(
            symbol_id,
            one(file_id, file_id),
            one(name, name),
            one(kind, kind),
            None if parent_id is None else one(parent_id, parent_id),
            bool(is_test),
            bool(is_test_case),
            words(params, None) if params else (),
            words(decorators, "\n") if decorators else (),
            one(returns, returns),
            words(supers, None) if supers else (),
            tuple(Field(*f) for f in json.loads(fields)) if fields else (),
            one(start_line, start_line),
            one(end_line, end_line),
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


class ResolverReads(Connection):
    """What the resolver reads: files' references and imports, symbols in the resolver's shape."""

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

    def files_depending(self, keys: Iterable[str]) -> set[int]:
        """Files whose last resolution read any of ``keys`` (see ``World.reads``)."""
        result: set[int] = set()
        for chunk in chunks(sorted(set(keys))):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT file_id FROM deps WHERE key IN ({marks})", chunk)
            result.update(r[0] for r in rows)
        return result

    def files_depending_prefix(self, prefix: str) -> set[int]:
        """Files whose last resolution read a key that starts with ``prefix``."""
        rows = self.conn.execute(
            "SELECT file_id FROM deps WHERE key >= ? AND key < ?",
            (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        )
        return {r[0] for r in rows}

    def stored_imports(self) -> dict[int, str]:
        """Every file's imports, as stored (JSON)."""
        return dict(self.conn.execute("SELECT id, imports FROM files"))

    def module_queries(self) -> list[str]:
        """The path lookups (``q`` keys) some file's resolution made."""
        rows = self.conn.execute("SELECT DISTINCT key FROM deps WHERE key >= 'q\t' AND key < 'q\n'")
        return [r[0] for r in rows]

    def resolver_view(self, file_id: int) -> tuple[dict[int, tuple[Any, ...]], str, str | None]:
        """What other files' resolution can see of a file: its symbols as the resolver reads them
        (their lines aside: only the file's own references are placed by line), imports, exports."""
        fields = ", ".join(VIEW_FIELDS)
        symbols = {
            row[0]: tuple(row[1:])
            for row in self.conn.execute(f"SELECT id, {fields} FROM symbols WHERE file_id=?", (file_id,))
        }
        row = self.conn.execute("SELECT imports, exports FROM files WHERE id=?", (file_id,)).fetchone()
        return symbols, row[0] if row else "[]", row[1] if row else None

    def inherits_by_file(self, file_ids: Iterable[int]) -> dict[int, set[tuple[int, int]]]:
        """The stored (class, base) pairs resolved from each of some files."""
        out: dict[int, set[tuple[int, int]]] = {}
        for where, args in id_filters("file_id", file_ids):
            for src, dst, fid in self.conn.execute(
                f"SELECT src, dst, file_id FROM edges {where} AND type='inherits'", args
            ):
                out.setdefault(fid, set()).add((src, dst))
        return out

    def files_with_edges_into(self, file_ids: Iterable[int]) -> set[int]:
        """Files whose resolved edges point into any of ``file_ids``."""
        result: set[int] = set()
        for chunk in chunks(list(file_ids)):
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
        for where, args in id_filters("id", file_ids):
            for fid, imports, exports in self.conn.execute(
                f"SELECT id, imports, exports FROM files {where}", args
            ):
                parsed = [RawImport(*row) for row in json.loads(imports)]
                out[fid] = (parsed, tuple(json.loads(exports)) if exports else None)
        return out

    def resolver_symbols(self, file_ids: Iterable[int] | None) -> list[SymbolRow]:
        """The symbols of some files (all of them for None), in the shape the resolver needs."""
        out = []
        for where, args in id_filters("file_id", file_ids):
            out.extend(
                _symbol_rows(self.conn.execute(f"SELECT {_RESOLVER_COLUMNS} FROM symbols {where}", args))
            )
        return out

    def symbol_files(self, symbol_ids: Iterable[int]) -> dict[int, int]:
        """The file of each symbol."""
        out: dict[int, int] = {}
        for where, args in id_filters("id", symbol_ids):
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
        for where, args in id_filters("src", class_ids):
            clause = f"{where} AND type='inherits'" if where else "WHERE type='inherits'"
            rows = self.conn.execute(f"SELECT src, dst, file_id FROM edges {clause}", args)
            out.extend((src, dst) for src, dst, fid in rows if fid not in exclude_files)
        return out

    def refs_of(self, file_ids: Iterable[int]) -> dict[int, list[Any]]:
        """The unresolved references of some files, as ``RawRef``-shaped lists."""
        return {fid: json.loads(refs) for fid, refs in self.refs_json(file_ids).items()}

    def ref_sizes(self, file_ids: Iterable[int]) -> dict[int, int]:
        """The size of each of some files' stored references (JSON characters)."""
        out: dict[int, int] = {}
        for where, args in id_filters("id", file_ids):
            out.update(self.conn.execute(f"SELECT id, length(refs) FROM files {where}", args))
        return out

    def refs_json(self, file_ids: Iterable[int]) -> dict[int, str]:
        """The unresolved references of some files, as stored (JSON of ``RawRef``-shaped lists)."""
        out: dict[int, str] = {}
        for where, args in id_filters("id", file_ids):
            out.update(self.conn.execute(f"SELECT id, refs FROM files {where}", args))
        return out

    def inherit_refs(self, file_ids: Iterable[int]) -> dict[int, list[Any]]:
        """The base-class references of some files (those that have any), as ``RawRef``-shaped lists."""
        out: dict[int, list[Any]] = {}
        for where, args in id_filters("id", file_ids):
            for fid, refs in self.conn.execute(f"SELECT id, refs FROM files {where}", args):
                if '["inherit"' in refs:  # spares decoding the rest
                    out[fid] = [r for r in json.loads(refs) if r[0] == "inherit"]
        return out
