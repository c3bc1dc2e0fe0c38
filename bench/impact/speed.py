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

Two more modes measure issue 42's floors, each paired with ``mnemo --version`` (the reference) in
the same run: ``--mode worktree`` edits one function (a seeded sample of the package's functions)
without committing and times ``mnemo pr --worktree`` (median, p90 by nearest rank, max); ``--mode
range`` times ``mnemo pr --base HEAD~5`` and ``mnemo tests --base HEAD~5`` on the clone as it is
(``--runs`` times, medians; the first ``pr`` apart: it computes the answer the later runs read
back). The index is warm in both (brought up to date, untimed, before each trial). ``--code DIR``
runs ``python -m mnemo_core.cli`` from DIR instead of the installed ``mnemo``, so that two
versions of mnemo are compared by the same script.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import Run, machine_info, machine_line, run_measured, table, verdict, write_json
from bench.impact.edits import insert_statement
from bench.impact.oracle import source_functions
from bench.impact.repos import ImpactRepo, argument_parser, clone_of, git, lookup, package_sources

DEFAULT_REPOS = ("flask", "pytest")
DEFAULT_TRIALS = 10
DEFAULT_SEED = 0
MAX_FILES = 5
FLOORS_S = {"flask": 1.0, "pytest": 3.0}  # the budgets for repositories of these sizes
SCRATCH_BRANCH = "mnemo-impact-speed"
RANGE_BACK = 5  # commits `--mode range` reaches back (the issue's `--base HEAD~5`)
DEFAULT_RUNS = 5
# issue 42's floors: `pr --base HEAD~5` at most this many times `mnemo --version`; one edit's p90
RANGE_RATIO_FLOOR = 6.0
EDIT_P90_FLOOR_S = 3.0
KEPT_ANSWERS = Path(".mnemo", "answers")  # where mnemo keeps change answers (``change.answers``)
# what else a change's answer reads back from earlier questions: the diff's extractions and the
# newest commits of paths (removed too before the first ``pr``: it computes everything); the
# commit-graph ``mnemo index`` keeps (``.mnemo/commitgraph``) is the index's, as the index is: kept
KEPT_DERIVED = (Path(".mnemo", "extracts.db"), Path(".mnemo", "lastchange"))
GIT_IDENTITY = ("-c", "user.name=mnemo bench", "-c", "user.email=bench@mnemo.invalid")


@dataclass(frozen=True)
class Mnemo:
    """How to run mnemo: the installed console script, or ``python -m mnemo_core.cli`` from a
    source tree (``--code``)."""

    command: tuple[str, ...]
    env: Mapping[str, str] | None = None

    def run(self, *args: str) -> Run:
        """Run mnemo with ``args``, measured."""
        return run_measured([*self.command, *args], env=self.env)


def mnemo_command(code: Path | None = None) -> Mnemo:
    """The installed ``mnemo`` console script, or mnemo run from the source tree ``code``."""
    if code is not None:  # byte-compiled and cached, as an installed package is (not a sandbox's habit)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "mnemo_core")], check=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        # PYTHONSAFEPATH: `python -m` would put the working directory first on the path, so a
        # bench run from a checkout of mnemo measured that checkout's code, not ``code``'s
        safe = {"PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}
        return Mnemo((sys.executable, "-m", "mnemo_core.cli"), {**env, **safe})
    found = shutil.which("mnemo")
    if found is None:
        raise SystemExit("mnemo is not on PATH: pip install -e . first")
    return Mnemo((found,))


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


def timed_pr(mnemo: Mnemo, clone: Path, *selector: str) -> tuple[float, int, int, float]:
    """Wall seconds of ``mnemo pr`` (default ``--base HEAD~1``), the engine's elapsed_ms, the
    tests it named (possible ones included) and the CPU seconds of its process tree."""
    run = mnemo.run("pr", *(selector or ("--base", "HEAD~1")), "--format", "json", "--repo", str(clone))
    if run.returncode != 0:
        raise SystemExit(f"mnemo pr failed: {run.stderr.strip()}")
    pack = json.loads(run.stdout)
    impact = pack["impact"]
    tests = len(impact["tests"]) + len(impact["possible_tests"])
    return run.wall_s, int(pack["stats"]["elapsed_ms"]), tests, run.cpu_s


def timed(mnemo: Mnemo, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one mnemo command that must succeed (exit 5, nothing selected, counts)."""
    run = mnemo.run(*args)
    if run.returncode not in (0, 5):
        raise SystemExit(f"mnemo {args[0]} failed: {run.stderr.strip()}")
    return run.wall_s, run.cpu_s


def index(mnemo: Mnemo, clone: Path, full: bool = False) -> float:
    """Bring the clone's index up to date (``full``: rebuild it); the seconds it took."""
    # without vectors: encoding saleor's takes CPU minutes, and the change analysis does not read them
    run = mnemo.run("index", "--no-vectors", *(["--full"] if full else []), str(clone))
    if run.returncode != 0:
        raise SystemExit(f"mnemo index failed: {run.stderr.strip()}")
    return run.wall_s


def p90(values: Sequence[float]) -> float:
    """The 90th percentile by nearest rank."""
    ordered = sorted(values)
    return ordered[max(math.ceil(0.9 * len(ordered)) - 1, 0)]


def measure_edits(repo: ImpactRepo, workdir: Path, trials: int, seed: int, mnemo: Mnemo) -> dict[str, Any]:
    """``mnemo pr --worktree`` on one edited function at a time, each beside ``mnemo --version``."""
    clone = clone_of(repo, workdir)
    index(mnemo, clone)  # untimed: the index is warm
    functions = editable_functions(clone, repo)
    candidates = sorted((path, line) for path, lines in functions.items() for line in lines)
    rows: list[dict[str, Any]] = []
    for path, line in random.Random(seed).sample(candidates, min(trials, len(candidates))):
        target = clone / path
        text = target.read_text(encoding="utf-8")
        edit = insert_statement(text, line)
        assert edit is not None
        target.write_text(edit.after, encoding="utf-8")
        try:
            version, version_cpu = timed(mnemo, "--version")
            wall, engine_ms, tests, cpu = timed_pr(mnemo, clone, "--worktree")
        finally:
            target.write_text(text, encoding="utf-8")
        rows.append(
            {
                "edited": f"{path}:{line}",
                "version_s": round(version, 3),
                "version_cpu_s": round(version_cpu, 3),
                "pr_s": round(wall, 3),
                "pr_cpu_s": round(cpu, 3),
                "engine_ms": engine_ms,
                "tests": tests,
            }
        )
        index(mnemo, clone)
    walls = [r["pr_s"] for r in rows]
    version_median = statistics.median(r["version_s"] for r in rows)
    return {
        "repo": repo.name,
        "mode": "worktree",
        "trials": rows,
        "version_median_s": version_median,
        "median_s": statistics.median(walls),
        "p90_s": p90(walls),
        "max_s": max(walls),
        "p90_ratio": round(p90(walls) / version_median, 1),
        "cpu_median_s": statistics.median(r["pr_cpu_s"] for r in rows),
        "cpu_p90_s": p90([r["pr_cpu_s"] for r in rows]),
        "pass": p90(walls) <= EDIT_P90_FLOOR_S,
    }


def measure_range(repo: ImpactRepo, workdir: Path, runs: int, mnemo: Mnemo) -> dict[str, Any]:
    """``mnemo pr`` and ``mnemo tests`` over the last ``RANGE_BACK`` commits, each run beside
    ``mnemo --version``. The first ``pr`` computes the answer (the answers, extractions and newest
    commits kept from earlier runs are removed first); the later ones, and every ``tests``,
    ask the same question of the same index: they read the kept answer. Both are reported, the
    verdict is the first's."""
    clone = clone_of(repo, workdir)
    index(mnemo, clone)  # untimed: the index is warm
    shutil.rmtree(clone / KEPT_ANSWERS, ignore_errors=True)
    for kept in (clone / k for k in KEPT_DERIVED):
        if kept.is_dir():
            shutil.rmtree(kept)
        else:
            kept.unlink(missing_ok=True)
    base = ("--base", f"HEAD~{RANGE_BACK}")
    rows = []
    for _ in range(runs):
        version, version_cpu = timed(mnemo, "--version")
        pr, pr_cpu = timed(mnemo, "pr", *base, "--format", "json", "--repo", str(clone))
        tests, tests_cpu = timed(mnemo, "tests", *base, "--format", "json", "--repo", str(clone))
        rows.append(
            {
                **{"version_s": round(version, 3), "pr_s": round(pr, 3), "tests_s": round(tests, 3)},
                **{"version_cpu_s": version_cpu, "pr_cpu_s": pr_cpu, "tests_cpu_s": tests_cpu},
            }
        )
    version_median = statistics.median(r["version_s"] for r in rows)
    pr_first = rows[0]["pr_s"]
    pr_median = statistics.median(r["pr_s"] for r in rows[1:]) if len(rows) > 1 else pr_first
    tests_median = statistics.median(r["tests_s"] for r in rows)
    return {
        "repo": repo.name,
        "mode": "range",
        "runs": rows,
        "version_median_s": version_median,
        "pr_first_s": pr_first,
        "pr_first_ratio": round(pr_first / version_median, 1),
        "pr_median_s": pr_median,
        "tests_median_s": tests_median,
        "pr_ratio": round(pr_median / version_median, 1),
        "tests_ratio": round(tests_median / version_median, 1),
        **{
            f"{k}_cpu_median_s": statistics.median(r[f"{k}_cpu_s"] for r in rows)
            for k in ("version", "pr", "tests")
        },
        "pass": pr_first / version_median <= RANGE_RATIO_FLOOR,
        "pass_repeated": pr_median / version_median <= RANGE_RATIO_FLOOR,
    }


def measure(repo: ImpactRepo, workdir: Path, trials: int, seed: int, mnemo: Mnemo) -> dict[str, Any]:
    """All trials on one repository."""
    clone = clone_of(repo, workdir)
    warmup = index(mnemo, clone, full=True)  # built by the engine measured (untimed: the index is warm)
    files = int(git(clone, "ls-files").count("\n"))
    functions = editable_functions(clone, repo)
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    try:
        git(clone, "checkout", "-q", "-B", SCRATCH_BRANCH, repo.commit)
        for i in range(trials):
            count = 1 + i % MAX_FILES
            edited = commit_change(clone, functions, count, rng)
            first, first_ms, tests, _ = timed_pr(mnemo, clone)
            repeat, repeat_ms, _, _ = timed_pr(mnemo, clone)
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
            index(mnemo, clone)
    finally:
        git(clone, "checkout", "-q", "-f", "--detach", repo.commit)
        subprocess.run(
            ["git", "-C", str(clone), "branch", "-q", "-D", SCRATCH_BRANCH], capture_output=True, check=False
        )
        index(mnemo, clone)
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
    parser.add_argument(
        "--mode",
        choices=("commits", "worktree", "range"),
        default="commits",
        help="commits: 1-5 file commits (default); worktree: one edited function, `pr --worktree`; "
        f"range: `pr` and `tests --base HEAD~{RANGE_BACK}` as the clone is",
    )
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"--mode range runs ({DEFAULT_RUNS})")
    parser.add_argument("--code", type=Path, help="run mnemo from this source tree")
    args = parser.parse_args(argv)
    info = machine_info()
    print(machine_line(info))
    mnemo = mnemo_command(args.code)
    if args.mode != "commits":
        return _floors(args, mnemo, info)
    load_before = os.getloadavg()[0]
    results = [
        measure(lookup(name), args.workdir, args.trials, args.seed, mnemo) for name in args.repos.split(",")
    ]
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


def _floors(args: Any, mnemo: Mnemo, info: Mapping[str, Any]) -> int:
    """``--mode worktree`` or ``--mode range``: measure, print the table, write the details."""
    load_before = os.getloadavg()[0]
    repos = [lookup(name) for name in args.repos.split(",")]
    if args.mode == "worktree":
        results = [measure_edits(r, args.workdir, args.trials, args.seed, mnemo) for r in repos]
        headers = (
            *("repo", "edits", "--version s", "median s", "p90 s", "max s", "p90 / --version"),
            *("CPU median s", "CPU p90 s", "verdict"),
        )
        rows = [
            [
                r["repo"],
                len(r["trials"]),
                r["version_median_s"],
                r["median_s"],
                r["p90_s"],
                r["max_s"],
                r["p90_ratio"],
                r["cpu_median_s"],
                r["cpu_p90_s"],
                verdict(r["pass"]),
            ]
            for r in results
        ]
    else:
        results = [measure_range(r, args.workdir, args.runs, mnemo) for r in repos]
        headers = (
            *("repo", "runs", "--version s", "pr s: first", "repeated", "tests s", "pr / --version: first"),
            *("repeated", "tests / --version", "CPU s: --version / pr / tests", "verdict: first", "repeated"),
        )
        rows = [
            [
                r["repo"],
                len(r["runs"]),
                r["version_median_s"],
                r["pr_first_s"],
                r["pr_median_s"],
                r["tests_median_s"],
                r["pr_first_ratio"],
                r["pr_ratio"],
                r["tests_ratio"],
                " / ".join(f"{r[f'{k}_cpu_median_s']:.2f}" for k in ("version", "pr", "tests")),
                verdict(r["pass"]),
                verdict(r["pass_repeated"]),
            ]
            for r in results
        ]
    load = {"before": load_before, "after": os.getloadavg()[0]}
    print(
        f"1-minute load average: {load['before']:.2f} before, {load['after']:.2f} after "
        f"({info['nproc']} cores)"
    )
    print(table(headers, rows))
    path = write_json(
        f"impact-speed-{args.mode}",
        {"machine": info, "code": str(args.code or "installed"), "load_average": load, "repos": results},
    )
    print(f"details: {path}")
    return 0 if all(r["pass"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
