"""How much could any memory of the previous task buy on follow-up tasks? Upper bounds for issue #17.

The follow-up benchmark (``followup.py``) pairs each task B with its predecessor A. Whatever a memory
keeps of A (its functions, their files), all it can do for B is reorder B's own ranking. This ranks
B once without memory (``none``) and measures R@10 after generous reorderings that use A's answer:

- ``prev-first``: A's changed functions first (in B's order), then the rest;
- ``files-first``: every candidate in a file A changed first, then the rest;
- ``prev, then files``: A's changed functions, then the rest of A's files, then the rest;
- ``files-first if K+``: the same, only for tasks whose own top 10 already has at least K candidates
  in A's files (the agreement a product can see; it cannot see which tasks are follow-ups);
- ``files-first, follow-ups only``: the same, applied to exactly the follow-up tasks (an oracle that
  knows the benchmark's label, which no product has);
- ``best boost, GATE``: each candidate moved up ``F`` places when it lies in A's files and ``P`` more
  when A changed it, for the tasks GATE lets through (exactly the follow-ups; those whose top 10 has
  K+ candidates in A's files; all), with the ``(F, P)`` of ``BOOSTS`` that does best on the
  follow-ups among those that cost the unrelated tasks at most the floor's 2 % (fitted where it is
  measured: an upper bound for the soft boosts a memory component gives, not a result).

Follow-up and unrelated tasks are reported apart, relative to ``none``; the issue's floors: +10 %
on follow-ups, at most -2 % on unrelated tasks. Aggregates only: held-out repositories may be
measured, and no per-task line is printed.

    python -m bench.quality.followup_ceiling --repos tuning --workdir /tmp/mnemo-tune --more 50
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.common import machine_info, machine_line, write_json
from bench.quality.evaluate import checkout
from bench.quality.followup import NOW, Pair, more_tasks, pairs, ranking
from bench.quality.metrics import task_metrics
from bench.quality.repos import (
    DEFAULT_MIRRORS,
    DEFAULT_WORKDIR,
    expand,
    load_tasks,
    tasks_path,
    working_clone,
)
from bench.quality.run import DEFAULT_SEED, DEFAULT_TASKS, DEFAULT_WINDOW
from mnemo_core.index.indexer import index_repo
from mnemo_core.repository import Repository
from mnemo_core.retrieve.recall import Recall

AGREEMENTS = (1, 2, 3, 5)
BOOSTS = (0, 1, 2, 3, 5, 8, 12, 20, 40)  # places a candidate moves up for each membership
UNRELATED_FLOOR = 0.98  # the issue's: unrelated tasks keep at least 98 % of their R@10
Reorder = Callable[[list[str], Pair], list[str]]


def _file(key: str) -> str:
    return key.split(":", 1)[0]


def first(ranked: list[str], chosen: Callable[[str], bool]) -> list[str]:
    """``ranked`` with the chosen keys moved to the front, each part in its own order."""
    return [k for k in ranked if chosen(k)] + [k for k in ranked if not chosen(k)]


def agreement(ranked: list[str], pair: Pair) -> int:
    """How many of the task's own top 10 lie in a file the previous task changed."""
    files = {_file(k) for k in pair.previous.ground_truth}
    return sum(_file(k) in files for k in ranked[:10])


def _files_first(ranked: list[str], pair: Pair) -> list[str]:
    files = {_file(k) for k in pair.previous.ground_truth}
    return first(ranked, lambda k: _file(k) in files)


def boosted(ranked: list[str], pair: Pair, files_up: int, prev_up: int) -> list[str]:
    """``ranked`` with each candidate moved up ``files_up`` places when it lies in a file the previous
    task changed and ``prev_up`` more when it is one of that task's functions (ties keep the order)."""
    files = {_file(k) for k in pair.previous.ground_truth}
    prev = set(pair.previous.ground_truth)
    place = {k: i - files_up * (_file(k) in files) - prev_up * (k in prev) for i, k in enumerate(ranked)}
    return sorted(ranked, key=lambda k: place[k])


def _gated(least: int) -> Reorder:
    return lambda ranked, pair: _files_first(ranked, pair) if agreement(ranked, pair) >= least else ranked


REORDERINGS: dict[str, Reorder] = {
    "none": lambda ranked, pair: ranked,
    "prev-first": lambda ranked, pair: first(ranked, set(pair.previous.ground_truth).__contains__),
    "files-first": _files_first,
    "prev, then files": lambda ranked, pair: first(
        _files_first(ranked, pair), set(pair.previous.ground_truth).__contains__
    ),
    **{f"files-first if {k}+": _gated(k) for k in AGREEMENTS},
    "files-first, follow-ups only": lambda ranked, pair: (
        _files_first(ranked, pair) if pair.follow_up else ranked
    ),
}


def measure(repo_names: str, workdir: Path, mirrors: Path, more: int) -> dict[str, dict[str, list[float]]]:
    """Per kind of task and reordering, each task's R@10."""
    results: dict[str, dict[str, list[float]]] = {
        kind: {name: [] for name in REORDERINGS} for kind in ("follow-up", "unrelated")
    }
    measured: list[tuple[Pair, list[str]]] = []
    for repo in expand(repo_names):
        clone = working_clone(repo, mirrors, workdir)
        tasks = load_tasks(repo, DEFAULT_TASKS, DEFAULT_SEED, DEFAULT_WINDOW)
        if tasks is None:
            raise SystemExit(f"{repo.name}: no task file; run python -m bench.quality first")
        if more:
            head = json.loads(tasks_path(repo).read_text(encoding="utf-8"))["head"]
            tasks = [*tasks, *more_tasks(clone, head, tasks, more, DEFAULT_SEED, DEFAULT_WINDOW)]
        opened = Repository.open(clone)
        try:
            for pair in pairs(clone, tasks):
                checkout(clone, pair.task.parent)
                index_repo(clone)
                ranked = ranking(opened, pair.task.text, Recall(NOW))
                kind = "follow-up" if pair.follow_up else "unrelated"
                for name, reorder in REORDERINGS.items():
                    results[kind][name].append(
                        task_metrics(reorder(ranked, pair), pair.task.ground_truth)["R@10"]
                    )
                measured.append((pair, ranked))
        finally:
            opened.close()
        print(f"{repo.name}: done", file=sys.stderr, flush=True)
    for gate, name in GATES.items():
        follow, unrelated, (files_up, prev_up) = best_boost(measured, gate)
        results["follow-up"][name], results["unrelated"][name] = follow, unrelated
        print(f"{name}: files {files_up} places up, previous functions {prev_up} more", flush=True)
    return results


def _r10(ranked: list[str], pair: Pair) -> float:
    return task_metrics(ranked, pair.task.ground_truth)["R@10"]


def _agreeing(least: int) -> Callable[[list[str], Pair], bool]:
    return lambda ranked, pair: agreement(ranked, pair) >= least


GATES: dict[Callable[[list[str], Pair], bool], str] = {
    (lambda ranked, pair: pair.follow_up): "best boost, follow-ups only",
    **{_agreeing(k): f"best boost if {k}+" for k in AGREEMENTS},
    (lambda ranked, pair: True): "best boost, every task",
}


def best_boost(
    measured: list[tuple[Pair, list[str]]], gate: Callable[[list[str], Pair], bool]
) -> tuple[list[float], list[float], tuple[int, int]]:
    """The follow-up and unrelated R@10 of each task under the boost of ``BOOSTS`` that does best on
    the follow-ups (applied where ``gate`` lets it) while unrelated tasks keep ``UNRELATED_FLOOR``,
    and that boost (places up for a candidate in the previous task's files, more for its functions)."""
    plain = [_r10(ranked, pair) for pair, ranked in measured]
    kinds = [pair.follow_up for pair, _ in measured]
    unrelated_plain = sum(r for r, follow in zip(plain, kinds, strict=True) if not follow)
    best: tuple[float, list[float], tuple[int, int]] = (-1.0, plain, (0, 0))
    for files_up in BOOSTS:
        for prev_up in BOOSTS:
            rows = [
                _r10(boosted(ranked, pair, files_up, prev_up), pair) if gate(ranked, pair) else r
                for (pair, ranked), r in zip(measured, plain, strict=True)
            ]
            follow = sum(r for r, f in zip(rows, kinds, strict=True) if f)
            unrelated = sum(r for r, f in zip(rows, kinds, strict=True) if not f)
            if unrelated >= UNRELATED_FLOOR * unrelated_plain and follow > best[0]:
                best = (follow, rows, (files_up, prev_up))
    by_kind = list(zip(best[1], kinds, strict=True))
    return [r for r, f in by_kind if f], [r for r, f in by_kind if not f], best[2]


def means(results: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    """Per kind of task and reordering, the mean R@10."""
    return {
        kind: {n: sum(v) / len(v) if v else 0.0 for n, v in rows.items()} for kind, rows in results.items()
    }


def report(results: dict[str, dict[str, list[float]]]) -> list[str]:
    """One line per reordering: R@10 on follow-up and unrelated tasks, and each relative to none."""
    mean = means(results)
    follow, unrelated = mean["follow-up"], mean["unrelated"]
    counts = {kind: len(rows["none"]) for kind, rows in results.items()}
    lines = [
        f"follow-up tasks: {counts['follow-up']}, unrelated: {counts['unrelated']}",
        f"{'reordering':<30} {'follow-up R@10':>22} {'unrelated R@10':>22}",
    ]
    for name in [*REORDERINGS, *GATES.values()]:
        cells = [
            f"{m[name]:.3f} ({(m[name] - m['none']) / m['none'] if m['none'] else 0.0:+.1%})"
            for m in (follow, unrelated)
        ]
        lines.append(f"{name:<30} {cells[0]:>22} {cells[1]:>22}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the reorderings and print their table."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.followup_ceiling", description=__doc__)
    parser.add_argument("--repos", default="tuning", help="names or groups (tuning, heldout, all)")
    parser.add_argument("--more", type=int, default=0, help="also pair up to N more tasks per repository")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args(argv)
    print(machine_line(machine_info()), flush=True)
    results = measure(args.repos, args.workdir, args.mirrors, args.more)
    for line in report(results):
        print(line)
    counts = {kind: len(rows["none"]) for kind, rows in results.items()}
    data = {"repos": args.repos, "more": args.more, "tasks": counts, "R@10": means(results)}
    print(f"details: {write_json('followup-ceiling-' + args.repos.replace(',', '-'), data)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
