"""Follow-up tasks: does memory of the previous task help the next one, and leave the others alone?

For each benchmark task B, its **predecessor** A is the commit just before it on the first-parent
line (B's parent): its cleaned message is A's task and the functions it changed (mined by the
benchmark's own rules) A's answer. When A changed a file B changes too, B is a **follow-up**, else
B is **unrelated** (a predecessor whose message says nothing, or that changed no function, is left
out). On B's parent tree, B is ranked four ways, and R@10 and MRR averaged per kind of task:

- ``none``: no memory (the product with an empty ``.mnemo/memory.db``);
- ``session``: A's changed functions were edited ``SESSION_AGE_S`` ago (the developer's session);
- ``memory``: A's text is remembered with its changed functions as used (what a landed commit, or
  ``mnemo feedback``, remembers);
- ``both``: the two together, as the product runs.

A's changed functions are its ground truth, looked up by key in B's tree (those gone are dropped).
The issue's floors: ``both`` raises R@10 on follow-up tasks by at least 10 % relative to ``none``,
and lowers it on unrelated tasks by at most 2 %. Held-out repositories are judged on aggregates
only, as in the main benchmark (no per-task output here at all).

With ``--more N``, each repository also pairs up to N more tasks mined by the same rules from the
same head, seed and window (those after the task file's in the seeded order; mining is
deterministic, so they are not stored): the same benchmark, measured on more tasks.

    python -m bench.quality.followup --repos tuning --workdir /tmp/mnemo-tune [--more 50]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.quality.evaluate import RANKED_KINDS, checkout
from bench.quality.metrics import task_metrics
from bench.quality.mining import (
    Task,
    clean_message,
    git,
    ground_truth,
    is_descriptive,
    mine,
    pr_message,
    source_changes,
)
from bench.quality.repos import (
    DEFAULT_MIRRORS,
    DEFAULT_WORKDIR,
    BenchRepo,
    expand,
    load_tasks,
    tasks_path,
    working_clone,
)
from bench.quality.run import DEFAULT_SEED, DEFAULT_TASKS, DEFAULT_WINDOW
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import index_repo
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.recall import Event, Recall, RememberedTask, terms_of
from mnemo_core.retrieve.task import rank_task

VARIANTS = ("none", "session", "memory", "both")
SESSION_AGE_S = 10 * 60.0  # the previous task's edits, ten minutes before the next task is asked
NOW = 2_000_000_000.0  # any time: only ages matter
MERGE_PREFIX = "Merge pull request"
FOLLOW_UP_GAIN = 0.10  # the floors: at least +10 % relative R@10 on follow-up tasks...
UNRELATED_LOSS = 0.02  # ...and at most -2 % on unrelated ones


@dataclass(frozen=True)
class Pair:
    """A task and the one before it whose memory it is given."""

    previous: Task
    task: Task
    follow_up: bool


def pairs(root: Path, tasks: Sequence[Task]) -> list[Pair]:
    """Each task with its predecessor commit, oldest first (see the module docstring)."""
    found = []
    for task in sorted(tasks, key=lambda t: -t.position):
        previous = predecessor(root, task)
        if previous is not None:
            found.append(Pair(previous, task, bool(_files(previous) & _files(task))))
    return found


def predecessor(root: Path, task: Task) -> Task | None:
    """The commit before ``task`` as a task of its own (None when it makes none)."""
    before = git(root, "rev-parse", f"{task.parent}^1").strip()
    message = git(root, "log", "-1", "--format=%B", task.parent)
    text = clean_message(pr_message(message) if message.startswith(MERGE_PREFIX) else message)
    truth = ground_truth(root, before, source_changes(root, before, task.parent))
    if not truth or not is_descriptive(text):
        return None
    return Task(task.parent, before, task.position + 1, text.splitlines()[0], text, tuple(truth))


def more_tasks(
    root: Path, head: str, known: Sequence[Task], count: int, seed: int, window: int
) -> list[Task]:
    """Up to ``count`` tasks beyond ``known``, mined by the benchmark's rules from the same head, seed
    and window (``known`` being the first of them)."""
    ids = {t.id for t in known}
    return [t for t in mine(root, head, len(known) + count, seed, window) if t.id not in ids][:count]


def _files(task: Task) -> set[str]:
    return {key.split(":", 1)[0] for key in task.ground_truth}


def recalls(repo: Repository, previous: Task) -> dict[str, Recall]:
    """The memory each variant gives, of ``previous``'s changed functions as they are in this tree."""
    keys = set(previous.ground_truth)
    used = {
        (s.path, s.name, s.kind)
        for path in {k.split(":", 1)[0] for k in keys}
        for s in repo.store.symbols_in_file(path)
        if s.key in keys
    }
    events = tuple(Event(NOW - SESSION_AGE_S, "edited", *key) for key in sorted(used))
    remembered = (RememberedTask(previous.text, terms_of(previous.text), frozenset(used), frozenset()),)
    return {
        "none": Recall(NOW),
        "session": Recall(NOW, events),
        "memory": Recall(NOW, (), remembered),
        "both": Recall(NOW, events, remembered),
    }


def ranking(repo: Repository, text: str, recall: Recall) -> list[str]:
    """mnemo's task ranking with ``recall``, as ``path:qualified.name`` keys."""
    try:
        ranked = rank_task(repo.store, repo.root, text, recency_lookup(repo), recall=recall)
    except MnemoError:
        return []
    symbols = (ranked.symbols[s.symbol_id] for s in ranked.scored)
    return [s.key for s in symbols if s.kind in RANKED_KINDS]


def run_repo(repo: BenchRepo, args: argparse.Namespace) -> dict[str, dict[str, list[dict[str, float]]]]:
    """Per kind of task (follow-up, unrelated) and variant, the metrics of every task."""
    clone = working_clone(repo, args.mirrors, args.workdir)
    tasks = load_tasks(repo, args.tasks, args.seed, args.window)
    if tasks is None:
        raise SystemExit(f"{repo.name}: no task file for these arguments; run python -m bench.quality first")
    if args.more:
        head = json.loads(tasks_path(repo).read_text(encoding="utf-8"))["head"]
        tasks = [*tasks, *more_tasks(clone, head, tasks, args.more, args.seed, args.window)]
    results: dict[str, dict[str, list[dict[str, float]]]] = {
        kind: {v: [] for v in VARIANTS} for kind in ("follow-up", "unrelated")
    }
    opened = Repository.open(clone)
    try:
        for pair in pairs(clone, tasks):
            checkout(clone, pair.task.parent)
            index_repo(clone)
            kind = "follow-up" if pair.follow_up else "unrelated"
            for variant, recall in recalls(opened, pair.previous).items():
                keys = ranking(opened, pair.task.text, recall)
                results[kind][variant].append(task_metrics(keys, pair.task.ground_truth))
    finally:
        opened.close()
    return results


def _mean(rows: list[dict[str, float]], metric: str) -> float:
    return sum(r[metric] for r in rows) / len(rows) if rows else 0.0


def report(name: str, results: dict[str, dict[str, list[dict[str, float]]]]) -> list[str]:
    """One line per kind of task: its count, then R@10 and MRR of each variant."""
    lines = []
    for kind, variants in results.items():
        count = len(variants["none"])
        cells = "  ".join(
            f"{v} {_mean(variants[v], 'R@10'):.3f}/{_mean(variants[v], 'MRR'):.3f}" for v in VARIANTS
        )
        lines.append(f"{name:<10} {kind:<10} n={count:<3} R@10/MRR  {cells}")
    return lines


def floors(results: dict[str, dict[str, list[dict[str, float]]]]) -> list[str]:
    """The issue's two floors over the pooled tasks, each with its verdict."""
    follow, unrelated = results["follow-up"], results["unrelated"]
    gain = _relative(_mean(follow["both"], "R@10"), _mean(follow["none"], "R@10"))
    loss = _relative(_mean(unrelated["both"], "R@10"), _mean(unrelated["none"], "R@10"))
    return [
        f"follow-up R@10 {gain:+.1%} relative (floor +{FOLLOW_UP_GAIN:.0%}): "
        f"{'pass' if gain >= FOLLOW_UP_GAIN else 'FAIL'}",
        f"unrelated R@10 {loss:+.1%} relative (floor -{UNRELATED_LOSS:.0%}): "
        f"{'pass' if loss >= -UNRELATED_LOSS else 'FAIL'}",
    ]


def _relative(new: float, old: float) -> float:
    return (new - old) / old if old else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the follow-up benchmark and print its table and floors."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.followup", description=__doc__)
    parser.add_argument("--repos", default="tuning", help="names or groups (tuning, heldout, all)")
    parser.add_argument("--tasks", type=int, default=DEFAULT_TASKS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    parser.add_argument(
        "--more", type=int, default=0, help="also pair up to N more tasks per repository (same rules)"
    )
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args(argv)
    pooled: dict[str, dict[str, list[dict[str, float]]]] = {
        kind: {v: [] for v in VARIANTS} for kind in ("follow-up", "unrelated")
    }
    for repo in expand(args.repos):
        started = time.perf_counter()
        results = run_repo(repo, args)
        for line in report(repo.name, results):
            print(line, flush=True)
        print(f"{repo.name:<10} {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        for kind, variants in results.items():
            for variant, rows in variants.items():
                pooled[kind][variant] += rows
    for line in [*report("all", pooled), *floors(pooled)]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
