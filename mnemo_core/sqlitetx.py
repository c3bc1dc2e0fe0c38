"""One write transaction on a SQLite connection opened in autocommit mode (``isolation_level=None``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """A transaction that takes the write lock at its start (``BEGIN IMMEDIATE``, so two writers
    wait rather than deadlock): all of the block lands, or none of it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
