"""Line history: which commit last touched each line, and the recency and churn of a line span.

``git blame --incremental`` prints groups of lines: ``<sha> <orig-line> <final-line> <count>``,
then header lines, then ``filename <path>``, which closes the group. The headers (author, mail,
time, summary, ``previous`` or ``boundary``) appear only the first time a commit is seen; later
groups of the same commit carry only the sha line and ``filename``. The parser keeps the first
sighting of each commit and reuses it; each group becomes one ``BlameLine`` shared by its lines.

A symbol's recency is the newest commit on *any* of its lines and its churn the number of distinct
commits on its lines inside a window, so callers blame a file once and ask about many spans;
``blame_files`` blames many files, running the uncached ones in parallel.

Results are cached (see ``cache.py``) in memory and, when the repository has a ``.mnemo/``
directory, on disk. The key is not the blob id alone: the same content can carry different blame
(a commit amended or rebased, a revert to an earlier version, a working-tree edit committed as
is). It is the newest commit touching the path (``git rev-list -1 <rev> -- <path>``), which fixes
both the content and every step of history blame walks, plus the path; blame runs at that commit,
which gives the same answer as at ``<rev>`` (blame passes unchanged files to the parent, as
rev-list's history simplification does). That commit is itself remembered per (commit, path), in
memory and on disk beside the blames (a full sha's history is fixed; a shallow clone's is not, so
there it stays in memory), so a repeated question about a full sha starts no git process at all,
in a later process too: the base side of a change names the same commit every time it is asked
about, and finding a path's newest commit is a walk of its history (tens of milliseconds of git's
CPU per file on a large repository, more than the blame itself costs read back). A commit of one
parent that leaves the path as it was takes the parent's remembered answer (rev-list passes over
it to the parent), so after a commit only the paths it changed are walked. The working-tree version
is blamed through ``--contents -`` with exactly the bytes that were hashed for its key; its
uncommitted lines get git's all-zero "Not Committed Yet" commit, and so does every line of a file
HEAD does not have. Only blames without uncommitted lines are written to disk. Where the index
keeps a commit-graph of the repository (``vcs.commitgraph``), rev-list and blame read it: the same
answers, at a tenth of git's CPU on a long history.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from mnemo_core.errors import MnemoError
from mnemo_core.fsread import Refused, read_inside
from mnemo_core.memo import BoundedCache
from mnemo_core.statedir import own_subdir, state_dir
from mnemo_core.vcs.cache import TwoLevelCache
from mnemo_core.vcs.commitgraph import graph_in
from mnemo_core.vcs.git import GitError, decode_path, head_commit, is_shallow, run_git, unquote_path
from mnemo_core.vcs.history import CHURN_WINDOW_DAYS, DAY_S, UNCOMMITTED_SHA, CommitInfo
from mnemo_core.vcs.refs import resolve_ref

log = logging.getLogger(__name__)

CACHE_FORMAT = 1  # bump when the encoded shape changes; older files are then ignored
MEMORY_ENTRIES = 512  # files; a blame is a few KB, and a pull request rarely touches more
LAST_CHANGE_ENTRIES = 16_384  # (commit, path) -> sha strings: tiny, and one saves a git process each
DISK_BLAMES = 8_192  # blame files kept on disk: a few KB each, tens of MB at most for large files
DISK_LAST_CHANGES = 65_536  # newest-commit files on disk: under 200 bytes of JSON each
BLAME_WORKERS = min(8, os.cpu_count() or 1)  # blame is one single-threaded process per file
_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
CACHE_SUBDIR = "blame"  # in mnemo's state directory
LAST_CHANGE_SUBDIR = "lastchange"  # beside it: (commit, path) -> the newest commit touching the path
NOT_COMMITTED_AUTHOR = "Not Committed Yet"
NOT_COMMITTED_EMAIL = "not.committed.yet"


class BlameLine(NamedTuple):
    """The commit that last touched a line, and the file's path in that commit."""

    commit: CommitInfo
    path: str
    boundary: bool  # a root commit, or the edge of a shallow clone: blame stopped there
    previous: str | None  # the parent holding the earlier version of these lines


Blame = tuple[BlameLine, ...]


def blame_lines(
    root: Path, path: str, rev: str | None = None, *, disk_cache: bool = True, since: int | None = None
) -> Blame:
    """Per line of ``path`` (index 0 is line 1): the commit that last touched it.

    ``rev`` None blames the working-tree file, uncommitted lines included; otherwise the file as
    of that commit. ``since`` (Unix seconds) stops the walk at older commits: lines last changed
    before it are attributed to a boundary commit (``boundary`` True) — far cheaper on long
    histories when only recent changes matter. Results are cached (see the module docstring).
    """
    return _blame_one(root, path, rev, _commit_of(root, rev), _cache_dirs(root, disk_cache), since)


def blame_files(
    root: Path,
    paths: Iterable[str],
    rev: str | None = None,
    *,
    disk_cache: bool = True,
    since: int | None = None,
) -> dict[str, Blame]:
    """``blame_lines`` for several files: the revision is resolved once and the blames that are
    not cached run in parallel (each is one single-threaded git process). A path that cannot be
    blamed (absent at ``rev``, unreadable) is logged and left out."""
    wanted = list(dict.fromkeys(paths))
    sha, directory = _commit_of(root, rev), _cache_dirs(root, disk_cache)

    def one(path: str) -> Blame | None:
        try:
            return _blame_one(root, path, rev, sha, directory, since)
        except GitError as exc:
            log.info("no blame for %s: %s", path, exc)
            return None

    if len(wanted) > 1:
        with ThreadPoolExecutor(max_workers=min(len(wanted), BLAME_WORKERS)) as pool:
            results = list(pool.map(one, wanted))
    else:
        results = [one(path) for path in wanted]
    return {path: blame for path, blame in zip(wanted, results, strict=True) if blame is not None}


class _Disk(NamedTuple):
    """Where blames and the newest commits of paths persist (None: in memory only), and mnemo's
    commit-graph of the repository, which git reads to walk history (``vcs.commitgraph``)."""

    blames: Path | None
    last_changes: Path | None
    graph: Path | None = None


_MEMORY_ONLY = _Disk(None, None)


def _cache_dirs(root: Path, enabled: bool) -> _Disk:
    """Where blames of this repository persist: only when it has a state directory already; the
    newest commits of paths only outside a shallow clone (deepening it moves them)."""
    state = state_dir(root, create=False)
    if not state.is_dir():
        return _MEMORY_ONLY
    graph = graph_in(state)
    if not enabled:
        return _Disk(None, None, graph)
    try:
        blames = own_subdir(state, CACHE_SUBDIR)
        return _Disk(blames, None if is_shallow(root) else own_subdir(state, LAST_CHANGE_SUBDIR), graph)
    except (MnemoError, GitError) as exc:
        log.info("blames are not kept on disk: %s", exc)
        return _Disk(None, None, graph)


def _commit_of(root: Path, rev: str | None) -> str | None:
    """The commit to blame at (HEAD for the working tree; None before the first commit). A full sha
    is taken as it is: the caches then answer without starting git at all."""
    if rev is None:
        return head_commit(root)
    return rev.lower() if _FULL_SHA.fullmatch(rev) else resolve_ref(root, rev)


def _blame_one(
    root: Path, path: str, rev: str | None, sha: str | None, disk: _Disk, since: int | None = None
) -> Blame:
    limit = [f"--since=@{since}"] if since is not None else []
    suffix = f":since={since}" if since is not None else ""
    if rev is not None:
        last = _last_change(root, sha or "", path, disk)
        if not last:
            raise GitError(f"'{path}' does not exist at {rev}.")
        return _cached(
            f"{last}:{path}{suffix}",
            disk.blames,
            lambda: _run_blame(root, path, [*limit, last], None, disk.graph),
        )
    content = _worktree_bytes(root, path)
    last = _last_change(root, sha, path, disk) if sha else ""
    if not last:
        return _uncommitted(path, content)
    key = f"worktree:{last}:{_blob_id(content)}:{path}{suffix}"
    return _cached(
        key, disk.blames, lambda: _run_blame(root, path, [*limit, "--contents", "-"], content, disk.graph)
    )


def _cached(key: str, directory: Path | None, compute: Callable[[], Blame]) -> Blame:
    """The cached blame for ``key``, else ``compute()`` (kept; on disk only when fully committed)."""
    hit = _CACHE.get(key, directory)
    if hit is not None:
        return hit
    blame = compute()
    clean = not any(line.commit.uncommitted for line in blame)
    _CACHE.put(key, blame, directory if clean else None)
    return blame


def clear_blame_cache() -> None:
    """Forget the blames held in memory (for long-running processes and tests)."""
    _CACHE.clear()
    _LAST_CHANGE.clear()


def _last_change(root: Path, sha: str, path: str, disk: _Disk) -> str:
    """The newest commit reachable from ``sha`` that touched ``path``; '' when none did. Fixed for
    a given commit, so it is remembered (on disk too, where ``disk`` says)."""
    key = f"{sha}:{path}"
    directory = disk.last_changes
    last = _LAST_CHANGE.get(key, directory)
    if last is None:
        last = _from_parent(root, sha, path, disk)
        if last is None:
            found = run_git(root, "rev-list", "-1", sha, "--", f":(literal){path}", alternate=disk.graph)
            last = found.strip().decode()
        _LAST_CHANGE.put(key, last, directory)
    return last


class _Step(NamedTuple):
    """A commit's parents (as history walks see them: none at a shallow clone's edge) and, for a
    commit of one parent, the paths it changed."""

    parents: tuple[str, ...]
    touched: frozenset[str]


def _from_parent(root: Path, sha: str, path: str, disk: _Disk) -> str | None:
    """The newest commit touching ``path`` at ``sha``, read from its parent's kept answer when
    ``sha`` has one parent and leaves ``path`` as it was: ``rev-list -1 <sha> -- <path>`` passes
    over such a commit to its parent, so the answers are one (a commit made since the last question
    walks none of the paths it did not change). None where that cannot be told: a merge, a root
    commit, a path it changed, nothing kept of the parent."""
    step = _step_of(root, sha, disk.graph)
    if step is None or len(step.parents) != 1 or path in step.touched:
        return None
    return _LAST_CHANGE.get(f"{step.parents[0]}:{path}", disk.last_changes)


def _step_of(root: Path, sha: str, graph: Path | None) -> _Step | None:
    """``sha``'s parents and changed paths, asked of git once per process (two plumbing commands);
    None where git cannot tell (a parent missing from a shallow clone)."""
    key = (str(root), sha)
    with _STEPS_LOCK:  # the blames of one question ask of one commit from several threads
        known = _STEPS.get(key)
        if known is not None:
            return known[0]
        found: _Step | None = None
        listed = run_git(root, "rev-list", "--parents", "-n", "1", sha, alternate=graph)
        parents = tuple(listed.decode().split()[1:])
        if len(parents) == 1:
            try:
                names = run_git(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", parents[0], sha)
            except GitError as exc:
                log.info("no parent step for %s: %s", sha, exc)
            else:
                found = _Step(parents, frozenset(decode_path(n) for n in names.split(b"\0") if n))
        else:  # a root commit or a merge: no parent's answer is its own
            found = _Step(parents, frozenset())
        _STEPS.put(key, (found,))
        return found


def _run_blame(root: Path, path: str, args: list[str], stdin: bytes | None, graph: Path | None) -> Blame:
    """Blame with git; a working-tree file HEAD does not have (renamed, re-added) is all uncommitted."""
    try:
        out = run_git(root, "blame", "--incremental", *args, "--", path, input_bytes=stdin, alternate=graph)
    except GitError as exc:
        if stdin is not None and "no such path" in exc.stderr:
            return _uncommitted(path, stdin)
        raise
    return parse_incremental(out)


def _worktree_bytes(root: Path, path: str) -> bytes:
    try:
        return read_inside(root, path).data
    except Refused as exc:
        raise GitError(f"cannot read '{path}' in the working tree: {exc.reason}.") from exc
    except OSError as exc:
        raise GitError(f"cannot read '{path}' in the working tree: {exc.strerror}.") from exc


def _blob_id(content: bytes) -> str:
    """git's object id of ``content`` as a blob (SHA-1), computed without a subprocess."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _uncommitted(path: str, content: bytes) -> Blame:
    """Every line of a file git has no history for, attributed to the "Not Committed Yet" commit."""
    commit = CommitInfo(
        UNCOMMITTED_SHA,
        NOT_COMMITTED_AUTHOR,
        NOT_COMMITTED_EMAIL,
        int(time.time()),
        f"Version of {path} from {path}",
    )
    count = content.count(b"\n") + (0 if content.endswith(b"\n") or not content else 1)
    return (BlameLine(commit, path, False, None),) * count


def parse_incremental(data: bytes) -> Blame:
    """Parse ``git blame --incremental`` output into one record per final line."""
    try:
        return _parse_incremental(data)
    except (ValueError, KeyError) as exc:
        raise GitError(f"unexpected output from git blame --incremental: {exc}") from exc


def _parse_incremental(data: bytes) -> Blame:
    seen: dict[str, tuple[CommitInfo, bool, str | None]] = {}
    by_line: dict[int, BlameLine] = {}
    group: list[bytes] | None = None  # "<sha> <orig-line> <final-line> <count>" of the open group
    fields: dict[bytes, bytes] = {}
    for raw in data.split(b"\n"):
        if group is None:
            if raw:
                group, fields = raw.split(b" "), {}
            continue
        key, _, value = raw.partition(b" ")
        if key != b"filename":
            fields[key] = value
            continue
        sha, final, count = group[0].decode(), int(group[2]), int(group[3])
        if sha not in seen:
            seen[sha] = _commit(sha, fields)
        commit, boundary, previous = seen[sha]
        line = BlameLine(commit, unquote_path(value), boundary, previous)
        by_line.update(dict.fromkeys(range(final, final + count), line))
        group = None
    if sorted(by_line) != list(range(1, len(by_line) + 1)):
        raise ValueError("some lines were not attributed")
    return tuple(by_line[n] for n in range(1, len(by_line) + 1))


def _commit(sha: str, fields: dict[bytes, bytes]) -> tuple[CommitInfo, bool, str | None]:
    """A commit from the headers of its first group."""
    previous = fields.get(b"previous")
    email = _text(fields.get(b"author-mail", b"")).strip("<>")
    info = CommitInfo(
        sha,
        _text(fields.get(b"author", b"")),
        email,
        int(fields[b"author-time"]),
        _text(fields.get(b"summary", b"")),
    )
    return info, b"boundary" in fields, previous.split(b" ", 1)[0].decode() if previous else None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _in_ranges(blame: Sequence[BlameLine], ranges: Iterable[tuple[int, int]]) -> Iterator[CommitInfo]:
    """The commits of the lines inside 1-based inclusive ``ranges`` (clamped to the file)."""
    for start, end in ranges:
        for line in blame[max(start, 1) - 1 : max(end, 0)]:
            yield line.commit


def newest_commit_in_ranges(
    blame: Sequence[BlameLine], ranges: Iterable[tuple[int, int]]
) -> CommitInfo | None:
    """The newest commit (by author time) touching any line of ``ranges``; None if they hold no line.

    Uncommitted lines count as newest: git stamps them with the time of the blame.
    """
    return max(_in_ranges(blame, ranges), key=lambda commit: commit.time, default=None)


def churn_in_ranges(
    blame: Sequence[BlameLine],
    ranges: Iterable[tuple[int, int]],
    now: float,
    window_days: int = CHURN_WINDOW_DAYS,
) -> int:
    """Distinct commits, not counting uncommitted edits, on lines of ``ranges`` authored in the
    ``window_days`` before ``now``."""
    cutoff = now - window_days * DAY_S
    return len({c.sha for c in _in_ranges(blame, ranges) if not c.uncommitted and c.time >= cutoff})


def times_in_ranges(blame: Sequence[BlameLine], ranges: Iterable[tuple[int, int]]) -> set[int]:
    """The author times of the commits on lines of ``ranges`` (uncommitted edits left out): what
    :func:`churn_in_ranges` counts by its window."""
    return {c.time for c in _in_ranges(blame, ranges) if not c.uncommitted}


def _encode(blame: Blame) -> object:
    """Run-length form: distinct records once, then ``[record index, line count]`` runs."""
    records: dict[BlameLine, int] = {}
    runs: list[list[int]] = []
    for line in blame:
        index = records.setdefault(line, len(records))
        if runs and runs[-1][0] == index:
            runs[-1][1] += 1
        else:
            runs.append([index, 1])
    table = [
        [c.sha, c.author, c.author_email, c.time, c.summary, line.path, line.boundary, line.previous]
        for line, c in ((line, line.commit) for line in records)
    ]
    return {"records": table, "runs": runs}


def _decode(value: object) -> Blame:
    if not isinstance(value, dict):
        raise TypeError("a cached blame is a JSON object")
    lines = [
        BlameLine(CommitInfo(sha, author, email, int(when), summary), path, bool(boundary), previous)
        for sha, author, email, when, summary, path, boundary, previous in value["records"]
    ]
    return tuple(line for index, count in value["runs"] for line in (lines[index],) * count)


_CACHE: TwoLevelCache[Blame] = TwoLevelCache(CACHE_FORMAT, _encode, _decode, MEMORY_ENTRIES, DISK_BLAMES)
STEPS_REMEMBERED = 64  # commits whose parents and changed paths are known (a question asks of one or two)
_STEPS: BoundedCache[tuple[str, str], tuple[_Step | None]] = BoundedCache(STEPS_REMEMBERED)
_STEPS_LOCK = threading.Lock()
_LAST_CHANGE: TwoLevelCache[str] = TwoLevelCache(
    CACHE_FORMAT, str, str, LAST_CHANGE_ENTRIES, DISK_LAST_CHANGES
)
