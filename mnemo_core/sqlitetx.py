"""One write transaction on a SQLite connection opened in autocommit mode (``isolation_level=None``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def immediate(
    conn: sqlite3.Connection, refused: Callable[[sqlite3.OperationalError], Exception] | None = None
) -> Iterator[None]:
    """A transaction that takes the write lock at its start (``BEGIN IMMEDIATE``, so two writers
    wait rather than deadlock): all of the block lands, or none of it. ``refused`` turns a lock
    that cannot be taken (busy, read-only) into the caller's error."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if refused is None:
            raise
        raise refused(exc) from exc
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
