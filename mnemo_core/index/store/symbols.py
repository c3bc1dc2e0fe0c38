"""Reads of symbols and edges: by id, key, name and file, the edges the walks follow, fan-in
and the totals."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast

from mnemo_core.index.store.connection import Connection
from mnemo_core.index.store.schema import (
    chunks,
    id_filters,
)
from mnemo_core.index.store.shortnames import ShortNames, short_names
from mnemo_core.model import Edge, Symbol, SymbolKind

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
# an edge made from its row in C: a named tuple's own constructor is Python code, and the walks to
# tests read tens of thousands of edges
_new_edge = tuple.__new__


def _containing(fragment: str) -> str:
    """A LIKE pattern (escape ``\\``) for names that contain ``fragment``. LIKE folds ASCII case
    and nothing else, as SQLite's ``lower`` does, and compares without building a lowered copy of
    every name: a third of ``instr(lower(name), ?)``'s time over a large index."""
    escaped = fragment.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


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


class SymbolReads(Connection):
    """Symbols and edges: the queries of the walks, lookups by name and the totals."""

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
        for chunk in chunks(list(ids)):
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

    def classes_holding(self, names: Iterable[str] | None) -> dict[str, set[int]]:
        """For each class name (each of ``names``, or every one held: None), the classes whose body
        binds an attribute to a class of that name (``code_generator_class = NativeCodeGenerator``,
        a dotted name by its last part)."""
        wanted = set(names) if names is not None else None
        holding: dict[str, set[int]] = {}
        rows = self.conn.execute(
            "SELECT id, fields FROM symbols WHERE kind='class' AND fields LIKE '%\"alias\"%'"
        )
        for sid, held_fields in rows:
            for name, kind, text, _ in json.loads(held_fields):
                held = text.rsplit(".", 1)[-1]
                if kind == "alias" and (wanted is None or held in wanted) and name:
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
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT src, dst, type, resolution, confidence, line FROM edges WHERE {column} IN ({marks})",
                chunk,
            )
            out.extend([_new_edge(Edge, r) for r in rows])  # the row's columns in Edge's order
        return out

    def all_edges(self) -> list[tuple[int, int, str, float]]:
        """Every edge as (src, dst, type, confidence); ``contains`` edges come from the symbol tree."""
        edges = list(self.conn.execute("SELECT src, dst, type, confidence FROM edges"))
        edges += self.conn.execute(
            "SELECT parent_id, id, 'contains', 1.0 FROM symbols WHERE parent_id IS NOT NULL"
        ).fetchall()
        return edges

    def edge_batches(self, types: Sequence[str], size: int) -> Iterator[list[tuple[int, int, int, float]]]:
        """The rows of ``all_edges`` a batch of at most ``size`` at a time, in the same order, each
        type given as its position in ``types`` (-1 for a type not there): nothing holds every edge."""
        codes = " ".join(f"WHEN ? THEN {i}" for i in range(len(types)))
        contains = types.index("contains") if "contains" in types else -1
        for query, args in (
            (f"SELECT src, dst, CASE type {codes} ELSE -1 END, confidence FROM edges", list(types)),
            (f"SELECT parent_id, id, {contains}, 1.0 FROM symbols WHERE parent_id IS NOT NULL", []),
        ):
            cursor = self.conn.execute(query, args)
            while batch := cursor.fetchmany(size):
                yield batch

    def symbols_at(self, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
        """Symbol ids by (path, short name)."""
        wanted = set(targets)
        out: dict[tuple[str, str], list[int]] = {}
        for chunk in chunks(list({p for p, _ in wanted})):
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
        for chunk in chunks(list(names)):
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

    def test_cases_named(self, lowered: Iterable[str]) -> list[int]:
        """The test cases (modules too) whose short name, lowered as SQLite lowers, is one of
        ``lowered``, in id order."""
        found: list[int] = []
        for chunk in chunks(sorted(set(lowered))):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT id FROM symbols WHERE lower(short_name) IN ({marks}) AND is_test_case", chunk
            )
            found += [r[0] for r in rows]
        return sorted(found)

    def symbols_containing(self, fragment: str, limit: int) -> list[Symbol]:
        """Symbols whose short name contains ``fragment`` (case-insensitive), shortest names first."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.short_name LIKE ? ESCAPE '\\' AND lower(s.short_name) != ?"
            " AND s.kind != 'module'"
            " ORDER BY s.is_test, length(s.short_name), f.path, s.start_line LIMIT ?",
            (_containing(fragment), fragment.lower(), limit),
        )
        return [_symbol(r) for r in rows]

    def symbols_containing_each(self, fragments: Iterable[str], limit: int) -> dict[str, list[Symbol]]:
        """:meth:`symbols_containing` of several fragments at once (a task's name channel asks for
        up to a dozen): each fragment's matches, in the same order and number. The names are
        searched in the index's distinct short names (:mod:`shortnames`), then only the symbols of
        the names found are read."""
        lowered = {fragment: fragment.lower() for fragment in fragments}
        if not lowered:
            return {}
        names = self.distinct_short_names()
        matched = {low: names.containing(low) for low in set(lowered.values())}
        rows: list[Any] = []
        for chunk in chunks(sorted(set().union(*matched.values()))):
            rows += self.conn.execute(
                "SELECT s.id, lower(s.short_name), s.is_test, length(s.short_name), f.path, s.start_line"
                " FROM symbols s JOIN files f ON f.id = s.file_id"
                f" WHERE lower(s.short_name) IN ({','.join('?' * len(chunk))}) AND s.kind != 'module'",
                chunk,
            ).fetchall()
        rows.sort(key=lambda r: (r[2], r[3], r[4], r[5], r[0]))  # id last: the order a scan met them
        chosen = {
            fragment: [r[0] for r in rows if r[1] in matched[low]][:limit]
            for fragment, low in lowered.items()
        }
        found = self.symbols_by_ids({sid for ids in chosen.values() for sid in ids})
        return {fragment: [found[sid] for sid in ids] for fragment, ids in chosen.items()}

    def distinct_short_names(self) -> ShortNames:
        """The index's distinct short names, lowered as SQLite lowers (:mod:`shortnames`: kept per
        generation)."""
        return short_names(self.path.parent, self.index_id(), self.generation(), self._all_short_names)

    def _all_short_names(self) -> list[str]:
        """Every symbol's short name, repeats allowed (read from the short-name index alone)."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT short_name FROM symbols")]

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
        """Direct members of some symbols, in line order. A member lies in its parent's file (the
        indexer nests symbols within a file), so the parents' files pick the rows through the file
        index: parent_id has none, and a scan of every symbol cost 0.4 s on four stdlib copies."""
        out: dict[int, list[Symbol]] = {}
        for where, args in id_filters("s.parent_id", list(ids)):
            parents = f"SELECT p.file_id FROM symbols p WHERE p.id IN ({','.join('?' * len(args))})"
            rows = self.conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id {where}"
                f" AND s.file_id IN ({parents}) ORDER BY s.start_line",
                [*args, *args],
            )
            for r in rows:
                symbol = _symbol(r)
                out.setdefault(symbol.parent_id or 0, []).append(symbol)
        return out

    def file_count(self) -> int:
        """Files in the index (their path index is counted: no row of symbols or edges is read)."""
        return int(self.conn.execute("SELECT count(*) FROM files").fetchone()[0])

    def totals(self, contains: int | None = None) -> tuple[int, int, int]:
        """(files, symbols, edges) in the index, ``contains`` edges included (``contains``: their
        number when the caller knows it; counting them reads every symbol's row)."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM symbols),"
            " (SELECT count(*) FROM edges)"
        ).fetchone()
        contains = self.contained_in(None) if contains is None else contains
        return int(row[0]), int(row[1]), int(row[2]) + contains

    def contained_in(self, file_ids: Iterable[int] | None) -> int:
        """The ``contains`` edges (symbols with a parent) of some files, of every file for None."""
        if file_ids is None:
            return int(
                self.conn.execute("SELECT count(*) FROM symbols WHERE parent_id IS NOT NULL").fetchone()[0]
            )
        return sum(
            int(
                self.conn.execute(
                    f"SELECT count(*) FROM symbols {where} AND parent_id IS NOT NULL", args
                ).fetchone()[0]
            )
            for where, args in id_filters("file_id", sorted(file_ids))
        )

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
