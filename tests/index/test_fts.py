"""The full-text tables keep each term's positions, so BM25 reads them instead of tokenizing every
matching row again, and scores exactly as the tables without positions did."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.index.store.search import FTS_WEIGHTS

SOURCE = {
    "net/client.py": (
        "class HttpClient:\n"
        '    """An http client that retries a request."""\n\n'
        "    def retry(self, request, times=3):\n"
        '        """Retry the request; retry again on a timeout."""\n'
        "        for _ in range(times):\n"
        "            self.send(request)\n\n"
        "    def send(self, request):\n"
        "        return request\n"
    ),
    "net/retry_policy.py": "def retry_delay(attempt):\n    # retry after a delay that grows\n    return 2\n",
    "json/decoder.py": "def decode(text):\n    '''Decode json; errors name the line.'''\n    return text\n",
}
MATCHES = ('"retry" OR "client"', '"json" OR "error" OR "retry"', '"request"', '"decod"')
_COLUMNS = "name, words, qualified, signature, docstring, path"


def test_an_index_keeps_positions_and_scores_as_without_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SOURCE)
    index_repo(repo)
    store = Store.open(repo)
    # a phrase needs positions: FTS5 refuses it under detail=column or detail=none
    assert store.conn.execute(
        "SELECT count(*) FROM bodies_fts WHERE bodies_fts MATCH '\"retry delay\"'"
    ).fetchone() == (1,)
    _without_positions(store.conn)
    weights = ",".join(str(w) for w in FTS_WEIGHTS)
    for match in MATCHES:
        for table, old, search, weight in (
            ("symbols_fts", "old_symbols", store.fts_search, weights),
            ("bodies_fts", "old_bodies", store.body_search, "1.0"),
        ):
            expected = store.conn.execute(
                f"SELECT rowid, -bm25({old}, {weight}) AS score FROM {old} WHERE {old} MATCH ?"
                " ORDER BY -score, rowid LIMIT 150",
                (match,),
            ).fetchall()
            assert search(match, 150) == expected and expected, (table, match)
    store.close()


def test_an_index_of_the_schema_before_is_rebuilt_with_positions(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SOURCE)
    index_repo(repo)
    store = Store.open(repo)
    expected = store.fts_search('"retry"', 10), store.body_search('"retry"', 10)
    for table, columns, detail in (("symbols_fts", _COLUMNS, "column"), ("bodies_fts", "body", "none")):
        rows = store.conn.execute(f"SELECT rowid, {columns} FROM {table}").fetchall()
        store.conn.execute(f"DROP TABLE {table}")
        options = f"tokenize='porter unicode61', detail={detail}"
        store.conn.execute(f"CREATE VIRTUAL TABLE {table} USING fts5({columns}, {options})")
        marks = ",".join("?" * (len(rows[0])))
        store.conn.executemany(f"INSERT INTO {table}(rowid, {columns}) VALUES ({marks})", rows)
    store.conn.execute("UPDATE meta SET value=value-1 WHERE key='schema'")
    store.close()
    assert index_repo(repo).parsed == len(SOURCE)
    store = Store.open(repo)
    assert (store.fts_search('"retry"', 10), store.body_search('"retry"', 10)) == expected
    phrase = "SELECT count(*) FROM symbols_fts WHERE symbols_fts MATCH '\"http client\"'"
    assert store.conn.execute(phrase).fetchone() == (3,)
    store.close()


def _without_positions(conn: sqlite3.Connection) -> None:
    """Copies of the two tables as the schema before kept them (detail=column and detail=none)."""
    conn.execute(
        f"CREATE VIRTUAL TABLE old_symbols USING fts5({_COLUMNS}, tokenize='porter unicode61', detail=column)"
    )
    conn.execute(f"INSERT INTO old_symbols(rowid, {_COLUMNS}) SELECT rowid, {_COLUMNS} FROM symbols_fts")
    conn.execute("CREATE VIRTUAL TABLE old_bodies USING fts5(body, tokenize='porter unicode61', detail=none)")
    conn.execute("INSERT INTO old_bodies(rowid, body) SELECT rowid, body FROM bodies_fts")
    phrase = "SELECT count(*) FROM old_bodies WHERE old_bodies MATCH '\"retry delay\"'"
    try:
        conn.execute(phrase).fetchone()
    except sqlite3.OperationalError as exc:
        assert "detail" in str(exc)
    else:
        raise AssertionError("a table without positions answered a phrase")
