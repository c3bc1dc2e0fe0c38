"""Commit memory: the commits remembered with their messages and files, what each changed
(cached on first ask), and each file's commit history."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mnemo_core.index.store.schema import (
    BUSY_TIMEOUT_S,
    chunks,
    transaction,
)
from mnemo_core.index.store.search import Search
from mnemo_core.vcs.changes import LoggedCommit

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PastCommit:
    """A remembered commit found by the similarity of its message, and its BM25 score."""

    sha: str
    time: int
    subject: str
    score: float


@dataclass(frozen=True, slots=True)
class FileCommits:
    """A file's newest remembered commit, and the number of remembered commits since a date."""

    sha: str
    time: int
    author: str
    subject: str
    recent: int


class Commits(Search):
    """Commit memory: past commits, what each changed, and each file's history."""

    # -- history ----------------------------------------------------------------------------
    def add_commits(self, commits: Iterable[LoggedCommit], below: bool = False) -> None:
        """Remember past commits (oldest first, so ids grow with time); ``below``: older than every
        remembered one, so their ids go below the remembered ones'."""
        ordered = reversed(list(commits)) if below else commits
        lowest = self.conn.execute("SELECT coalesce(min(id), 1) FROM commits").fetchone()[0]
        for commit in ordered:
            if below:
                lowest -= 1
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO commits(id, sha, time, author, subject) VALUES (?,?,?,?,?)",
                (lowest if below else None, commit.sha, commit.time, commit.author, commit.subject),
            )
            if cur.rowcount:
                self.conn.execute(
                    "INSERT INTO commits_fts(rowid, message) VALUES (?,?)", (cur.lastrowid, commit.message)
                )
                self.conn.executemany(
                    "INSERT INTO commit_files VALUES (?,?)", [(cur.lastrowid, path) for path in commit.paths]
                )

    def forget_commits(self, keep: int | None = None) -> None:
        """Forget every remembered commit but the newest ``keep`` (all of them for None)."""
        newest = f"SELECT id FROM commits ORDER BY time DESC, id DESC LIMIT {int(keep or 0)}"
        where = "" if keep is None else f"WHERE id NOT IN ({newest})"
        for table, column in (("commits_fts", "rowid"), ("commit_files", "commit_id")):
            self.conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT id FROM commits {where})")
        self.conn.execute(f"DELETE FROM commits {where}")

    def commit_shas(self) -> frozenset[str]:
        """The shas of the remembered commits."""
        return frozenset(sha for (sha,) in self.conn.execute("SELECT sha FROM commits"))

    def forget_commits_but(self, keep: frozenset[str]) -> None:
        """Forget every remembered commit whose sha is not in ``keep``."""
        gone = [cid for cid, sha in self.conn.execute("SELECT id, sha FROM commits") if sha not in keep]
        for chunk in chunks(gone):
            marks = ",".join("?" * len(chunk))
            for table, column in (("commits_fts", "rowid"), ("commit_files", "commit_id"), ("commits", "id")):
                self.conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)

    def similar_commits(self, match: str, limit: int) -> list[PastCommit]:
        """Remembered commits whose messages match an FTS5 expression, best BM25 first."""
        hits = self._bm25("commits_fts", "1.0", match, limit)
        marks = ",".join("?" * len(hits))
        found = {
            commit: (sha, time, subject)
            for commit, sha, time, subject in self.conn.execute(
                f"SELECT id, sha, time, subject FROM commits WHERE id IN ({marks})",
                [c for c, _ in hits],
            )
        }
        return [PastCommit(*found[c], score) for c, score in hits if c in found]

    def commit_targets(self, shas: Sequence[str]) -> dict[str, tuple[tuple[str, str], ...]]:
        """The functions each remembered commit changed, where they were asked before."""
        marks = ",".join("?" * len(shas))
        rows = self.conn.execute(
            f"SELECT sha, targets FROM commits WHERE targets IS NOT NULL AND sha IN ({marks})", list(shas)
        )
        return {sha: tuple((p, n) for p, n in json.loads(targets)) for sha, targets in rows}

    def save_commit_targets(self, found: dict[str, tuple[tuple[str, str], ...]]) -> None:
        """Remember what ``commit_targets`` did not know, if the index can be written right now: a
        cache, so a busy or read-only index just goes without."""
        if self.read_only or not found:
            return
        try:
            self.conn.execute("PRAGMA busy_timeout=0")
            with transaction(self.conn):
                self.conn.executemany(
                    "UPDATE commits SET targets=? WHERE sha=?",
                    [(json.dumps(t), sha) for sha, t in found.items()],
                )
        except sqlite3.Error as exc:
            log.info("commit targets not cached: %s", exc)
        finally:
            self.conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")

    def file_commits(self, paths: Iterable[str], since: int) -> dict[str, FileCommits]:
        """Per path, its newest remembered commit and how many remembered commits touched it
        since ``since`` (Unix seconds)."""
        out: dict[str, FileCommits] = {}
        for chunk in chunks(list(dict.fromkeys(paths))):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT cf.path, c.sha, c.time, c.author, c.subject,"
                " (SELECT count(*) FROM commit_files x JOIN commits y ON y.id = x.commit_id"
                "  WHERE x.path = cf.path AND y.time >= ?)"
                f" FROM commit_files cf JOIN commits c ON c.id = cf.commit_id WHERE cf.path IN ({marks})"
                " AND c.id = (SELECT max(commit_id) FROM commit_files WHERE path = cf.path)",
                (since, *chunk),
            )
            out.update(
                (path, FileCommits(sha, int(time), author, subject, int(recent)))
                for path, sha, time, author, subject, recent in rows
            )
        return out

    def newest_commit_time(self) -> int | None:
        """The author time of the newest remembered commit."""
        row = self.conn.execute("SELECT max(time) FROM commits").fetchone()
        return int(row[0]) if row and row[0] is not None else None
