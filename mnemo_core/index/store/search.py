"""Full-text search: BM25 over the symbols (name, words, qualified name, signature, docstring,
path) and over their bodies."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mnemo_core.index.store.connection import Connection

# BM25 column weights for symbols_fts(name, words, qualified, signature, docstring, path):
# a hit in the name says far more about a symbol than a hit in its docstring or path.
FTS_WEIGHTS = (10.0, 6.0, 4.0, 2.0, 1.0, 1.5)


class Search(Connection):
    """Full-text search: BM25 over the symbols and their bodies."""

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
        ``bodies_fts``), asked of FTS5 itself so stemming agrees with the search. Each term's rows
        are read whole and kept when among ``ids``: a ``rowid IN (...)`` beside the MATCH had FTS5
        evaluate the match once per id, ten times slower on a task's 150 hits."""
        if table not in ("symbols_fts", "bodies_fts"):
            raise ValueError(table)
        wanted = set(ids)
        found: dict[int, list[str]] = {}
        query = f"SELECT rowid FROM {table} WHERE {table} MATCH ?"
        for term in terms:
            for (sid,) in self.conn.execute(query, (f'"{term}"',)):
                if sid in wanted:
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
