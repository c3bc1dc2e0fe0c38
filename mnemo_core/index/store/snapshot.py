"""What an index holds, independent of the ids it gave out: for checking that an index brought up
to date through history equals a cold index of the same tree.

Symbol ids differ between two indexes of one tree (an updated one keeps the ids of earlier runs),
so every row is named by what it is: a symbol by (path, qualified name, kind, first line), an
edge by its two symbols, a full-text row by its symbol, a remembered commit by its sha and its
rank in id order. Two snapshots are equal when the indexes answer every query alike.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass

SymbolKey = tuple[str, str, str, int]  # path, qualified name, kind, start line
DIFF_SAMPLES = 5  # rows of each kind shown when two snapshots differ


@dataclass(frozen=True)
class Snapshot:
    """The rows of an index, each named without ids."""

    files: Counter[tuple[object, ...]]
    symbols: Counter[tuple[object, ...]]
    edges: Counter[tuple[object, ...]]
    fts: Counter[tuple[object, ...]]
    bodies: Counter[tuple[object, ...]]
    commits: Counter[tuple[object, ...]]  # by their order (ids rank them: "a file's newest commit")

    def differences(self, other: Snapshot) -> list[str]:
        """One line per table that differs (with a few rows on each side); empty when equal."""
        out = []
        for table in ("files", "symbols", "edges", "fts", "bodies", "commits"):
            mine, theirs = getattr(self, table), getattr(other, table)
            if mine == theirs:
                continue
            only_mine = sorted(map(repr, (mine - theirs).elements()))
            only_theirs = sorted(map(repr, (theirs - mine).elements()))
            out.append(
                f"{table}: {len(only_mine)} rows only here {only_mine[:DIFF_SAMPLES]}, "
                f"{len(only_theirs)} only there {only_theirs[:DIFF_SAMPLES]}"
            )
        return out


def snapshot(conn: sqlite3.Connection) -> Snapshot:
    """Read every file, symbol, edge and full-text row of an open index."""
    paths = dict(conn.execute("SELECT id, path FROM files"))
    keys: dict[int, SymbolKey] = {
        sid: (paths[fid], name, kind, line)
        for sid, fid, name, kind, line in conn.execute(
            "SELECT id, file_id, name, kind, start_line FROM symbols"
        )
    }
    files = Counter(
        row
        for row in conn.execute(
            "SELECT path, language, hash, parse_errors, exports, imports, refs FROM files"
        )
    )
    symbols = Counter(
        (keys[row[0]], keys.get(row[1]) if row[1] is not None else None, *row[2:])
        for row in conn.execute(
            "SELECT id, parent_id, short_name, signature, docstring, end_line, size, is_test, is_test_case,"
            " exported, params, decorators, returns, supers, fields FROM symbols"
        )
    )
    edges: Counter[tuple[object, ...]] = Counter(
        (keys.get(src), keys.get(dst), kind, how, round(confidence, 6), line, paths.get(fid))
        for src, dst, kind, how, confidence, line, fid in conn.execute("SELECT * FROM edges")
    )
    fts = Counter(
        (keys.get(row[0]), *row[1:])
        for row in conn.execute(
            "SELECT rowid, name, words, qualified, signature, docstring, path FROM symbols_fts"
        )
    )
    bodies: Counter[tuple[object, ...]] = Counter(
        (keys.get(row[0]), row[1]) for row in conn.execute("SELECT rowid, body FROM bodies_fts")
    )
    messages = dict(conn.execute("SELECT rowid, message FROM commits_fts"))
    touched: dict[int, list[str]] = {}
    for cid, path in conn.execute("SELECT commit_id, path FROM commit_files ORDER BY commit_id, path"):
        touched.setdefault(cid, []).append(path)
    commits: Counter[tuple[object, ...]] = Counter(
        (rank, sha, time, author, subject, messages.get(cid), tuple(touched.get(cid, ())))
        for rank, (cid, sha, time, author, subject) in enumerate(
            conn.execute("SELECT id, sha, time, author, subject FROM commits ORDER BY id")
        )
    )
    return Snapshot(files, symbols, edges, fts, bodies, commits)
