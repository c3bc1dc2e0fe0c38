"""The coverage map: which lines of which file each test ran, at one commit, in one SQLite file.

The map lives in mnemo's state directory (``coverage-map.db``) and is written only by mnemo (the
pytest plugin ``--mnemo-record`` and ``mnemo coverage merge``). Rows are per test and per file: the
set of line numbers the test ran there (its setup, call and teardown), as the file was at the map's
commit; lines that ran in a working-tree version differing from that commit are carried to it
before they are stored (``covmap.record``). Each test also keeps its last outcome and when it last
failed, for the ordering of a selection.

A full run replaces every row (``replace=True``); a run of some tests replaces only those tests'
rows, so the map stays whole as long as its last full run. The file is bounded: a write that would
make it larger than ``MAX_MAP_BYTES`` is refused with one line, and a reader opens at most that
much, read-only. To the change pipeline the map looks like a coverage.py data file with per-test
contexts (``measured_files``, ``measured_contexts``, ``contexts_by_lineno``), the context of a test
being its pytest node id.
"""

from __future__ import annotations

import sqlite3
import time
import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.sqlitetx import immediate
from mnemo_core.statedir import own_database, state_dir

MAP_NAME = "coverage-map.db"
FORMAT = "1"  # the map's own format version: a map of another is replaced on the next full run
MAX_MAP_BYTES = 512 << 20  # tens of thousands of tests with their line sets stay far below this
BUSY_TIMEOUT_S = 30.0  # xdist controllers and CI shards may finish at the same time
LINE_TYPE = "I"  # unsigned 32-bit line numbers

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tests(
    id INTEGER PRIMARY KEY, nodeid TEXT UNIQUE NOT NULL, outcome TEXT NOT NULL,
    recorded INTEGER NOT NULL, failed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS lines(
    test INTEGER NOT NULL, file INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(test, file)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lines_file ON lines(file);
"""


@dataclass(frozen=True, slots=True)
class RecordedTest:
    """What one test ran: its outcome (``passed``, ``failed``, ``skipped``), when it ran (unix
    seconds), when it last failed (0: never, as far as the map knows) and its lines per file."""

    nodeid: str
    outcome: str
    files: Mapping[str, frozenset[int]] = field(default_factory=dict)
    recorded: int = 0
    failed: int = 0


def map_path(root: Path, create: bool = False) -> Path:
    """Where the coverage map of the repository at ``root`` lives (it may not exist) in mnemo's
    state directory (created with ``create``); a link or anything but a regular file there is refused."""
    return own_database(state_dir(root, create) / MAP_NAME)


def encode_lines(lines: Iterable[int]) -> bytes:
    """A set of line numbers as stored: sorted, 32-bit, compressed."""
    return zlib.compress(array(LINE_TYPE, sorted(lines)).tobytes())


def decode_lines(data: bytes) -> frozenset[int]:
    """The line numbers ``encode_lines`` stored."""
    found = array(LINE_TYPE)
    found.frombytes(zlib.decompress(data))
    return frozenset(found)


class CoverageMap:
    """An open coverage map (see the module). Open it with :func:`open_map` or :func:`reading`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path
        self._files: dict[str, int] | None = None
        self._contexts: dict[int, str] | None = None

    @property
    def commit(self) -> str | None:
        """The commit the map's lines are numbered at (None for an empty map)."""
        return self._meta("commit")

    @property
    def complete(self) -> bool:
        """Whether a full run of the suite made the map (later runs of some tests only updated it):
        a test it does not name was added since, or is not collected."""
        return self._meta("complete") == "1"

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def test_count(self) -> int:
        """How many tests the map has."""
        return int(self.conn.execute("SELECT count(*) FROM tests").fetchone()[0])

    # -- what the change pipeline reads (the part of coverage.py's CoverageData it uses) --------
    def measured_files(self) -> set[str]:
        """The repository-relative paths the map has lines of."""
        return set(self._file_ids())

    def measured_contexts(self) -> set[str]:
        """The node ids of the tests the map has."""
        return set(self._test_ids().values())

    def contexts_by_lineno(self, path: str) -> dict[int, list[str]]:
        """For each line of ``path``, the node ids of the tests that ran it."""
        file_id = self._file_ids().get(path)
        if file_id is None:
            return {}
        names = self._test_ids()
        found: dict[int, list[str]] = {}
        for test, data in self.conn.execute("SELECT test, data FROM lines WHERE file = ?", (file_id,)):
            for line in decode_lines(data):
                found.setdefault(line, []).append(names[test])
        return found

    def tests_in_file(self, path: str) -> set[str]:
        """The node ids of the tests that ran any line of ``path`` (or imported nothing but it)."""
        file_id = self._file_ids().get(path)
        if file_id is None:
            return set()
        names = self._test_ids()
        rows = self.conn.execute("SELECT test FROM lines WHERE file = ?", (file_id,))
        return {names[r[0]] for r in rows}

    def failures(self) -> dict[str, int]:
        """When each test that failed last failed (unix seconds), by node id."""
        rows = self.conn.execute("SELECT nodeid, failed FROM tests WHERE failed > 0")
        return {str(nodeid): int(failed) for nodeid, failed in rows}

    def runs(self) -> Iterator[RecordedTest]:
        """Every test of the map with its lines."""
        paths = {i: p for p, i in self._file_ids().items()}
        for test, nodeid, outcome, recorded, failed in self.conn.execute(
            "SELECT id, nodeid, outcome, recorded, failed FROM tests ORDER BY id"
        ):
            files = {
                paths[f]: decode_lines(d)
                for f, d in self.conn.execute("SELECT file, data FROM lines WHERE test = ?", (test,))
            }
            yield RecordedTest(nodeid, outcome, files, recorded, failed)

    def _file_ids(self) -> dict[str, int]:
        if self._files is None:
            self._files = {str(p): int(i) for i, p in self.conn.execute("SELECT id, path FROM files")}
        return self._files

    def _test_ids(self) -> dict[int, str]:
        if self._contexts is None:
            self._contexts = {int(i): str(n) for i, n in self.conn.execute("SELECT id, nodeid FROM tests")}
        return self._contexts

    # -- writing ---------------------------------------------------------------------------------
    def write(
        self, commit: str, runs: Iterable[RecordedTest], replace: bool, newer_only: bool = False
    ) -> int:
        """Store ``runs`` (numbered at ``commit``, the map's commit unless ``replace``): all the
        rows when ``replace``, else those of these tests only, and with ``newer_only`` only where
        the map's row of the test was recorded earlier. Returns how many tests were written."""
        if newer_only:
            recorded = dict(self.conn.execute("SELECT nodeid, recorded FROM tests").fetchall())
            runs = [r for r in runs if r.recorded >= recorded.get(r.nodeid, 0)]
        rows = [(r, {p: encode_lines(ls) for p, ls in r.files.items()}) for r in runs]
        size = sum(len(d) + len(p) for _, files in rows for p, d in files.items())
        if size > MAX_MAP_BYTES:
            raise MnemoError(
                f"the coverage map would hold {size} bytes of lines, more than the {MAX_MAP_BYTES} kept; "
                "record a part of the suite"
            )
        if not replace and self.commit not in (None, commit):
            raise MnemoError(f"the rows are numbered at {commit[:10]}, the map at {self.commit}")
        now = int(time.time())
        with self._transaction():
            if replace:
                for table in ("lines", "tests", "files"):
                    self.conn.execute(f"DELETE FROM {table}")
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('commit', ?), ('format', ?)", (commit, FORMAT)
            )
            if replace:
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")
            for run, files in rows:
                self._write_run(run, files, now)
        self._files = self._contexts = None
        return len(rows)

    def _write_run(self, run: RecordedTest, files: dict[str, bytes], now: int) -> None:
        before = self.conn.execute("SELECT id, failed FROM tests WHERE nodeid = ?", (run.nodeid,)).fetchone()
        failed = max(
            run.failed, before[1] if before else 0, (run.recorded or now) if run.outcome == "failed" else 0
        )
        if before is not None:
            self.conn.execute("DELETE FROM lines WHERE test = ?", (before[0],))
            self.conn.execute("DELETE FROM tests WHERE id = ?", (before[0],))
        test = self.conn.execute(
            "INSERT INTO tests(nodeid, outcome, recorded, failed) VALUES (?, ?, ?, ?)",
            (run.nodeid, run.outcome, run.recorded or now, failed),
        ).lastrowid
        for path, data in files.items():
            self.conn.execute("INSERT OR IGNORE INTO files(path) VALUES (?)", (path,))
            file_id = self.conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()[0]
            self.conn.execute("INSERT INTO lines VALUES (?, ?, ?)", (test, file_id, data))

    def _transaction(self) -> AbstractContextManager[None]:
        return immediate(self.conn)


@contextmanager
def open_map(path: Path) -> Iterator[CoverageMap]:
    """The map at ``path`` for writing, created when missing; a file that is not a map of this
    format is started afresh."""
    try:
        with closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)) as conn:
            conn.executescript(_SCHEMA)
            opened = CoverageMap(conn, path)
            if opened._meta("format") not in (None, FORMAT):
                conn.executescript(
                    "DELETE FROM lines; DELETE FROM tests; DELETE FROM files; DELETE FROM meta;"
                )
            yield opened
    except sqlite3.Error as exc:
        raise MnemoError(f"cannot write the coverage map {path}: {exc}") from exc


@contextmanager
def reading(path: Path) -> Iterator[CoverageMap]:
    """The map at ``path``, read-only; a MnemoError when it is missing, too big or not a map."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MnemoError(f"cannot read the coverage map {path}: {exc.strerror}") from exc
    if not path.is_file() or size > MAX_MAP_BYTES:
        raise MnemoError(f"{path} is not a coverage map of at most {MAX_MAP_BYTES} bytes")
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)) as conn:
            opened = CoverageMap(conn, path)
            if opened._meta("format") != FORMAT or opened.commit is None:
                raise MnemoError(f"{path} is not a coverage map of this version of mnemo; record it again")
            yield opened
    except sqlite3.Error as exc:
        raise MnemoError(f"{path} is not a coverage map ({exc})") from exc


def map_facts(path: Path) -> dict[str, object]:
    """What the map at ``path`` holds: its commit, tests, files, failed tests and size (a missing map:
    no commit, no tests)."""
    facts: dict[str, object] = {"map": str(path), "commit": None, "tests": 0}
    if path.exists():
        with reading(path) as coverage_map:
            facts |= {
                "commit": coverage_map.commit,
                "tests": coverage_map.test_count(),
                "files": len(coverage_map.measured_files()),
                "failed": len(coverage_map.failures()),
                "bytes": path.stat().st_size,
            }
    return facts
