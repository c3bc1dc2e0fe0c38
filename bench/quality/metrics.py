"""Scoring one ranking against one task's ground truth, and averaging over tasks.

A ranking is the whole list of ``path:qualified.name`` keys a ranker returned, best first, already
restricted to functions, methods and classes. Definitions (GT = the ground-truth functions):

- ``R@k``: |GT in the top k| / |GT|            - ``Acc@10``: 1 if all of GT is in the top 10, else 0
- ``P@10``: |GT in the top 10| / 10            - ``MRR``: 1 / rank of the first GT function when it is
                                                 within ``RANK_DEPTH``, else 0
- ``fileAcc@5``: 1 if every file of GT is among the first 5 distinct files of the ranking, else 0
- ``R@all``: |GT anywhere in the list| / |GT| -- a diagnostic: what the ranker could reach at all
  (the full pipeline's candidates, BM25's ``FTS_LIMIT`` hits), apart from how it ordered them
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

RANK_DEPTH = 100  # MRR counts ranks up to here in both rankings, so it compares like with like
METRICS = ("R@5", "R@10", "Acc@10", "P@10", "MRR", "fileAcc@5", "R@all")
PRECISION_K = 10
FILE_K = 5


def ranks_of(ranking: Sequence[str], truth: Sequence[str]) -> dict[str, int | None]:
    """The 1-based rank of each ground-truth key in ``ranking`` (None when absent)."""
    positions = {key: i for i, key in reversed(list(enumerate(ranking, start=1)))}
    return {key: positions.get(key) for key in truth}


def task_metrics(ranking: Sequence[str], truth: Sequence[str]) -> dict[str, float]:
    """Every metric of :data:`METRICS` for one task."""
    ranks = [r for r in ranks_of(ranking, truth).values() if r is not None]
    found = {k: sum(1 for r in ranks if r <= k) for k in (5, 10, PRECISION_K)}
    files = {key.split(":", 1)[0] for key in truth}
    return {
        "R@5": found[5] / len(truth),
        "R@10": found[10] / len(truth),
        "Acc@10": float(found[10] == len(truth)),
        "P@10": found[PRECISION_K] / PRECISION_K,
        "MRR": 1.0 / min(ranks) if ranks and min(ranks) <= RANK_DEPTH else 0.0,
        "fileAcc@5": float(files <= set(first_files(ranking, FILE_K))),
        "R@all": len(ranks) / len(truth),
    }


def first_files(ranking: Sequence[str], count: int) -> list[str]:
    """The first ``count`` distinct files of a ranking, in order."""
    files: dict[str, None] = {}
    for key in ranking:
        files.setdefault(key.split(":", 1)[0])
        if len(files) == count:
            break
    return list(files)


def mean_metrics(per_task: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over tasks (0.0 for no tasks)."""
    return {name: sum(m[name] for m in per_task) / len(per_task) if per_task else 0.0 for name in METRICS}
