"""The follow-up benchmark's pairing: a task's predecessor is the latest earlier task sharing a file."""

from __future__ import annotations

from bench.quality.followup import pairs
from bench.quality.mining import Task


def _task(sha: str, position: int, *truth: str) -> Task:
    return Task(sha, f"{sha}^", position, sha, f"task {sha}", truth)


def test_pairs_follow_ups_with_the_latest_earlier_task_on_a_same_file() -> None:
    a = _task("a", 4, "x.py:f")
    b = _task("b", 3, "y.py:g")
    c = _task("c", 2, "x.py:h", "z.py:k")
    d = _task("d", 1, "w.py:m")
    found = [(p.previous.id, p.task.id, p.follow_up) for p in pairs([d, c, b, a])]  # any order in
    assert found == [("a", "b", False), ("a", "c", True), ("c", "d", False)]
