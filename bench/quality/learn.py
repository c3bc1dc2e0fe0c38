"""Learn the task ranking's component weights on the tuning repositories, and say how well they
generalise by leave-one-repository-out cross-validation.

``collect`` runs every task of the tuning repositories through the pipeline once and stores, per
task, its ground truth and every ranked candidate with its score components and multipliers (the
components do not depend on the weights, so any weighting can be replayed from them in
milliseconds), and the cosine of every product candidate with the task (``cosine``: the semantic
channel's pool, its size and its scaling, can be replayed beyond the pool the pipeline compared).
``fit`` then searches the weights by coordinate ascent on the objective the
benchmark reports (mean of R@10 and MRR, averaged per repository so each counts the same): in
each round, every weight is tried at a few multiples and offsets of its value and the best change
is kept, until no change helps (from several starts, see ``fit``). It fits once per fold, leaving
one tuning repository out and scoring it with weights it never saw, then once on all of them: those
are the weights to put in
``mnemo_core/retrieve/score.py``. Held-out repositories are refused: they are never learned from.

    python -m bench.quality.learn collect --repos tuning
    python -m bench.quality.learn fit
    python -m bench.quality.learn probe recency walk
    python -m bench.quality.learn probe --refit recency
    python -m bench.quality.learn fit --channel history=0.5 --channel path@3=1   # a channel's fusion replayed

``probe`` asks a narrower question than ``fit``, with less noise: with every other weight kept as
it is, does a weight on these components help a repository when it is chosen (on ``PROBE_GRID``)
on the other four? A full re-fit from several starts moves by a few thousandths of the objective
between runs that differ only by a component learned to zero, which is as much as a new signal
usually adds. The kept weights were fitted on all five, the scored repository too, so ``--refit``
first fits them on the other four without the probed components (the re-fit's folds, the
out-of-sample reference), then chooses the probed weights on those four: only the probed weights
differ from the reference.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import OUT_DIR
from bench.quality.metrics import RANK_DEPTH
from bench.quality.repos import DEFAULT_MIRRORS, BenchRepo, expand, working_clone

TOP_K = 10
TOP_SEEDS_KEPT = 50  # the best seeds' channel ranks, kept so a channel's weight can be replayed
STEPS = (0.0, 0.5, 0.8, 1.25, 2.0)  # multiples of a weight tried in each round
NUDGES = (-0.1, -0.03, 0.03, 0.1)  # and offsets (a zero weight can grow)
MAX_ROUNDS = 30
CORNERS = ("body", "lexical", "walk")  # the strongest single signals: each is a start of its own
CORNER_REST = 0.05  # in a start that weights one component alone, what every other one gets
MIN_GAIN = 1e-4  # a change that helps less than this is noise
FOLD_KEYS = ("start R@10", "start MRR", "fold R@10", "fold MRR")
FOLD_HEADER = (
    f"{'fold (scored repo)':<20} {'start R@10':>10} {'start MRR':>9} {'fold R@10':>9} {'fold MRR':>8}"
)
PROBE_GRID = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, -0.02, -0.05)
TABLE_PREFIX = "learn-"
DEFAULT_WORKDIR = Path("/tmp/mnemo-tune")  # apart from the benchmark's clones: both check out commits


@dataclass
class TaskTable:
    """One task's candidates, ready to be re-scored under any weights."""

    features: np.ndarray  # candidates x components
    factor: np.ndarray  # the product of each candidate's multipliers
    key_ids: np.ndarray  # an id per distinct candidate key (a key can repeat: getter and setter)
    truth_ids: frozenset[int]  # the key ids that are ground truth
    truth_size: int  # ground truth functions, found among the candidates or not


def collect(repos: Sequence[BenchRepo], workdir: Path, count: int | None = None) -> None:
    """Run each repository's tasks once (the first ``count`` of its task file, default all the
    benchmark runs) and store the candidate tables."""
    from bench.quality.evaluate import RANKED_KINDS, checkout
    from bench.quality.run import tasks_for
    from mnemo_core.errors import MnemoError
    from mnemo_core.index.indexer import index_repo
    from mnemo_core.pipelines import recency_lookup
    from mnemo_core.repository import Repository
    from mnemo_core.retrieve.task import rank_task
    from mnemo_core.semantic.channel import meaning

    for spec in repos:
        clone = working_clone(spec, DEFAULT_MIRRORS, workdir)
        tasks = tasks_for(spec, clone, _task_args(count))
        repo = Repository.open(clone)
        rows: list[dict[str, Any]] = []
        try:
            for task in sorted(tasks, key=lambda t: -t.position):
                checkout(clone, task.parent)
                index_repo(clone)
                row: dict[str, Any] = {"id": task.id, "truth": list(task.ground_truth), "candidates": []}
                try:
                    ranking = rank_task(
                        repo.store,
                        repo.root,
                        task.text,
                        recency_lookup(repo),
                        full_walk=True,
                        vectors="encode",
                    )
                except MnemoError:
                    rows.append(row)
                    continue
                product = [ranking.symbols[s.symbol_id] for s in ranking.scored]
                cosines = meaning(
                    repo.store, repo.root, task.text, [s for s in product if not s.is_test], "encode"
                ).similarity
                row["seeds"] = [
                    {h.channel: h.rank for h in s.hits} for s in list(ranking.seeds.values())[:TOP_SEEDS_KEPT]
                ]
                row["candidates"] = [
                    {
                        "key": ranking.symbols[s.symbol_id].key,
                        "kind": ranking.symbols[s.symbol_id].kind,
                        "lines": ranking.symbols[s.symbol_id].end_line
                        - ranking.symbols[s.symbol_id].start_line
                        + 1,
                        "components": s.components,
                        "multipliers": s.multipliers,
                        "ranks": _channel_ranks(ranking, s.symbol_id),
                        "cosine": cosines.get(s.symbol_id),
                    }
                    for s in ranking.scored
                    if ranking.symbols[s.symbol_id].kind in RANKED_KINDS
                ]
                rows.append(row)
        finally:
            repo.close()
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        (OUT_DIR / f"{TABLE_PREFIX}{spec.name}.json").write_text(json.dumps(rows), encoding="utf-8")
        print(f"{spec.name}: {len(rows)} tasks collected", file=sys.stderr)


def _channel_ranks(ranking: Any, sid: int) -> dict[str, int]:
    """Where each seed channel ranked a candidate (absent: not found by that channel)."""
    seed = ranking.seeds.get(sid)
    return {h.channel: h.rank for h in seed.hits} if seed else {}


def _task_args(count: int | None = None) -> argparse.Namespace:
    from bench.quality.run import parse_args

    return parse_args(["--tasks", str(count)] if count else [])


def load_tables(name: str, components: Sequence[str], channels: Mapping[str, float] | None = None) -> Tables:
    """The stored candidate tables of one repository; with ``channels`` (a seed channel's weight in
    the fusion, the others as ``CHANNEL_WEIGHTS`` has them), the ``lexical`` component is fused
    again from the stored channel ranks under those weights."""
    rows = json.loads((OUT_DIR / f"{TABLE_PREFIX}{name}.json").read_text(encoding="utf-8"))
    if channels is not None:
        rows = [_refused(row, channels) for row in rows]
    return Tables(_table(row, components) for row in rows)


def _refused(row: Mapping[str, Any], channels: Mapping[str, float]) -> dict[str, Any]:
    """A task's row with ``lexical`` fused again (RRF over the stored ranks), scaled by the best of
    the stored top seeds as the pipeline scales by its best seed. A channel given as ``name@N``
    counts only its first N ranks. The ``file`` component, which sums seed scores per file, is left
    as it was: an approximation, checked by a full run of the chosen weights."""
    from mnemo_core.retrieve.seeds import CHANNEL_WEIGHTS, RRF_K

    weights, depth = dict(CHANNEL_WEIGHTS), {}
    for spec, weight in channels.items():
        name, _, cut = spec.partition("@")
        weights[name] = weight
        if cut:
            depth[name] = int(cut)

    def fused(ranks: Mapping[str, int]) -> float:
        return sum(weights.get(c, 1.0) / (RRF_K + r) for c, r in ranks.items() if r <= depth.get(c, r))

    top = max((fused(r) for r in row.get("seeds", [])), default=0.0) or 1.0
    candidates = []
    for c in row["candidates"]:
        components = dict(c["components"])
        components["lexical"] = fused(c["ranks"]) / top
        if components["lexical"] > 0:
            components["generic"] = 0.0
        candidates.append({**c, "components": components})
    return {**row, "candidates": candidates}


def _table(row: Mapping[str, Any], components: Sequence[str]) -> TaskTable:
    keys: dict[str, int] = {}
    candidates = row["candidates"]
    ids = np.array([keys.setdefault(c["key"], len(keys)) for c in candidates], dtype=np.int64)
    features = np.array(
        [[c["components"].get(n, 0.0) for n in components] for c in candidates], dtype=np.float64
    ).reshape(len(candidates), len(components))
    factor = np.array([float(np.prod(list(c["multipliers"].values()) or [1.0])) for c in candidates])
    truth = frozenset(keys[k] for k in row["truth"] if k in keys)
    return TaskTable(features, factor, ids, truth, len(row["truth"]))


def task_scores(table: TaskTable, weights: np.ndarray) -> tuple[float, float]:
    """R@10 and MRR of one task under ``weights`` (ties keep the pipeline's order)."""
    if not table.truth_size or not len(table.key_ids):
        return 0.0, 0.0
    scores = (table.features @ weights) * table.factor
    order = np.argsort(-scores, kind="stable")[:RANK_DEPTH]
    ranked = table.key_ids[order]
    found = {int(k) for k in ranked[:TOP_K]} & table.truth_ids
    first = next((i for i, k in enumerate(ranked) if int(k) in table.truth_ids), None)
    return len(found) / table.truth_size, (1.0 / (first + 1) if first is not None else 0.0)


@dataclass(frozen=True)
class Packed:
    """A repository's task tables padded into one array per quantity, so every task is scored in
    one product and one sort (what ``task_scores`` does per task, hundreds of times faster)."""

    features: np.ndarray  # tasks x candidates x components (padding: 0)
    factor: np.ndarray  # tasks x candidates (padding: 0)
    padding: np.ndarray  # tasks x candidates, True past a task's last candidate
    truth: np.ndarray  # tasks x candidates: the index of the candidate's key among the task's truth, or -1
    truth_size: np.ndarray  # tasks: ground truth functions (0: the task scores 0)
    width: int  # the most truth keys any task has among its candidates


def pack(tables: Sequence[TaskTable]) -> Packed:
    """``tables`` padded to the longest task."""
    rows, longest = len(tables), max((len(t.key_ids) for t in tables), default=0)
    columns = tables[0].features.shape[1] if tables else 0
    features = np.zeros((rows, longest, columns))
    factor = np.zeros((rows, longest))
    padding = np.ones((rows, longest), dtype=bool)
    truth = np.full((rows, longest), -1, dtype=np.int64)
    for i, table in enumerate(tables):
        n = len(table.key_ids)
        features[i, :n], factor[i, :n], padding[i, :n] = table.features, table.factor, False
        index = {key: j for j, key in enumerate(sorted(table.truth_ids))}
        truth[i, :n] = [index.get(int(k), -1) for k in table.key_ids]
    sizes = np.array([t.truth_size if len(t.key_ids) else 0 for t in tables], dtype=np.float64)
    return Packed(features, factor, padding, truth, sizes, max((len(t.truth_ids) for t in tables), default=0))


class Tables(list[TaskTable]):
    """One repository's task tables, packed once for fast scoring."""

    @functools.cached_property
    def packed(self) -> Packed:
        """The tables padded into arrays (they are never changed once loaded)."""
        return pack(self)


def repo_metrics(tables: Sequence[TaskTable], weights: np.ndarray) -> dict[str, float]:
    """Mean R@10 and MRR over one repository's tasks: ``task_scores`` of every task at once."""
    if not tables:
        return {"R@10": 0.0, "MRR": 0.0}
    packed = tables.packed if isinstance(tables, Tables) else pack(tables)
    scores = (packed.features @ weights) * packed.factor
    scores[packed.padding] = -np.inf
    order = np.argsort(-scores, axis=1, kind="stable")[:, :RANK_DEPTH]
    truth = np.take_along_axis(packed.truth, order, axis=1)
    rows = np.arange(len(tables))
    found = np.zeros((len(tables), packed.width + 1), dtype=bool)
    top = truth[:, :TOP_K]
    found[np.repeat(rows, top.shape[1]), top.ravel()] = True  # index -1: the spare last column
    recall = found[:, : packed.width].sum(axis=1) / np.maximum(packed.truth_size, 1)
    hit = truth >= 0
    first = np.where(hit.any(axis=1), 1.0 / (hit.argmax(axis=1) + 1), 0.0)
    valid = packed.truth_size > 0
    recall, first = np.where(valid, recall, 0.0), np.where(valid, first, 0.0)
    return {"R@10": float(recall.mean()), "MRR": float(first.mean())}


def objective(groups: Mapping[str, Sequence[TaskTable]], weights: np.ndarray) -> float:
    """The mean over repositories of (R@10 + MRR) / 2."""
    per_repo = [repo_metrics(tables, weights) for tables in groups.values()]
    return statistics.fmean((m["R@10"] + m["MRR"]) / 2 for m in per_repo)


def fit(
    groups: Mapping[str, Sequence[TaskTable]],
    start: np.ndarray,
    names: Sequence[str] = (),
    frozen: Sequence[int] = (),
) -> np.ndarray:
    """The best of coordinate ascents from ``start`` and from each of the ``CORNERS`` components
    weighted alone (a little of every other): the objective has local optima, and a start near
    each strong signal finds the ones a single start would miss. The weights at ``frozen`` keep
    their values from ``start``."""
    starts = [start]
    for i, name in enumerate(names):
        if name in CORNERS and i not in frozen:
            corner = np.full(len(start), CORNER_REST)
            corner[list(frozen)] = start[list(frozen)]
            corner[i] = 1.0
            starts.append(corner)
    fitted = [_ascend(groups, s, frozen) for s in starts]
    return max(fitted, key=lambda w: objective(groups, w))


def _ascend(
    groups: Mapping[str, Sequence[TaskTable]], start: np.ndarray, frozen: Sequence[int] = ()
) -> np.ndarray:
    """Coordinate ascent from ``start``: the best single-weight change per round, until none helps;
    the weights at ``frozen`` keep their start values."""
    weights = start.copy()
    best = objective(groups, weights)
    for _ in range(MAX_ROUNDS):
        trials = []
        for i in (i for i in range(len(weights)) if i not in frozen):
            for value in {round(weights[i] * s, 4) for s in STEPS} | {
                round(weights[i] + n, 4) for n in NUDGES
            }:
                trial = weights.copy()
                trial[i] = value
                trials.append((objective(groups, trial), i, value))
        if not trials:  # every weight is held
            break
        score, i, value = max(trials)
        if score < best + MIN_GAIN:
            break
        best, weights[i] = score, value
    return weights


def cross_validate(
    groups: Mapping[str, Sequence[TaskTable]],
    start: np.ndarray,
    names: Sequence[str],
    frozen: Sequence[int] = (),
) -> dict[str, dict[str, float]]:
    """Per tuning repository: its metrics under the start weights and under weights learned without it
    (the weights at ``frozen`` keep their start values)."""
    folds = {}
    for name, tables in groups.items():
        learned = fit({n: t for n, t in groups.items() if n != name}, start, names, frozen)
        folds[name] = {
            **{f"start {k}": v for k, v in repo_metrics(tables, start).items()},
            **{f"fold {k}": v for k, v in repo_metrics(tables, learned).items()},
        }
    return folds


def probe(
    groups: Mapping[str, Sequence[TaskTable]],
    start: np.ndarray,
    indices: Sequence[int],
    refit_names: Sequence[str] | None = None,
) -> dict[str, dict[str, float]]:
    """Per tuning repository: its metrics under ``start`` and under ``start`` with the weights at
    ``indices`` set to the ``PROBE_GRID`` values (every combination) best on the other repositories
    (ties: the smallest total weight, so a probe that helps nowhere stays at zero). With
    ``refit_names`` (the components' names), ``start`` is first re-fitted on the other repositories
    with the probed weights held at zero, per repository: its "start" metrics are then the re-fit's
    fold, and only the probed weights differ from it."""
    combos = list(itertools.product(PROBE_GRID, repeat=len(indices)))
    seen: dict[tuple[str | None, tuple[float, ...], str], dict[str, float]] = {}
    out = {}
    for name, tables in groups.items():
        others = [n for n in groups if n != name]
        base, fold = start, None  # without a re-fit every repository shares one base: metrics are reused
        if refit_names is not None:
            without = start.copy()
            without[list(indices)] = 0.0
            base, fold = fit({n: groups[n] for n in others}, without, refit_names, frozen=indices), name
        for combo in combos:
            trial = base.copy()
            trial[list(indices)] = combo
            for repo in groups:
                if (fold, combo, repo) not in seen:
                    seen[fold, combo, repo] = repo_metrics(groups[repo], trial)
        score = {
            c: statistics.fmean((seen[fold, c, n]["R@10"] + seen[fold, c, n]["MRR"]) / 2 for n in others)
            for c in combos
        }
        best = max(combos, key=lambda c: (score[c], -sum(abs(w) for w in c)))
        out[name] = {
            **{f"start {k}": v for k, v in repo_metrics(tables, base).items()},
            **{f"fold {k}": v for k, v in seen[fold, best, name].items()},
            **{f"weight {i}": w for i, w in enumerate(best)},
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``collect`` or ``fit``."""
    from mnemo_core.retrieve.score import WEIGHTS

    parser = argparse.ArgumentParser(
        prog="python -m bench.quality.learn",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("step", choices=("collect", "fit", "probe"))
    parser.add_argument("components", nargs="*", help="probe: the components whose weights are probed")
    parser.add_argument(
        "--refit",
        action="store_true",
        help="probe: re-fit the other weights on the other repositories first (out-of-sample reference)",
    )
    parser.add_argument(
        "--hold",
        default="",
        help="fit: comma-separated components whose weights keep their current values (e.g. walk,authority:"
        " at 0, a task never runs the random walk)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=W",
        help="fit/probe: start from weight W for this component instead of score.py's (with --hold, keep it"
        " there: --set semantic=0 --hold semantic is the fit of an install without the semantic extra)",
    )
    parser.add_argument(
        "--start-only",
        action="store_true",
        help="fit: ascend from the current weights alone, not also from each strong component alone",
    )
    parser.add_argument("--repos", default="tuning", help="tuning repositories, comma-separated, or groups")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="working clones for collect")
    parser.add_argument("--tasks", type=int, help="collect: only the first N tasks of each task file")
    parser.add_argument(
        "--channel",
        action="append",
        default=[],
        metavar="NAME[@N]=W",
        help="fit/probe: replay with a seed channel's fusion weight W (its first N ranks only)",
    )
    args = parser.parse_intermixed_args(argv)  # ``probe --refit NAME``: a flag between the positionals
    repos = _tuning(args.repos)
    if args.step == "collect":
        collect(repos, args.workdir, args.tasks)
        return 0
    names = list(WEIGHTS)
    channels = {c.partition("=")[0]: float(c.partition("=")[2]) for c in args.channel} or None
    groups = {r.name: load_tables(r.name, names, channels) for r in repos}
    start = np.array([WEIGHTS[n] for n in names])
    for spec in args.set:
        name, _, value = spec.partition("=")
        if name not in names:
            raise SystemExit(f"--set: name components of {', '.join(names)}; not {name}")
        start[names.index(name)] = float(value)
    if args.step == "probe":
        unknown = [c for c in args.components if c not in names] or ([] if args.components else ["(none)"])
        if unknown:
            raise SystemExit(f"probe: name components of {', '.join(names)}; not {', '.join(unknown)}")
        indices = [names.index(c) for c in args.components]
        folds = probe(groups, start, indices, names if args.refit else None)
        return _print_probe(folds, args.components)
    held = [h for h in args.hold.split(",") if h]
    if unknown := [h for h in held if h not in names]:
        raise SystemExit(f"--hold: name components of {', '.join(names)}; not {', '.join(unknown)}")
    frozen = [names.index(h) for h in held]
    corners = () if args.start_only else names  # ``fit`` starts at a corner of each name it is given
    folds = cross_validate(groups, start, corners, frozen)
    print(FOLD_HEADER)
    for name, m in folds.items():
        print(f"{name:<20} " + " ".join(f"{m[k]:>9.3f}" for k in FOLD_KEYS))
    learned = fit(groups, start, corners, frozen)
    print(
        "\nweights learned on all tuning repositories (objective "
        f"{objective(groups, start):.4f} -> {objective(groups, learned):.4f}):"
    )
    print(json.dumps({n: round(float(w), 4) for n, w in zip(names, learned, strict=True)}, indent=1))
    return 0


def _print_probe(folds: Mapping[str, Mapping[str, float]], components: Sequence[str]) -> int:
    print(f"{FOLD_HEADER}  weights")
    for name, m in folds.items():
        chosen = ", ".join(f"{c} {m[f'weight {i}']:g}" for i, c in enumerate(components))
        print(f"{name:<20} " + " ".join(f"{m[k]:>9.3f}" for k in FOLD_KEYS) + f"  {chosen}")
    means = [statistics.fmean(m[k] for m in folds.values()) for k in FOLD_KEYS]
    print(f"{'mean':<20} " + " ".join(f"{v:>9.3f}" for v in means))
    return 0


def _tuning(spec: str) -> list[BenchRepo]:
    repos = expand(spec)
    held = [r.name for r in repos if r.held_out]
    if held:
        raise SystemExit(f"{', '.join(held)}: held out, never learned from")
    return repos


if __name__ == "__main__":
    raise SystemExit(main())
