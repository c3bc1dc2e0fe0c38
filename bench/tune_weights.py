"""Tune the task-ranking weights offline on the quality benchmark's tasks.

``collect`` runs every task of the tuning repositories once and stores, per candidate, the score
components and multipliers (which do not depend on the weights) and whether it is ground truth.
``search`` then re-scores those tables for many weight settings in seconds and prints the best by
the mean of R@10 and MRR over the repositories. Held-out repositories are never collected here.

    python -m bench.tune_weights collect --repos pytest,black,attrs
    python -m bench.tune_weights search
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.quality.evaluate import RANKED_KINDS, checkout
from bench.quality.metrics import task_metrics
from bench.quality.repos import lookup
from bench.quality.run import tasks_for
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import index_repo
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.score import TEST_DEMOTION, WEIGHTS
from mnemo_core.retrieve.task import rank_task

OUT = Path(__file__).parent / "out"
GRID = {
    "lexical": (0.2, 0.3, 0.4, 0.5),
    "walk": (0.15, 0.25, 0.4),
    "authority": (0.0, 0.05),
    "proximity": (0.05,),
    "recency": (0.1, 0.2, 0.3),
    "generic": (0.0, -0.1),
    "file": (0.1, 0.2, 0.3),
    "text": (0.0, 0.1, 0.2, 0.3),
}
TEST_FACTORS = (0.2,)


def collect(repos: Sequence[str], workdir: Path) -> None:
    """Store per-task candidate tables for each repository."""
    for name in repos:
        spec = lookup(name)
        clone = workdir / spec.name
        args = argparse.Namespace(only_mine=False, tasks=50, seed=0, window=1000, head=None)
        tasks = tasks_for(spec, clone, args)
        repo = Repository.open(clone)
        rows: list[dict[str, Any]] = []
        for task in sorted(tasks, key=lambda t: -t.position):
            checkout(clone, task.parent)
            index_repo(clone)
            try:
                ranking = rank_task(repo.store, repo.root, task.text, recency_lookup(repo))
            except MnemoError:
                rows.append({"truth": list(task.ground_truth), "candidates": []})
                continue
            candidates = [
                {"key": ranking.symbols[s.symbol_id].key, "components": s.components, "multipliers": s.multipliers}
                for s in ranking.scored if ranking.symbols[s.symbol_id].kind in RANKED_KINDS
            ]
            rows.append({"truth": list(task.ground_truth), "candidates": candidates})
        repo.close()
        (OUT / f"tune-{spec.name}.json").write_text(json.dumps(rows))
        print(f"{spec.name}: {len(rows)} tasks")


def _metrics(rows: list[dict[str, Any]], weights: dict[str, float], test_factor: float) -> dict[str, float]:
    per_task = []
    for row in rows:
        scored = []
        for c in row["candidates"]:
            total = sum(weights[k] * v for k, v in c["components"].items())
            for name, factor in c["multipliers"].items():
                total *= test_factor if name == "test" else factor
            scored.append((-total, c["key"]))
        ranking = [key for _, key in sorted(scored)]
        per_task.append(task_metrics(ranking, row["truth"]))
    return {m: statistics.fmean(t[m] for t in per_task) for m in ("R@10", "MRR")}


def search(repos: Sequence[str]) -> None:
    """Grid search; prints the current weights' score and the ten best settings."""
    tables = {name: json.loads((OUT / f"tune-{lookup(name).name}.json").read_text()) for name in repos}

    def objective(weights: dict[str, float], test_factor: float) -> tuple[float, dict[str, dict[str, float]]]:
        per_repo = {name: _metrics(rows, weights, test_factor) for name, rows in tables.items()}
        return statistics.fmean(m["R@10"] + m["MRR"] for m in per_repo.values()), per_repo

    current = objective(dict(WEIGHTS), TEST_DEMOTION)
    print("current", round(current[0], 4), json.dumps(current[1]))
    results = []
    keys = list(GRID)
    for values in itertools.product(*GRID.values()):
        weights = dict(zip(keys, values))
        for factor in TEST_FACTORS:
            score, per_repo = objective(weights, factor)
            results.append((score, weights, factor, per_repo))
    results.sort(key=lambda r: -r[0])
    for score, weights, factor, per_repo in results[:10]:
        cells = " ".join(f"{n}:{m['R@10']:.3f}/{m['MRR']:.3f}" for n, m in per_repo.items())
        print(f"{score:.4f} test={factor} {json.dumps(weights)} {cells}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("collect", "search"))
    parser.add_argument("--repos", default="pytest,black,attrs", help="tuning repositories (never the held-out one)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mnemo-tune"), help="working clones")
    args = parser.parse_args(argv)
    repos = args.repos.split(",")
    if args.step == "collect":
        collect(repos, args.workdir)
    else:
        search(repos)


if __name__ == "__main__":
    main()
