"""The memory file, ``.mnemo/memory.db``: session events, remembered tasks and what was said of
their symbols.

Its own SQLite file, not a table of the index: the index is rebuilt whenever its schema changes or
it is damaged, and memory must outlive that. Symbols are kept by ``(path, name, kind)``, which a
re-index keeps, not by id. Bounded: at most ``MAX_EVENTS`` events (and none older than the session
window) and ``MAX_TASKS`` tasks, the oldest dropped first. Every write is one transaction, so a
reader never sees half of it; SQLite's WAL lets the language server, the MCP server and the CLI
share the file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.retrieve.recall import SESSION_WINDOW_S, Event, RememberedTask
from mnemo_core.sqlitetx import immediate

FILE_NAME = "memory.db"
SCHEMA_VERSION = 1
MAX_EVENTS = 5000  # an hour of editing at more than one event a second
MAX_TASKS = 1000  # years of tasks; each keeps a handful of symbols
BUSY_TIMEOUT_S = 5.0
Key = tuple[str, str, str]  # (path, qualified name, kind)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, time REAL NOT NULL, kind TEXT NOT NULL,
    path TEXT NOT NULL, name TEXT NOT NULL, symbol_kind TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(id INTEGER PRIMARY KEY, time REAL NOT NULL, text TEXT NOT NULL,
    terms TEXT NOT NULL, head TEXT, open INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS verdicts(task_id INTEGER NOT NULL, path TEXT NOT NULL, name TEXT NOT NULL,
    kind TEXT NOT NULL, useful INTEGER NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY(task_id, path, name, kind));
CREATE INDEX IF NOT EXISTS tasks_open ON tasks(open, time)
"""


@dataclass(frozen=True, slots=True)
class OpenTask:
    """A task asked at a commit whose work has not landed yet."""

    id: int
    time: float
    text: str
    head: str


class MemoryStore:
    """One connection to a repository's memory file."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, directory: Path) -> MemoryStore:
        """Open (or create) the memory file in ``directory``; a damaged or foreign file is moved
        aside (``memory.db.damaged``) and a new one started: it holds nothing that cannot be said again."""
        path = directory / FILE_NAME
        try:
            return cls(_connect(path), path)
        except sqlite3.OperationalError:  # locked or unreadable: not ours to replace
            raise
        except sqlite3.DatabaseError:
            aside = f"{FILE_NAME}.damaged"  # kept, not deleted: the one before it is replaced
            for suffix in ("", "-wal", "-shm"):
                stale = path.with_name(FILE_NAME + suffix)
                if stale.exists():
                    os.replace(stale, path.with_name(aside + suffix))
            return cls(_connect(path), path)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def _write(self) -> AbstractContextManager[None]:
        return immediate(self.conn)

    # -- the session -----------------------------------------------------------------------------
    def add_events(self, events: Sequence[Event]) -> None:
        """Remember session events; forget those past the session window or the size bound."""
        if not events:
            return
        now = max(e.time for e in events)
        with self._write():
            self.conn.executemany(
                "INSERT INTO events(time, kind, path, name, symbol_kind) VALUES (?, ?, ?, ?, ?)",
                [(e.time, e.kind, e.path, e.name, e.symbol_kind) for e in events],
            )
            self.conn.execute("DELETE FROM events WHERE time < ?", (now - SESSION_WINDOW_S,))
            self.conn.execute(
                "DELETE FROM events WHERE id <= (SELECT max(id) FROM events) - ?", (MAX_EVENTS,)
            )

    def events(self, since: float) -> list[Event]:
        """The events at or after ``since``, oldest first."""
        rows = self.conn.execute(
            "SELECT time, kind, path, name, symbol_kind FROM events WHERE time >= ? ORDER BY id", (since,)
        )
        return [Event(*row) for row in rows]

    def last_event(self, kind: str, path: str, name: str, symbol_kind: str) -> float | None:
        """When the same event was last remembered (None: never)."""
        row = self.conn.execute(
            "SELECT max(time) FROM events WHERE kind = ? AND path = ? AND name = ? AND symbol_kind = ?",
            (kind, path, name, symbol_kind),
        ).fetchone()
        return float(row[0]) if row and row[0] is not None else None

    # -- tasks -----------------------------------------------------------------------------------
    def add_task(self, time: float, text: str, terms: Iterable[str], head: str | None, open_: bool) -> int:
        """Remember a task (``open_``: its work may still land in a commit after ``head``)."""
        with self._write():
            cursor = self.conn.execute(
                "INSERT INTO tasks(time, text, terms, head, open) VALUES (?, ?, ?, ?, ?)",
                (time, text, " ".join(sorted(terms)), head, int(open_)),
            )
            self._bound_tasks()
        return int(cursor.lastrowid or 0)

    def add_verdicts(self, task_id: int, used: Iterable[Key], useless: Iterable[Key], source: str) -> None:
        """What was useful and useless for a task (a later verdict on a symbol replaces an earlier)."""
        rows = [(task_id, *key, 1, source) for key in used] + [(task_id, *key, 0, source) for key in useless]
        with self._write():
            self.conn.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)", rows)

    def close_tasks(self, ids: Iterable[int]) -> None:
        """Mark tasks as landed (or given up): their work is looked for no longer."""
        with self._write():
            self.conn.executemany("UPDATE tasks SET open = 0 WHERE id = ?", [(i,) for i in ids])

    def open_tasks(self) -> list[OpenTask]:
        """Tasks whose work may still land, oldest first."""
        rows = self.conn.execute("SELECT id, time, text, head FROM tasks WHERE open = 1 ORDER BY time, id")
        return [OpenTask(int(i), float(t), text, head) for i, t, text, head in rows]

    def remembered(self) -> list[RememberedTask]:
        """Every task with a verdict on some symbol, with its verdicts."""
        tasks: dict[int, tuple[str, str]] = {
            int(i): (text, terms)
            for i, text, terms in self.conn.execute(
                "SELECT id, text, terms FROM tasks WHERE id IN (SELECT task_id FROM verdicts)"
            )
        }
        used: dict[int, set[Key]] = {i: set() for i in tasks}
        useless: dict[int, set[Key]] = {i: set() for i in tasks}
        sources: dict[int, str] = {}
        for task_id, path, name, kind, useful, source in self.conn.execute("SELECT * FROM verdicts"):
            (used if useful else useless)[task_id].add((path, name, kind))
            if source != "feedback" or task_id not in sources:
                sources[task_id] = source
        return [
            RememberedTask(
                text,
                frozenset(terms.split()),
                frozenset(used[i]),
                frozenset(useless[i]),
                sources.get(i, "feedback"),
            )
            for i, (text, terms) in tasks.items()
        ]

    def _bound_tasks(self) -> None:
        cutoff = self.conn.execute("SELECT max(id) - ? FROM tasks", (MAX_TASKS,)).fetchone()[0]
        if cutoff is not None and cutoff > 0:
            self.conn.execute("DELETE FROM verdicts WHERE task_id <= ?", (cutoff,))
            self.conn.execute("DELETE FROM tasks WHERE id <= ?", (cutoff,))


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"memory schema {version}, expected {SCHEMA_VERSION}")
        for statement in _SCHEMA.split(";"):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn
