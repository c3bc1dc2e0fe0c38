from __future__ import annotations

import numpy as np
import pytest

from bench.quality.learn import TaskTable, _table, _tuning, fit, objective, task_scores

NAMES = ("good", "noise")


def row(truth: list[str], candidates: list[tuple[str, float, float]]) -> dict[str, object]:
    return {
        "id": "t",
        "truth": truth,
        "candidates": [
            {"key": key, "components": {"good": good, "noise": noise}, "multipliers": {}}
            for key, good, noise in candidates
        ],
    }


def test_task_scores_count_recall_at_ten_and_the_first_rank() -> None:
    table = _table(
        row(["a", "b", "missing"], [("x", 0.0, 0.9), ("a", 1.0, 0.0), ("y", 0.0, 0.5), ("b", 0.5, 0.0)]),
        NAMES,
    )
    assert task_scores(table, np.array([1.0, 0.0])) == (pytest.approx(2 / 3), 1.0)
    assert task_scores(table, np.array([0.0, 1.0]))[1] == pytest.approx(1 / 3)  # noise first: a at 3


def test_fit_moves_the_weight_to_the_signal_and_never_lowers_the_objective() -> None:
    rng = np.random.default_rng(0)
    tables: list[TaskTable] = []
    for _ in range(20):
        keys = [f"k{i}" for i in range(30)]
        good = rng.random(30) * 0.5
        good[3] = 0.9  # the ground truth has the best "good" value ...
        noise = rng.random(30)  # ... and "noise" knows nothing
        tables.append(_table(row(["k3"], list(zip(keys, good, noise, strict=True))), NAMES))
    groups = {"one": tables[:10], "two": tables[10:]}
    start = np.array([0.1, 1.0])
    learned = fit(groups, start, NAMES)
    assert objective(groups, learned) >= objective(groups, start)
    assert objective(groups, learned) == pytest.approx(1.0)
    assert learned[0] > 0 and learned[0] > learned[1]


def test_held_out_repositories_are_never_learned_from() -> None:
    with pytest.raises(SystemExit, match="held out"):
        _tuning("httpx")
    assert [r.name for r in _tuning("tuning")] == ["pytest", "black", "attrs", "click", "werkzeug"]
