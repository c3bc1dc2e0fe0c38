from __future__ import annotations

import numpy as np
import pytest

from bench.quality import learn
from bench.quality.learn import TaskTable, _table, _tuning, fit, objective, probe, task_scores

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


def _groups(signal_helps: bool) -> dict[str, list[TaskTable]]:
    """Three repositories whose tasks a 'good' weight of 1 ranks badly; 'noise' breaks the ties.
    Where the signal helps, the ground truth has the highest 'noise' value; elsewhere every candidate
    has the same, so no weight on it changes a ranking."""
    rng = np.random.default_rng(1)
    groups: dict[str, list[TaskTable]] = {}
    for name in ("one", "two", "three"):
        tables = []
        for _ in range(8):
            keys = [f"k{i}" for i in range(20)]
            good = np.full(20, 0.5)  # "good" says nothing here: every candidate ties
            noise = rng.random(20) * 0.5 if signal_helps else np.full(20, 0.3)
            if signal_helps:
                noise[7] = 1.0
            tables.append(_table(row(["k7"], list(zip(keys, good, noise, strict=True))), NAMES))
        groups[name] = tables
    return groups


def test_probe_weights_a_component_only_where_the_other_repositories_say_it_helps() -> None:
    start = np.array([1.0, 0.0])
    helps = probe(_groups(True), start, [1])
    assert all(m["weight 0"] > 0 and m["fold MRR"] == 1.0 for m in helps.values())
    assert all(m["start MRR"] < 1.0 for m in helps.values())
    useless = probe(_groups(False), start, [1])
    assert all(m["weight 0"] == 0.0 and m["fold MRR"] == m["start MRR"] for m in useless.values())


THREE = ("good", "noise", "extra")


def _three_groups(extra_helps: bool) -> dict[str, list[TaskTable]]:
    """Three repositories where 'good' puts the ground truth first, 'noise' is random, and 'extra'
    puts it first too when ``extra_helps`` (else it is random)."""
    rng = np.random.default_rng(2)
    groups: dict[str, list[TaskTable]] = {}
    for name in ("one", "two", "three"):
        tables = []
        for _ in range(8):
            good, noise, extra = rng.random(20) * 0.5, rng.random(20), rng.random(20) * 0.5
            good[5] = 0.9
            if extra_helps:
                extra[5] = 1.0
            candidates = [
                {"key": f"k{i}", "components": dict(zip(THREE, (good[i], noise[i], extra[i]), strict=True))}
                for i in range(20)
            ]
            tables.append(
                _table(
                    {
                        "id": "t",
                        "truth": ["k5"],
                        "candidates": [{**c, "multipliers": {}} for c in candidates],
                    },
                    THREE,
                )
            )
        groups[name] = tables
    return groups


def test_fit_leaves_frozen_weights_at_their_start_values() -> None:
    groups = _three_groups(extra_helps=True)
    start = np.array([0.0, 1.0, 0.0])
    learned = fit(groups, start, THREE, frozen=[0, 2])
    assert learned[0] == 0.0 and learned[2] == 0.0  # 'good' and 'extra' would both help, but are frozen
    free = fit(groups, start, THREE)
    assert objective(groups, free) > objective(groups, learned)


def test_refit_probe_scores_against_weights_fitted_without_the_scored_repository_or_the_probe() -> None:
    groups = _three_groups(extra_helps=True)
    start = np.array([0.0, 1.0, 0.0])  # weights that rank by noise: in sample for nobody
    plain = probe(groups, start, [2])
    refit = probe(groups, start, [2], THREE)
    for name in groups:
        assert plain[name]["start MRR"] < 1.0  # the plain probe's reference is ``start`` itself
        assert refit[name]["start MRR"] == 1.0  # the re-fit learns 'good' on the other two, 'extra' held at 0
        assert refit[name]["weight 0"] == 0.0  # nothing left for 'extra' to add, so it stays at 0
    assert probe(_three_groups(extra_helps=False), start, [2], THREE)["one"]["weight 0"] == 0.0


def test_cross_validation_keeps_held_weights_in_every_fold() -> None:
    from bench.quality.learn import cross_validate

    groups = _three_groups(extra_helps=True)
    start = np.array([0.0, 1.0, 0.0])
    held = cross_validate(groups, start, THREE, frozen=[0, 1, 2])  # nothing may move: folds = start
    assert all(m["fold MRR"] == m["start MRR"] < 1.0 for m in held.values())
    free = cross_validate(groups, start, THREE, frozen=[1])  # good and extra may move: each fold improves
    assert all(m["fold MRR"] > m["start MRR"] for m in free.values())


def test_a_channel_weight_is_replayed_from_the_stored_ranks() -> None:
    """``--channel``: the lexical component fused again from each candidate's channel ranks, scaled
    by the best stored seed; ``name@N`` counts only the channel's first N ranks."""
    from bench.quality.learn import _refused
    from mnemo_core.retrieve.seeds import CHANNEL_WEIGHTS, RRF_K

    stored = {
        "id": "t",
        "truth": ["b"],
        "seeds": [{"body": 1}, {"history": 1}],
        "candidates": [
            {
                "key": "a",
                "components": {"lexical": 1.0, "generic": 0.0},
                "multipliers": {},
                "ranks": {"body": 1},
            },
            {
                "key": "b",
                "components": {"lexical": 0.0, "generic": 0.4},
                "multipliers": {},
                "ranks": {"history": 2},
            },
        ],
    }
    body = CHANNEL_WEIGHTS["body"] / (RRF_K + 1)
    louder = _refused(stored, {"history": 3.0})["candidates"]
    assert louder[0]["components"]["lexical"] == pytest.approx(body / (3.0 / (RRF_K + 1)))
    assert louder[1]["components"]["lexical"] == pytest.approx((3.0 / (RRF_K + 2)) / (3.0 / (RRF_K + 1)))
    assert louder[1]["components"]["generic"] == 0.0  # a named symbol is not generic
    cut = _refused(stored, {"history@1": 3.0})["candidates"]
    assert cut[1]["components"]["lexical"] == 0.0 and cut[1]["components"]["generic"] == 0.4


def test_packed_tables_score_as_each_task_alone() -> None:
    rng = np.random.default_rng(7)
    tables = []
    for size in (5, 12, 3, 0):
        features = rng.random((size, 3))
        keys = np.array([i // 2 if i < 4 else i for i in range(size)], dtype=np.int64)  # keys repeat
        truth = frozenset(int(k) for k in keys[::3])
        tables.append(learn.TaskTable(features, np.ones(size), keys, truth, len(truth) + 1))
    for _ in range(20):
        weights = rng.normal(size=3)
        pairs = [learn.task_scores(t, weights) for t in tables]
        packed = learn.repo_metrics(learn.Tables(tables), weights)
        assert packed["R@10"] == pytest.approx(sum(p[0] for p in pairs) / len(pairs))
        assert packed["MRR"] == pytest.approx(sum(p[1] for p in pairs) / len(pairs))
