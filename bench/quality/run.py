"""Retrieval quality of task context on real repositories: mnemo's full pipeline vs BM25 alone.

Tasks are mined from each repository's git history (a commit's cleaned message -> the functions it
changed, evaluated on the parent commit's tree) and stored in ``bench/quality/tasks/<repo>.json``;
each run checks out every task's parent, updates the index incrementally and ranks the task with
the full pipeline and with the FTS5/BM25 channel alone. Prints a table per repository and a
combined one, the relative gain over BM25, PASS/FAIL per floor, and writes per-task details to
``bench/out/quality-<repo>.json``. See ``bench/quality/README.md`` for the metric definitions.

Run from the mnemo checkout: ``python -m bench.quality [--repos pytest,black] [--tasks 50] [--dump 10]``.
Repositories must have been fetched (``/work/.mirror/<owner>+<name>/repo``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import OUT_DIR, machine_info, machine_line, write_json
from bench.quality import evaluate, report
from bench.quality.metrics import RANK_DEPTH
from bench.quality.mining import Task
from bench.quality.repos import (
    DEFAULT_MIRRORS,
    DEFAULT_REPOS,
    DEFAULT_WORKDIR,
    BenchRepo,
    ensure_commits,
    load_tasks,
    lookup,
    mine_tasks,
    working_clone,
)

DEFAULT_TASKS = 50
DEFAULT_SEED = 0
DEFAULT_WINDOW = 1000  # newest first-parent commits considered: recent enough to resemble today's code
OUT_PREFIX = "quality-"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", default=",".join(DEFAULT_REPOS),
                        help="comma-separated short names or GitHub owner/name (default: %(default)s)")
    parser.add_argument("--tasks", type=int, default=DEFAULT_TASKS, help="tasks per repository")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the task sample")
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW,
                        help="mine among this many newest first-parent commits")
    parser.add_argument("--head", default=None,
                        help="mine back from this revision "
                             "(default: the task file's head, else the default branch)")
    parser.add_argument("--only-mine", action="store_true",
                        help="(re)mine and write the task files, then stop")
    parser.add_argument("--dump", type=int, default=0, metavar="FAILS",
                        help="print the FAILS worst tasks with their ground truth and both top-10 lists")
    parser.add_argument("--from-out", action="store_true",
                        help="do not run: report (and --dump) from the last bench/out/quality-<repo>.json")
    parser.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="where fetched mirrors live")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR,
                        help="where the working clones are kept between runs")
    args = parser.parse_args(argv)
    args.repos = [lookup(name.strip()) for name in args.repos.split(",") if name.strip()]
    if args.tasks < 1 or not args.repos:
        parser.error("--tasks must be at least 1 and --repos must name a repository")
    return args


def tasks_for(repo: BenchRepo, clone: Path, args: argparse.Namespace) -> list[Task]:
    """The stored tasks when they fit the arguments, else freshly mined ones."""
    tasks = None if args.only_mine else load_tasks(repo, args.tasks, args.seed, args.window)
    if tasks is None:
        tasks = mine_tasks(repo, clone, args.tasks, args.seed, args.window, args.head)
        _log(f"{repo.name}: mined {len(tasks)} tasks")
    return tasks


def run_repo(repo: BenchRepo, args: argparse.Namespace, machine: dict[str, Any]) -> dict[str, Any]:
    """Mine or load the tasks of one repository, evaluate them, write and return its output."""
    clone = working_clone(repo, args.mirrors, args.workdir)
    tasks = tasks_for(repo, clone, args)
    ensure_commits(clone, (t.parent for t in tasks))
    previous = _previous_full(repo, [t.id for t in tasks])
    started = time.perf_counter()
    tty = sys.stderr.isatty()

    def progress(i: int, result: evaluate.TaskResult) -> None:
        if tty:
            _log(f"\r{repo.name}: {i + 1}/{len(tasks)} tasks, {time.perf_counter() - started:.0f} s", end="")

    results = evaluate.evaluate(clone, tasks, progress)
    _log(f"{chr(13) if tty else ''}{repo.name}: {len(results)} tasks, {time.perf_counter() - started:.0f} s")
    records = [r.to_json() for r in results]
    summary = report.summarize(records)
    output = {
        "repo": repo.name, "source": repo.source, "held_out": repo.held_out, "machine": machine,
        "params": {"tasks": args.tasks, "seed": args.seed, "window": args.window, "rank_depth": RANK_DEPTH},
        "elapsed_s": round(time.perf_counter() - started, 1),
        "load_average": os.getloadavg()[0],  # other work on the machine inflates the query times
        "median_index_ms": statistics.median(r.index_ms for r in results) if results else 0.0,
        "summary": summary,
        "previous": previous,
        "floors": [vars(f) for f in report.floors(repo.name, summary)],
        "tasks": records,
    }
    write_json(OUT_PREFIX + repo.name, output)
    return output


def _previous_full(repo: BenchRepo, task_ids: list[str]) -> dict[str, Any] | None:
    """The full pipeline's summary in the last saved run, when it ran the same tasks."""
    path = OUT_DIR / f"{OUT_PREFIX}{repo.name}.json"
    if not path.exists():
        return None
    last = json.loads(path.read_text(encoding="utf-8"))
    if sorted(r["id"] for r in last["tasks"]) != sorted(task_ids):
        return None
    return {"summary": last["summary"]["full"], "mnemo_commit": last["machine"]["mnemo_commit"],
            "date": last["machine"]["date"]}


def load_out(repo: BenchRepo) -> dict[str, Any]:
    """The saved output of the last run on ``repo``."""
    path = OUT_DIR / f"{OUT_PREFIX}{repo.name}.json"
    if not path.exists():
        raise SystemExit(f"no saved run for {repo.name} at {path}: run without --from-out first")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def print_report(outputs: list[dict[str, Any]], args: argparse.Namespace) -> bool:
    """Tables, floors and the optional dump; True when every floor passed."""
    rows: list[list[str]] = []
    checks: list[report.Floor] = []
    for out in outputs:
        label = out["repo"] + (" (held out)" if out["held_out"] else "")
        previous = out.get("previous")
        rows += report.summary_rows(label, len(out["tasks"]), out["summary"],
                                    previous["summary"] if previous else None)
        checks += report.floors(out["repo"], out["summary"])
    rows += _combined_rows(outputs)
    print(f"\nTask-context retrieval quality (functions/methods/classes; MRR counts ranks <= {RANK_DEPTH})")
    print(f"machine: {machine_line(outputs[0]['machine'])}")
    loads = ", ".join(f"{o['repo']} {o['load_average']:.1f}" for o in outputs if "load_average" in o)
    print(f"1-minute load average after each repository: {loads or 'n/a'}\n")
    print(report.text_table(rows))
    print("gain: full over bm25, relative; vs last: full minus the previous saved run on the same tasks;\n"
          "median ms: the first query on each task's tree (warm process); again ms: the same query repeated")
    if args.markdown:
        print("\n" + report.markdown_table(rows))
    print("\n" + "\n".join(report.floor_lines(checks)))
    if args.dump:
        print_dump(outputs, args.dump)
    return all(c.ok for c in checks)


def print_dump(outputs: list[dict[str, Any]], count: int) -> None:
    """The worst tasks of the tuning repositories; held-out ones only when nothing else was run, so
    their failures never steer the tuning by accident."""
    tuning = [o for o in outputs if not o["held_out"]]
    shown = tuning or outputs
    pooled = [(out["repo"], record) for out in shown for record in out["tasks"]]
    skipped = [o["repo"] for o in outputs if o not in shown]
    note = f"; held out, not shown: {', '.join(skipped)}" if skipped else ""
    print(f"\nThe {count} worst tasks of the full pipeline (* marks ground truth{note}):\n")
    print(report.dump(pooled, count))


def _combined_rows(outputs: list[dict[str, Any]]) -> list[list[str]]:
    """Pooled over the tuning repositories (and over the held-out ones, apart), when more than one."""
    rows = []
    for label, group in (("all tuning", [o for o in outputs if not o["held_out"]]),
                         ("all held out", [o for o in outputs if o["held_out"]])):
        if len(group) > 1:
            records = [r for o in group for r in o["tasks"]]
            rows += report.summary_rows(label, len(records), report.summarize(records))
    return rows


def _log(message: str, end: str = "\n") -> None:
    print(message, end=end, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Mine, run and report; exit status 1 when a floor fails."""
    args = parse_args(argv)
    if args.only_mine:
        for repo in args.repos:
            tasks_for(repo, working_clone(repo, args.mirrors, args.workdir), args)
        return 0
    if args.from_out:
        outputs = [load_out(repo) for repo in args.repos]
    else:
        machine = machine_info()
        outputs = [run_repo(repo, args, machine) for repo in args.repos]
    return 0 if print_report(outputs, args) else 1
