"""Whole-process time of ``mnemo task`` against the baseline's, as a user waits for them.

On each repository (checked out at its mirror's default branch, index warmed by ``mnemo index``
untimed), ``N`` task texts (the repository's own newest descriptive commit messages, a seeded
sample: real queries, no ground truth needed) are run as subprocesses, interleaved so the
machine's noise falls on both alike:

- ``mnemo task --format json TEXT`` (the console script next to this interpreter, in the root);
- ``python -m bench.quality.baseline --root ROOT TEXT`` (parses and indexes the tree from scratch).

Interpreter start-up, imports, reading the index or the files, ranking and printing all count.
Both run with Python's bytecode cache on (in ``<workdir>/pycache``, warmed by one untimed run of
each), as an installed package has it: a ``PYTHONDONTWRITEBYTECODE`` in the caller's environment
would otherwise make every run compile mnemo's hundred modules from source, which no user pays.
The medians are compared with two floors: on the flask-size repository mnemo takes at most
``MAX_RATIO_SMALL`` times the baseline; on the large one at most ``MAX_S_LARGE`` seconds.
Prints a table; writes ``bench/out/process-speed.json``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import check_run, machine_info, machine_line, run_measured, table, verdict, write_json
from bench.quality.evaluate import checkout
from bench.quality.mining import candidates, clean_message, first_parent_commits, git
from bench.quality.repos import DEFAULT_MIRRORS, DEFAULT_REF, DEFAULT_WORKDIR, BenchRepo, working_clone

DEFAULT_RUNS = 10
SEED = 0
WINDOW = 300  # recent commit messages: queries in today's vocabulary of the code
MAX_RATIO_SMALL = 1.5  # mnemo may take 1.5x a from-scratch BM25 on a flask-size repository ...
MAX_S_LARGE = 0.8  # ... and 0.8 s on a ~4,000-file one, where the index has to pay off
SMALL = BenchRepo("speed-flask", "pallets/flask")  # 236 files, 83 of them Python
LARGE = BenchRepo("speed-ansible", "ansible/ansible")  # 5,053 files, 1,564 of them Python
OUT_NAME = "process-speed"


@dataclass(frozen=True)
class Timing:
    """The medians of one repository."""

    repo: str
    files: int
    mnemo_s: float
    baseline_s: float
    mnemo_runs: list[float]
    baseline_runs: list[float]


def queries(root: Path, count: int) -> list[str]:
    """``count`` descriptive commit messages of the checked-out history (first lines, cleaned)."""
    pool = candidates(first_parent_commits(root, "HEAD", WINDOW))
    random.Random(SEED).shuffle(pool)
    return [clean_message(c.message).splitlines()[0] for c in pool[:count]]


def mnemo_command(text: str) -> list[str]:
    """The console script a user runs (next to this interpreter: no pyenv shim in between)."""
    return [str(Path(sys.executable).parent / "mnemo"), "task", "--format", "json", text]


def baseline_command(root: Path, text: str) -> list[str]:
    """The baseline's command line, indexing ``root`` from scratch."""
    return [sys.executable, "-m", "bench.quality.baseline", "--root", str(root), text]


def bytecode_env(workdir: Path) -> dict[str, str]:
    """This environment with Python's bytecode cache on, kept in ``workdir``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env


def measure(repo: BenchRepo, mirrors: Path, workdir: Path, runs: int) -> Timing:
    """Warm the index and the bytecode cache, then time both commands ``runs`` times each,
    interleaved."""
    root = working_clone(repo, mirrors, workdir)
    checkout(root, git(root, "rev-parse", f"{DEFAULT_REF}^{{commit}}").strip())
    env = bytecode_env(workdir)
    check_run(run_measured([str(Path(sys.executable).parent / "mnemo"), "index", str(root)]), "mnemo index")
    texts = queries(root, runs)
    check_run(run_measured(mnemo_command(texts[0]), cwd=root, env=env), "mnemo task")
    check_run(run_measured(baseline_command(root, texts[0]), env=env), "baseline")
    mnemo_runs, baseline_runs = [], []
    for text in texts:
        mnemo_runs.append(
            check_run(run_measured(mnemo_command(text), cwd=root, env=env), "mnemo task").wall_s
        )
        baseline_runs.append(
            check_run(run_measured(baseline_command(root, text), env=env), "baseline").wall_s
        )
    files = len(git(root, "ls-files").splitlines())
    return Timing(
        repo.source,
        files,
        statistics.median(mnemo_runs),
        statistics.median(baseline_runs),
        mnemo_runs,
        baseline_runs,
    )


def floors(small: Timing, large: Timing) -> list[tuple[str, str, bool]]:
    """(what, measured, ok) of both floors."""
    ratio = small.mnemo_s / small.baseline_s
    return [
        (f"{small.repo}: mnemo <= {MAX_RATIO_SMALL}x baseline", f"{ratio:.2f}x", ratio <= MAX_RATIO_SMALL),
        (f"{large.repo}: mnemo <= {MAX_S_LARGE} s", f"{large.mnemo_s:.2f} s", large.mnemo_s <= MAX_S_LARGE),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Measure both repositories, print the table and floors, write the JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality.process_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="tasks (runs of each command)")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="where fetched mirrors live")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="where the clones are kept")
    args = parser.parse_args(argv)
    small, large = (measure(r, args.mirrors, args.workdir, args.runs) for r in (SMALL, LARGE))
    machine = machine_info()
    rows = [[t.repo, t.files, t.mnemo_s, t.baseline_s, t.mnemo_s / t.baseline_s] for t in (small, large)]
    print(f"\nWhole-process task time, median of {args.runs} (warm index; {machine_line(machine)})\n")
    print(table(("repo", "files", "mnemo task s", "baseline s", "mnemo/baseline"), rows))
    checks = floors(small, large)
    print("\n" + "\n".join(f"{verdict(ok)}  {what}: {value}" for what, value, ok in checks))
    output: dict[str, Any] = {
        "machine": machine,
        "runs": args.runs,
        "repos": [vars(t) for t in (small, large)],
        "floors": [{"what": w, "value": v, "ok": ok} for w, v, ok in checks],
    }
    print(f"\nwrote {write_json(OUT_NAME, output)}")
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
