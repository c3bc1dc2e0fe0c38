"""Retrieval quality of task context on real repositories: mnemo's pipeline vs an honest BM25.

Tasks are mined from each repository's git history (a commit's or a merged pull request's cleaned
message -> the functions it changed, evaluated on the parent commit's tree) and stored in
``bench/quality/tasks/<repo>.json``; each run checks out every task's parent, updates the index
incrementally and ranks the task with each ranker (``full``: mnemo; ``bm25``: the independent
baseline; ``fts``: mnemo's FTS channel alone; ``rrf``: full and bm25 fused). Prints a table per
repository, per task source and pooled, PASS/FAIL per floor (held-out repositories: full against
bm25), and writes per-task details to ``bench/out/quality-<repo>.json``. See
``bench/quality/README.md`` for the definitions.

Run from the mnemo checkout: ``python -m bench.quality [--repos tuning] [--rankers full,bm25] [--dump 10]``.
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
from bench.quality.mining import COMMIT, PR, Task
from bench.quality.repos import (
    DEFAULT_MIRRORS,
    DEFAULT_WORKDIR,
    GROUPS,
    BenchRepo,
    ensure_commits,
    expand,
    load_tasks,
    mine_tasks,
    working_clone,
)

DEFAULT_TASKS = 50
DEFAULT_SEED = 0
DEFAULT_WINDOW = 1000  # newest first-parent commits considered: recent enough to resemble today's code
OUT_PREFIX = "quality-"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--repos",
        default="all",
        help=f"comma-separated short names, GitHub owner/name or groups "
        f"({', '.join(GROUPS)}; default: %(default)s)",
    )
    parser.add_argument(
        "--rankers",
        default=",".join(evaluate.DEFAULT_RANKERS),
        help=f"comma-separated, of {', '.join(evaluate.ALL_RANKERS)} (default: %(default)s)",
    )
    parser.add_argument("--tasks", type=int, default=DEFAULT_TASKS, help="tasks per repository")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the task sample")
    parser.add_argument(
        "--window", type=int, default=DEFAULT_WINDOW, help="mine among this many newest first-parent commits"
    )
    parser.add_argument(
        "--head",
        default=None,
        help="mine back from this revision (default: the task file's head, else the default branch)",
    )
    parser.add_argument(
        "--only-mine", action="store_true", help="(re)mine and write the task files, then stop"
    )
    parser.add_argument(
        "--dump",
        type=int,
        default=0,
        metavar="FAILS",
        help="print the FAILS worst tasks of the tuning repositories with their ground "
        "truth and each ranker's top 10",
    )
    parser.add_argument(
        "--final",
        action="store_true",
        help="let --dump show held-out repositories' tasks too (the final check only)",
    )
    parser.add_argument(
        "--from-out",
        action="store_true",
        help="do not run: report (and --dump) from the last bench/out/quality-<repo>.json",
    )
    parser.add_argument(
        "--candidate",
        type=Path,
        metavar="FILE",
        help="weights (JSON: component -> weight, those given replace score.py's for Python) for the "
        "candidate and candidate-lexical rankers",
    )
    parser.add_argument(
        "--once",
        action="store_true",
        help="rank each task once, not twice (quality figures only: again ms is 0 and its floor is not read)",
    )
    parser.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="where fetched mirrors live")
    parser.add_argument(
        "--workdir", type=Path, default=DEFAULT_WORKDIR, help="where the working clones are kept between runs"
    )
    args = parser.parse_args(argv)
    args.repos = list({r.name: r for r in expand(args.repos)}.values())
    args.rankers = [name.strip() for name in args.rankers.split(",") if name.strip()]
    unknown = set(args.rankers) - set(evaluate.ALL_RANKERS)
    if any(r.startswith("candidate") for r in args.rankers):
        if args.candidate is None:
            parser.error("the candidate rankers need --candidate FILE")
        evaluate.CANDIDATE_WEIGHTS.update(_candidate(args.candidate))
    if args.tasks < 1 or not args.repos or not args.rankers or unknown:
        parser.error(
            "--tasks must be at least 1, --repos must name a repository and --rankers "
            f"known rankers ({', '.join(evaluate.ALL_RANKERS)})"
        )
    return args


def _candidate(path: Path) -> dict[str, float]:
    """The weights of a ``--candidate`` file, refused when it names no known component."""
    from mnemo_core.retrieve.score import WEIGHTS

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"--candidate {path}: {error}") from None
    if not isinstance(data, dict) or not set(data) <= set(WEIGHTS):
        raise SystemExit(f"--candidate {path}: an object of weights of {', '.join(WEIGHTS)}")
    return {name: float(value) for name, value in data.items()}


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

    results = evaluate.evaluate(clone, tasks, args.rankers, progress, args.once)
    _log(f"{chr(13) if tty else ''}{repo.name}: {len(results)} tasks, {time.perf_counter() - started:.0f} s")
    records = [r.to_json() for r in results]
    summary = report.summarize(records)
    output = {
        "repo": repo.name,
        "source": repo.source,
        "held_out": repo.held_out,
        "machine": machine,
        "params": {
            "tasks": args.tasks,
            "seed": args.seed,
            "window": args.window,
            "rank_depth": RANK_DEPTH,
            "rankers": args.rankers,
        },
        "elapsed_s": round(time.perf_counter() - started, 1),
        "load_average": os.getloadavg()[0],  # other work on the machine inflates the query times
        "median_index_ms": statistics.median(r.index_ms for r in results) if results else 0.0,
        "summary": summary,
        "previous": previous,
        "floors": [vars(f) for f in _repo_floors(repo.held_out, repo.name, summary)],
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
    if sorted(r["id"] for r in last["tasks"]) != sorted(task_ids) or "full" not in last["summary"]:
        return None
    return {
        "summary": last["summary"]["full"],
        "mnemo_commit": last["machine"]["mnemo_commit"],
        "date": last["machine"]["date"],
    }


def load_out(repo: BenchRepo) -> dict[str, Any]:
    """The saved output of the last run on ``repo``."""
    path = OUT_DIR / f"{OUT_PREFIX}{repo.name}.json"
    if not path.exists():
        raise SystemExit(f"no saved run for {repo.name} at {path}: run without --from-out first")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _repo_floors(held_out: bool, repo: str, summary: dict[str, Any]) -> list[report.Floor]:
    """Quality floors on held-out repositories only (tuning ones are where the gap is closed)."""
    return report.ratio_floors(repo, summary) if held_out else []


def print_report(outputs: list[dict[str, Any]], args: argparse.Namespace) -> bool:
    """Tables, floors and the optional dump; True when every floor passed."""
    rows: list[list[str]] = []
    quality: list[report.Floor] = []
    timing: list[report.Floor] = []
    for out in outputs:
        label = out["repo"] + (" (held out)" if out["held_out"] else "")
        previous = out.get("previous")
        rows += report.summary_rows(
            label, len(out["tasks"]), out["summary"], previous["summary"] if previous else None
        )
        quality += _repo_floors(out["held_out"], out["repo"], out["summary"])
        timing += report.time_floors(out["repo"], out["summary"])
    held_out = [o["summary"] for o in outputs if o["held_out"]]
    if len(held_out) > 1:
        quality += report.macro_floors(held_out)
    rows += _combined_rows(outputs)
    print(f"\nTask-context retrieval quality (functions/methods/classes; MRR counts ranks <= {RANK_DEPTH})")
    print(f"machine: {machine_line(outputs[0]['machine'])}")
    loads = ", ".join(f"{o['repo']} {o['load_average']:.1f}" for o in outputs if "load_average" in o)
    print(f"1-minute load average after each repository: {loads or 'n/a'}")
    print(_coverage_line(outputs) + "\n")
    print(report.text_table(rows))
    print(
        "full/bm25: full over the baseline (ratio); vs last: full minus the previous saved run on the\n"
        "same tasks; median ms: in process, the first query on each task's tree (warm process);\n"
        "again ms: the same query repeated; rrf ms: full + bm25"
    )
    if args.markdown:
        print("\n" + report.markdown_table(rows))
    print("\nQuality floors (held out, full vs bm25, side by side in this run):")
    print("\n".join(report.floor_lines(quality)) or "  none checked: no held-out repository in this run")
    print("\nIn-process query time (full pipeline):")
    print("\n".join(report.floor_lines(timing)))
    if args.dump:
        print_dump(outputs, args.dump, args.final)
    return all(c.ok for c in quality + timing)


def _coverage_line(outputs: list[dict[str, Any]]) -> str:
    """How many ground-truth keys the baseline has a document for (its keys agree with the mining's)."""
    truth = sum(len(r["ground_truth"]) for o in outputs for r in o["tasks"])
    missing = sum(len(r.get("not_in_baseline", [])) for o in outputs for r in o["tasks"])
    share = 1 - missing / truth if truth else 1.0
    return f"ground-truth keys with a baseline document: {truth - missing}/{truth} ({share:.1%})"


def print_dump(outputs: list[dict[str, Any]], count: int, final: bool) -> None:
    """The worst tasks of the tuning repositories; held-out ones only with ``--final``, so their
    failures never steer the tuning."""
    shown = [o for o in outputs if final or not o["held_out"]]
    pooled = [(out["repo"], record) for out in shown for record in out["tasks"]]
    skipped = [o["repo"] for o in outputs if o not in shown]
    note = f"; held out, not shown without --final: {', '.join(skipped)}" if skipped else ""
    print(f"\nThe {count} worst tasks of the full pipeline (* marks ground truth{note}):\n")
    print(report.dump(pooled, count) if pooled else "  (no tuning repository in this run)")


def _combined_rows(outputs: list[dict[str, Any]]) -> list[list[str]]:
    """Per task source and pooled, over the tuning repositories and over the held-out ones apart."""
    rows = []
    for label, group in (
        ("all tuning", [o for o in outputs if not o["held_out"]]),
        ("all held out", [o for o in outputs if o["held_out"]]),
    ):
        records = [r for o in group for r in o["tasks"]]
        for source in (COMMIT, PR):
            subset = [r for r in records if r.get("source", COMMIT) == source]
            if subset:
                rows += report.summary_rows(f"{label}: {source}", len(subset), report.summarize(subset))
        if len(group) > 1:
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
