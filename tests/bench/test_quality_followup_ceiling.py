"""The reorderings the follow-up ceiling measures: what a memory of the previous task can do to a ranking."""

from __future__ import annotations

from bench.quality.followup import Pair
from bench.quality.followup_ceiling import REORDERINGS, agreement, best_boost, boosted
from bench.quality.mining import Task

RANKED = ["a.py:f", "b.py:g", "c.py:h", "b.py:k", "a.py:m", "d.py:n"]


def pair(previous: tuple[str, ...], truth: tuple[str, ...], follow_up: bool) -> Pair:
    return Pair(
        Task("p", "pp", 2, "s", "previous", previous), Task("t", "p", 1, "s", "task", truth), follow_up
    )


def test_files_first_and_previous_functions_first_keep_the_task_s_order_within_each_part() -> None:
    p = pair(("b.py:k", "c.py:old"), ("b.py:k",), True)
    assert REORDERINGS["files-first"](RANKED, p) == [
        "b.py:g",
        "c.py:h",
        "b.py:k",
        "a.py:f",
        "a.py:m",
        "d.py:n",
    ]
    assert REORDERINGS["prev-first"](RANKED, p) == ["b.py:k", *[k for k in RANKED if k != "b.py:k"]]
    assert REORDERINGS["prev, then files"](RANKED, p)[:3] == ["b.py:k", "b.py:g", "c.py:h"]
    assert agreement(RANKED, p) == 3


def test_a_boost_moves_a_candidate_up_by_places_not_to_the_top() -> None:
    """Four places up from sixth: third, after the one it ties with (ties keep the task's order)."""
    p = pair(("d.py:x",), ("d.py:n",), True)
    assert boosted(RANKED, p, 4, 0) == ["a.py:f", "b.py:g", "d.py:n", "c.py:h", "b.py:k", "a.py:m"]
    assert boosted(RANKED, p, 0, 0) == RANKED


def test_the_best_boost_may_not_cost_unrelated_tasks_more_than_the_floor() -> None:
    """Boosting the previous task's file finds the follow-up's answer, but the same boost pushes an
    unrelated task's answer out of its top 10: the gate that lets every task through gets no boost."""
    long = [f"x{i}.py:f" for i in range(20)]
    follow = pair(("x15.py:old",), ("x15.py:f",), True)
    unrelated = pair(("x12.py:old",), ("x9.py:f",), False)
    measured = [(follow, long), (unrelated, long)]
    assert best_boost(measured, lambda ranked, p: p.follow_up) == ([1.0], [1.0], (8, 0))
    assert best_boost(measured, lambda ranked, p: True) == ([0.0], [1.0], (0, 0))
