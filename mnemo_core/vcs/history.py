"""File history: when each file last changed and how often it changed lately, from one ``git log``.

A single ``git log --name-only -z --no-renames --no-merges`` pass streams every commit with the
paths it touched; each record starts with a 0x1e byte and carries sha, author, email, author time
and subject separated by 0x1f, the subject last so it may hold anything. Per path the newest
commit (by author time, which is what ``git log`` and ``blame`` show a reader) is kept, and the
distinct commits inside a recent window are counted. Renames are not followed, so a renamed file's
history starts at the rename; merges are skipped because ``--name-only`` lists nothing for them
and their content changes are already attributed to the commits they merge.

Times are Unix seconds. ``relative_date`` renders them for people the way git does
("3 days ago", "2 months ago", "1 year, 2 months ago").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from mnemo_core.vcs.git import decode_path, head_commit, require_toplevel, run_git
from mnemo_core.vcs.refs import resolve_ref

CHURN_WINDOW_DAYS = 90  # one quarter: long enough to see a hot spot, short enough to forget old ones
DAY_S = 86_400
UNCOMMITTED_SHA = "0" * 40
JUST_NOW_S = 60  # under a minute a count of seconds is noise to a reader
# (below this age, count in units of, unit), as in git's show_date_relative
_UNITS = ((90 * 60, 60, "minute"), (36 * 3600, 3600, "hour"), (14 * DAY_S, DAY_S, "day"),
          (70 * DAY_S, 7 * DAY_S, "week"))
MONTH_DAYS = 30
YEAR_DAYS = 365
MONTHS_SHOWN_BELOW_YEARS = 5  # "1 year, 2 months" is useful; "7 years, 2 months" is not
_RECORD = b"\x1e"
_FIELD = b"\x1f"
_LOG_FORMAT = "%x1e%H%x1f%aN%x1f%aE%x1f%at%x1f%s"


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """A commit as a reader sees it: sha, author, author time (Unix seconds) and subject."""

    sha: str
    author: str
    author_email: str
    time: int
    summary: str

    @property
    def uncommitted(self) -> bool:
        """The pseudo-commit git blame uses for lines not committed yet."""
        return self.sha == UNCOMMITTED_SHA


class FileHistory(NamedTuple):
    """One path's newest commit and the number of distinct commits in the recent window."""

    last: CommitInfo
    recent_commits: int


def file_history(root: Path, rev: str = "HEAD", *, max_commits: int | None = None, since: str | None = None,
                 now: float | None = None, window_days: int = CHURN_WINDOW_DAYS) -> dict[str, FileHistory]:
    """Per repo-relative path: its newest commit reachable from ``rev`` and its commits in the last
    ``window_days`` before ``now`` (default: the current time). ``max_commits`` and ``since`` (any
    date ``git log --since`` accepts) bound the walk; paths untouched inside it are absent. An
    empty repository has no history: the result is empty.
    """
    if rev == "HEAD" and head_commit(root) is None:
        require_toplevel(root)
        return {}
    args = ["log", "-z", "--name-only", "--no-renames", "--no-merges", "--no-show-signature",
            "--no-relative", f"--format={_LOG_FORMAT}"]
    if max_commits is not None:
        args.append(f"--max-count={max_commits}")
    if since is not None:
        args.append(f"--since={since}")
    commits = parse_log(run_git(root, *args, resolve_ref(root, rev), "--"))
    return summarise(commits, time.time() if now is None else now, window_days)


def parse_log(data: bytes) -> list[tuple[CommitInfo, list[str]]]:
    """Commits and the paths each touched, from ``git log -z --name-only --format=<_LOG_FORMAT>``."""
    commits = []
    for record in data.split(_RECORD)[1:]:
        header, _, names = record.partition(b"\0")
        sha, author, email, when, subject = header.split(_FIELD, 4)
        names = names[1:] if names.startswith(b"\n") else names
        paths = [decode_path(p) for p in names.split(b"\0") if p]
        commits.append((CommitInfo(sha.decode(), _text(author), _text(email), int(when), _text(subject)),
                        paths))
    return commits


def summarise(commits: list[tuple[CommitInfo, list[str]]], now: float,
              window_days: int = CHURN_WINDOW_DAYS) -> dict[str, FileHistory]:
    """Newest commit and recent-commit count per path (ties on time keep the first listed)."""
    cutoff = now - window_days * DAY_S
    newest: dict[str, CommitInfo] = {}
    recent: dict[str, set[str]] = {}
    for commit, paths in commits:
        for path in paths:
            if path not in newest or commit.time > newest[path].time:
                newest[path] = commit
            if commit.time >= cutoff:
                recent.setdefault(path, set()).add(commit.sha)
    return {path: FileHistory(commit, len(recent.get(path, ()))) for path, commit in newest.items()}


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def relative_date(then: float, now: float) -> str:
    """``then`` relative to ``now`` for a reader: "just now", "3 days ago", "1 year, 2 months ago"."""
    age = now - then
    if age < 0:
        return "in the future"
    if age < JUST_NOW_S:
        return "just now"
    for limit, size, unit in _UNITS:
        if age < limit:
            return _ago(_round(age / size), unit)
    days = _round(age / DAY_S)
    if days < YEAR_DAYS:
        return _ago(_round(days / MONTH_DAYS), "month")
    if days >= MONTHS_SHOWN_BELOW_YEARS * YEAR_DAYS:
        return _ago(_round(days / YEAR_DAYS), "year")
    years, months = divmod(_round(days * 12 / YEAR_DAYS), 12)
    return f"{_count(years, 'year')}, {_ago(months, 'month')}" if months else _ago(years, "year")


def _round(x: float) -> int:
    """Half up, as git rounds ages (Python's round() goes to even)."""
    return int(x + 0.5)


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _ago(n: int, unit: str) -> str:
    return f"{_count(n, unit)} ago"
