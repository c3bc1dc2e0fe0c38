"""How much could any memory of the previous task buy on follow-up tasks? Upper bounds for issue #17.

The follow-up benchmark (``followup.py``) pairs each task B with its predecessor A. Whatever a memory
keeps of A (its functions, their files), all it can do for B is reorder B's own ranking. This ranks
B once without memory (``none``) and measures R@10 after generous reorderings that use A's answer:

- ``prev-first``: A's changed functions first (in B's order), then the rest;
- ``files-first``: every candidate in a file A changed first, then the rest;
- ``files-first if K+``: the same, only for tasks whose own top 10 already has at least K candidates
  in A's files (the agreement a product can see; it cannot see which tasks are follow-ups);
- ``files-first, follow-ups only``: the same, applied to exactly the follow-up tasks (an oracle that
  knows the benchmark's label, which no product has).

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


def _gated(least: int) -> Reorder:
    return lambda ranked, pair: _files_first(ranked, pair) if agreement(ranked, pair) >= least else ranked


REORDERINGS: dict[str, Reorder] = {
    "none": lambda ranked, pair: ranked,
    "prev-first": lambda ranked, pair: first(ranked, set(pair.previous.ground_truth).__contains__),
    "files-first": _files_first,
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
        finally:
            opened.close()
        print(f"{repo.name}: done", file=sys.stderr, flush=True)
    return results


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
    for name in REORDERINGS:
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
