"""``python -m bench.quality.multilang_semantic collect|replay CACHE``: the semantic channel's pool, floor
and weight outside Python, chosen on the multi-language tuning repositories only.

``collect`` runs ``python -m bench.quality.multilang --repos tuning --semantic --cache CACHE`` with
every semantic floor at 0, so each cached candidate's semantic component is its cosine with the task
(the best ``SEMANTIC_POOL`` product candidates have one). ``replay`` re-scores the cached tasks over
a grid of pool x floor x weight (the pool: the best product candidates of the ranking without the
channel, as ``retrieve.task`` takes them), folds them as the product does and scores them as the
benchmark does: every cell per repository, and leaving each repository out (the cell chosen on the
other three by the macro mean of R@10 and MRR, read on the one left out). Held-out repositories are
never cached, so never replayed.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.quality.metrics import mean_metrics, task_metrics
from bench.quality.multilang import DEFAULT_SEED, DEFAULT_TASKS, DEFAULT_WINDOW
from bench.quality.multilang_learn import COMPONENTS, FOLDED, LIMIT, Case, load_cases
from mnemo_core.retrieve.fold import fold
from mnemo_core.retrieve.score import WEIGHTS, weights_for

POOLS = (30, 100)  # today's main pool and the one chosen on Python's tuning folds
FLOORS = (0.0, 0.2)  # the cosine as it is, and by how far it exceeds 0.2
CHANNEL_WEIGHTS = (0.5, 0.75)  # main's weight and the one chosen on Python's tuning folds
SEMANTIC = COMPONENTS.index("semantic")

Cell = tuple[int, float, float]


def metrics(case: Case, cell: Cell) -> dict[str, float]:
    """The folded ranking's metrics with the channel at ``cell`` (pool, floor, weight)."""
    pool, floor, weight = cell
    cosines = case.matrix[:, SEMANTIC]
    plain = case.matrix.copy()
    plain[:, SEMANTIC] = 0.0
    learned = np.array([WEIGHTS[n] for n in COMPONENTS])
    other = np.array([weights_for("go")[n] for n in COMPONENTS])
    base = np.where(case.learned_on, plain @ learned, plain @ other) * case.factor
    order = np.lexsort(([s.symbol_id for s in case.scored], -base))
    products = [i for i in order if not case.symbols[case.scored[i].symbol_id].is_test][:pool]
    semantic = np.zeros(len(base))
    semantic[products] = np.maximum(0.0, cosines[products] - floor)
    scores = base + weight * semantic * case.factor
    ranked = np.lexsort(([s.symbol_id for s in case.scored], -scores))[:FOLDED]
    top = [replace(case.scored[i], score=float(scores[i])) for i in ranked]
    folded = fold(top, case.symbols, case.keywords).scored
    keys = [case.keys[s.symbol_id] for s in folded if s.symbol_id in case.keys][:LIMIT]
    return task_metrics(keys, [t.key for t in case.task.truth])


def replay(cases: Sequence[Case]) -> dict[Cell, dict[str, dict[str, float]]]:
    """Every cell's mean R@10 and MRR per repository."""
    repos = sorted({c.repo for c in cases})
    out = {}
    for cell in itertools.product(POOLS, FLOORS, CHANNEL_WEIGHTS):
        per_task = {r: [metrics(c, cell) for c in cases if c.repo == r] for r in repos}
        out[cell] = {r: mean_metrics(rows) for r, rows in per_task.items()}
    return out


def objective(rows: dict[str, dict[str, float]], repos: Sequence[str]) -> float:
    """The macro mean over ``repos`` of (R@10 + MRR) / 2."""
    return sum((rows[r]["R@10"] + rows[r]["MRR"]) / 2 for r in repos) / len(repos)


def main(argv: Sequence[str] | None = None) -> int:
    """Collect the tuning tasks' cosines, or replay the grid over them."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.multilang_semantic", description=__doc__)
    parser.add_argument("action", choices=("collect", "replay"))
    parser.add_argument("cache", type=Path)
    args = parser.parse_args(argv)
    if args.action == "collect":
        from bench.quality import multilang
        from mnemo_core.retrieve import score

        score.SEMANTIC_FLOOR = score.OTHER_SEMANTIC_FLOOR = 0.0  # the cache keeps the cosine itself
        return multilang.main(["--repos", "tuning", "--semantic", "--cache", str(args.cache)])
    cases = load_cases(args.cache, DEFAULT_TASKS, DEFAULT_SEED, DEFAULT_WINDOW)
    print(f"{len(cases)} cached tasks", file=sys.stderr)
    table = replay(cases)
    repos = sorted({c.repo for c in cases})
    print("pool floor weight | " + " | ".join(repos) + " | macro")
    for cell, rows in table.items():
        cols = [f"{rows[r]['R@10']:.3f} / {rows[r]['MRR']:.3f}" for r in repos]
        macro = [sum(rows[r][m] for r in repos) / len(repos) for m in ("R@10", "MRR")]
        print(f"{cell} | " + " | ".join(cols) + f" | {macro[0]:.3f} / {macro[1]:.3f}")
    for left in repos:
        rest = [r for r in repos if r != left]
        chosen = max(table, key=lambda cell: (objective(table[cell], rest), cell == (100, 0.2, 0.75)))
        m = table[chosen][left]
        print(f"leave {left} out: chose {chosen} on {rest}; {left} R@10 {m['R@10']:.3f} MRR {m['MRR']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
