"""How long ``mnemo pr`` takes on a small committed change, warm index, git work included.

For each repository (flask's and pytest's sizes are the issue's reference points) the clone is
indexed first (untimed: the index is warm). Each trial then commits, on a scratch branch, a change
of 1 to 5 files (trial ``i`` touches ``1 + i % 5`` files; in each, one seeded function gets the
benchmark's ``pass`` line, see ``edits.py``) and times the real command a user runs,
``mnemo pr --base HEAD~1 --format json``, in a fresh process: interpreter start-up, imports, the
incremental re-index of the changed files, ``git diff``, the base-side extraction, the graph walks
and ``git blame``. It is timed twice: the **first** call after the commit (it re-indexes the
changed files) and a **repeat** (nothing to re-index). The floors (flask <= 1 s, pytest <= 3 s)
are checked on the median of the first calls, the stricter of the two. The engine's own
``stats.elapsed_ms`` is reported beside the wall times. The clone is reset and re-indexed after
each trial.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

from bench.common import machine_info, machine_line, run_measured, table, verdict, write_json
from bench.impact.edits import insert_statement
from bench.impact.oracle import source_functions
from bench.impact.repos import ImpactRepo, argument_parser, clone_of, git, lookup, package_sources

DEFAULT_REPOS = ("flask", "pytest")
DEFAULT_TRIALS = 10
DEFAULT_SEED = 0
MAX_FILES = 5
FLOORS_S = {"flask": 1.0, "pytest": 3.0}  # the budgets for repositories of these sizes
SCRATCH_BRANCH = "mnemo-impact-speed"
GIT_IDENTITY = ("-c", "user.name=mnemo bench", "-c", "user.email=bench@mnemo.invalid")


def mnemo_command() -> list[str]:
    """The installed ``mnemo`` console script."""
    found = shutil.which("mnemo")
    if found is None:
        raise SystemExit("mnemo is not on PATH: pip install -e . first")
    return [found]


def editable_functions(clone: Path, repo: ImpactRepo) -> dict[str, list[int]]:
    """Per source file of the package, the ``def`` lines of the functions the edit applies to."""
    found: dict[str, list[int]] = {}
    for source in package_sources(repo, clone):
        text = source.read_text(encoding="utf-8")
        relative = source.relative_to(clone).as_posix()
        lines = [f.line for f in source_functions(text, relative) if insert_statement(text, f.line)]
        if lines:
            found[relative] = lines
    return found


def commit_change(clone: Path, functions: dict[str, list[int]], files: int, rng: random.Random) -> list[str]:
    """Edit one function in each of ``files`` random files and commit; the edited ``path:line``s."""
    edited = []
    for path in rng.sample(sorted(functions), files):
        line = rng.choice(functions[path])
        target = clone / path
        edit = insert_statement(target.read_text(encoding="utf-8"), line)
        assert edit is not None
        target.write_text(edit.after, encoding="utf-8")
        edited.append(f"{path}:{line}")
    git(clone, *GIT_IDENTITY, "commit", "-q", "-a", "-m", "mnemo impact benchmark: scratch change")
    return edited


def timed_pr(clone: Path) -> tuple[float, int, int]:
    """Wall seconds of ``mnemo pr --base HEAD~1``, the engine's elapsed_ms, and the tests it named."""
    run = run_measured([*mnemo_command(), "pr", "--base", "HEAD~1", "--format", "json", "--repo", str(clone)])
    if run.returncode != 0:
        raise SystemExit(f"mnemo pr failed: {run.stderr.strip()}")
    pack = json.loads(run.stdout)
    return run.wall_s, int(pack["stats"]["elapsed_ms"]), len(pack["impact"]["tests"])


def index(clone: Path, full: bool = False) -> float:
    """Bring the clone's index up to date (``full``: rebuild it); the seconds it took."""
    run = run_measured([*mnemo_command(), "index", *(["--full"] if full else []), str(clone)])
    if run.returncode != 0:
        raise SystemExit(f"mnemo index failed: {run.stderr.strip()}")
    return run.wall_s


def measure(repo: ImpactRepo, workdir: Path, trials: int, seed: int) -> dict[str, Any]:
    """All trials on one repository."""
    clone = clone_of(repo, workdir)
    warmup = index(clone, full=True)  # built by the engine installed now (untimed: the index is warm)
    files = int(git(clone, "ls-files").count("\n"))
    functions = editable_functions(clone, repo)
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    try:
        git(clone, "checkout", "-q", "-B", SCRATCH_BRANCH, repo.commit)
        for i in range(trials):
            count = 1 + i % MAX_FILES
            edited = commit_change(clone, functions, count, rng)
            first, first_ms, tests = timed_pr(clone)
            repeat, repeat_ms, _ = timed_pr(clone)
            rows.append(
                {
                    "files": count,
                    "edited": edited,
                    "first_s": round(first, 3),
                    "first_engine_ms": first_ms,
                    "repeat_s": round(repeat, 3),
                    "repeat_engine_ms": repeat_ms,
                    "tests": tests,
                }
            )
            git(clone, "reset", "-q", "--hard", repo.commit)
            index(clone)
    finally:
        git(clone, "checkout", "-q", "-f", "--detach", repo.commit)
        subprocess.run(
            ["git", "-C", str(clone), "branch", "-q", "-D", SCRATCH_BRANCH], capture_output=True, check=False
        )
        index(clone)
    first = statistics.median(r["first_s"] for r in rows)
    budget = FLOORS_S.get(repo.name)
    return {
        "repo": repo.name,
        "commit": repo.commit,
        "tracked_files": files,
        "full_index_s": round(warmup, 2),
        "trials": rows,
        "median_first_s": first,
        "median_repeat_s": statistics.median(r["repeat_s"] for r in rows),
        "median_first_engine_ms": statistics.median(r["first_engine_ms"] for r in rows),
        "median_repeat_engine_ms": statistics.median(r["repeat_engine_ms"] for r in rows),
        "budget_s": budget,
        "pass": None if budget is None else first <= budget,
    }


def main(argv: list[str] | None = None) -> int:
    """Time ``mnemo pr`` on the chosen repositories and print the table."""
    parser = argument_parser(__doc__, "the benchmark's clones", DEFAULT_REPOS)
    parser.add_argument(
        "--trials",
        type=int,
        default=DEFAULT_TRIALS,
        help=f"changes per repository (default {DEFAULT_TRIALS})",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed (default {DEFAULT_SEED})")
    args = parser.parse_args(argv)
    info = machine_info()
    print(machine_line(info))
    load_before = os.getloadavg()[0]
    results = [measure(lookup(name), args.workdir, args.trials, args.seed) for name in args.repos.split(",")]
    load = {"before": load_before, "after": os.getloadavg()[0]}  # other work on the machine skews times
    print(
        f"1-minute load average: {load['before']:.2f} before, {load['after']:.2f} after "
        f"({info['nproc']} cores)"
    )
    headers = (
        "repo",
        "files",
        "trials",
        "first median s",
        "repeat median s",
        "engine ms first",
        "engine ms repeat",
        "budget s",
        "verdict",
    )
    print(
        table(
            headers,
            [
                [
                    r["repo"],
                    r["tracked_files"],
                    len(r["trials"]),
                    r["median_first_s"],
                    r["median_repeat_s"],
                    r["median_first_engine_ms"],
                    r["median_repeat_engine_ms"],
                    r["budget_s"] or "-",
                    verdict(r["pass"]) if r["pass"] is not None else "-",
                ]
                for r in results
            ],
        )
    )
    path = write_json(
        "impact-speed",
        {"machine": info, "trials": args.trials, "seed": args.seed, "load_average": load, "repos": results},
    )
    print(f"details: {path}")
    return 0 if all(r["pass"] is not False for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
