"""Tests for mnemo_core/vcs/history.py: the one-pass file history and relative dates."""

from __future__ import annotations

from datetime import datetime

import pytest

from mnemo_core.vcs.history import relative_date

NOW = datetime.fromisoformat("2026-04-01T00:00:00+00:00").timestamp()
DAY = 86400


@pytest.mark.parametrize(
    ("age", "text"),
    [
        (-5, "in the future"),
        (0, "just now"),
        (59, "just now"),
        (60, "1 minute ago"),
        (45 * 60, "45 minutes ago"),
        (2 * 3600, "2 hours ago"),
        (35 * 3600, "35 hours ago"),
        (3 * DAY, "3 days ago"),
        (13 * DAY, "13 days ago"),
        (15 * DAY, "2 weeks ago"),
        (69 * DAY, "10 weeks ago"),
        (75 * DAY, "3 months ago"),
        (200 * DAY, "7 months ago"),
        (365 * DAY, "1 year ago"),
        (430 * DAY, "1 year, 2 months ago"),
        (2 * 365 * DAY + 31 * DAY, "2 years, 1 month ago"),
        (7 * 365 * DAY + 100 * DAY, "7 years ago"),
    ],
)
def test_relative_date(age: int, text: str) -> None:
    assert relative_date(NOW - age, NOW) == text
