"""``python -m bench.quality.multilang_learn CACHE``: are Python's learned weights right for other languages?

Reads the tuning tasks' unfolded rankings that ``python -m bench.quality.multilang --cache CACHE``
pickled (each candidate's components and multipliers, its symbol, the task's keywords), re-scores
them under other weights, folds them as the product does (:mod:`mnemo_core.retrieve.fold`) and scores
them as the benchmark does. Coordinate ascent on the macro mean of R@10 and MRR, over the tuning
repositories together and leaving each one out in turn (``fold`` rows: fitted on the other three,
read on the one left out). Held-out repositories are never cached, so never fitted on.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bench.quality.metrics import mean_metrics, task_metrics
from bench.quality.multilang import GROUPS, RANKED_KINDS
from bench.quality.multilang_tasks import MultiTask, Ranked, as_keys, load
from mnemo_core.model import Symbol
from mnemo_core.retrieve.fold import fold
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.score import LEARNED_ON, WEIGHTS, Scored, weights_for

LIMIT = 100
FOLDED = 300  # candidates folded per trial (deeper ones reach the first 100 only by a class
# taking its constructor's score: the product folds them all)
COMPONENTS = tuple(WEIGHTS)
GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)  # the values each weight may take
LEARNED = ("lexical", "generic", "file", "text", "body", "history", "proximity", "recency")
ROUNDS = 3  # coordinate-ascent sweeps
TYPE_FACTOR = "type factor"  # a further multiplier of types' scores (kind prior aside), fitted too
TYPE_GRID = (0.4, 0.6, 0.8, 1.0, 1.2)
TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type"})


@dataclass(frozen=True)
class Case:
    """One cached task: its candidates (unfolded) as a component matrix with their multipliers'
    product, their symbols, the task's keywords, and the benchmark key each candidate answers."""

    repo: str
    task: MultiTask
    scored: list[Scored]
    symbols: dict[int, Symbol]
    keywords: Keywords
    matrix: np.ndarray  # candidates x COMPONENTS
    factor: np.ndarray  # each candidate's product of multipliers
    types: np.ndarray  # 1.0 where the candidate is a type (class, struct, interface, ...)
    learned_on: np.ndarray  # True where the candidate's language is one WEIGHTS were learned on (Python)
    keys: dict[int, str]  # symbol id -> its benchmark key (functions, methods and types only)


def case_of(
    repo: str, task: MultiTask, scored: list[Scored], symbols: dict[int, Symbol], kw: Keywords
) -> Case:
    """A case with its arrays and keys precomputed."""
    matrix = np.array([[s.components.get(n, 0.0) for n in COMPONENTS] for s in scored], dtype=float)
    factor = np.array([float(np.prod(list(s.multipliers.values()) or [1.0])) for s in scored])
    types = np.array([float(symbols[s.symbol_id].kind in TYPE_KINDS) for s in scored])
    learned_on = np.array([symbols[s.symbol_id].language in LEARNED_ON for s in scored], dtype=bool)
    keys = {}
    for s in scored:
        symbol = symbols[s.symbol_id]
        if symbol.kind in RANKED_KINDS:
            item = Ranked(symbol.path, symbol.short_name, symbol.start_line, symbol.end_line)
            keys[s.symbol_id] = as_keys([item], task.truth)[0]
    return Case(repo, task, scored, symbols, kw, matrix, factor, types, learned_on, keys)


def load_cases(cache: Path, count: int, seed: int, window: int) -> list[Case]:
    """Every cached tuning task whose task file is stored."""
    cases = []
    for repo in GROUPS["tuning"]:
        tasks = {t.id[:12]: t for t in load(repo, count, seed, window) or []}
        for path in sorted(cache.glob(f"{repo}-*.pickle")):
            task = tasks.get(path.stem.split("-", 1)[1])
            if task is not None:
                cases.append(case_of(repo, task, *pickle.loads(path.read_bytes())))
    return cases


def metrics(case: Case, weights: Mapping[str, float]) -> dict[str, float]:
    """The folded ranking's metrics under ``weights`` (the best ``FOLDED`` candidates folded): the
    weights of the languages other than Python; a Python candidate keeps ``WEIGHTS``."""
    vector = np.array([weights.get(n, 0.0) for n in COMPONENTS])
    learned = np.array([WEIGHTS[n] for n in COMPONENTS])
    type_factor = 1.0 + case.types * (weights.get(TYPE_FACTOR, 1.0) - 1.0)
    sums = np.where(case.learned_on, case.matrix @ learned, case.matrix @ vector)
    scores = sums * case.factor * type_factor
    order = np.lexsort((np.arange(len(scores)), -scores))[:FOLDED]
    top = [replace(case.scored[i], score=float(scores[i])) for i in order]
    folded = fold(top, case.symbols, case.keywords).scored
    keys = [case.keys[s.symbol_id] for s in folded if s.symbol_id in case.keys][:LIMIT]
    return task_metrics(keys, [t.key for t in case.task.truth])


def per_repo(cases: Sequence[Case], weights: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """Mean metrics per repository."""
    repos = sorted({c.repo for c in cases})
    return {r: mean_metrics([metrics(c, weights) for c in cases if c.repo == r]) for r in repos}


def objective(cases: Sequence[Case], weights: Mapping[str, float]) -> float:
    """The macro mean over repositories of (R@10 + MRR) / 2."""
    rows = per_repo(cases, weights).values()
    return sum((m["R@10"] + m["MRR"]) / 2 for m in rows) / len(rows) if rows else 0.0


def fit(cases: Sequence[Case], start: Mapping[str, float]) -> tuple[dict[str, float], float]:
    """Coordinate ascent over :data:`GRID` for the :data:`LEARNED` weights, from ``start``."""
    best = dict(start)
    value = objective(cases, best)
    for _ in range(ROUNDS):
        moved = False
        for name in (*LEARNED, TYPE_FACTOR):
            for candidate in TYPE_GRID if name == TYPE_FACTOR else GRID:
                trial = {**best, name: candidate}
                got = objective(cases, trial)
                if got > value + 1e-9:
                    best, value, moved = trial, got, True
        if not moved:
            break
    return best, value


def show(label: str, rows: Mapping[str, Mapping[str, float]]) -> str:
    """One line per repository: R@10 and MRR."""
    return "\n".join(f"  {label} {r}: R@10 {m['R@10']:.3f} MRR {m['MRR']:.3f}" for r, m in rows.items())


def main(argv: Sequence[str] | None = None) -> int:
    """Fit on all tuning repositories and leaving each out; print weights and per-repository rows."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.multilang_learn", description=__doc__)
    parser.add_argument("cache", type=Path)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--window", type=int, default=1500)
    args = parser.parse_args(argv)
    cases = load_cases(args.cache, args.tasks, args.seed, args.window)
    print(f"{len(cases)} cached tasks", file=sys.stderr)
    start = {**weights_for("go"), TYPE_FACTOR: 1.0}  # every language but Python's
    print(
        f"product weights: objective {objective(cases, start):.4f}\n{show('product', per_repo(cases, start))}"
    )
    weights, value = fit(cases, start)
    changed = {k: v for k, v in weights.items() if v != start[k]}
    print(
        f"fitted on all: objective {value:.4f}, changed {changed}\n{show('fitted', per_repo(cases, weights))}"
    )
    for left in sorted({c.repo for c in cases}):
        train = [c for c in cases if c.repo != left]
        test = [c for c in cases if c.repo == left]
        got, _ = fit(train, start)
        changed = {k: v for k, v in got.items() if v != start[k]}
        print(f"fold {left}: changed {changed}")
        print(show("  product", per_repo(test, start)))
        print(show("  fold-fit", per_repo(test, got)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
