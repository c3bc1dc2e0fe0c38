"""Commits as a reader sees them, and their dates in words.

``CommitInfo`` is what blame and the commit memory report about a commit. Times are Unix seconds;
``relative_date`` renders them for people the way git does ("3 days ago", "2 months ago",
"1 year, 2 months ago").
"""

from __future__ import annotations

from dataclasses import dataclass

CHURN_WINDOW_DAYS = 90  # one quarter: long enough to see a hot spot, short enough to forget old ones
DAY_S = 86_400
UNCOMMITTED_SHA = "0" * 40
JUST_NOW_S = 60  # under a minute a count of seconds is noise to a reader
# (below this age, count in units of, unit), as in git's show_date_relative
_UNITS = (
    (90 * 60, 60, "minute"),
    (36 * 3600, 3600, "hour"),
    (14 * DAY_S, DAY_S, "day"),
    (70 * DAY_S, 7 * DAY_S, "week"),
)
MONTH_DAYS = 30
YEAR_DAYS = 365
MONTHS_SHOWN_BELOW_YEARS = 5  # "1 year, 2 months" is useful; "7 years, 2 months" is not


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
