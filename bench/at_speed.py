"""Whole-process time of ``mnemo task --at REF`` against a query at HEAD (issue #17's floor).

On pytest (the mirror's default branch, every ``.mnemo`` removed first), as a user runs it:

1. ``mnemo index`` from nothing (the cold index, for scale);
2. the first ``mnemo task --at HEAD~50`` (checks the commit out beside the repository and
   brings a copy of the work tree's index to it: only files whose content differs are parsed);
3. the first ``--at HEAD~60``: the same tree moved ten commits further back;
4. ``N`` task texts (the repository's own recent commit messages), each asked at HEAD and at
   ``HEAD~50``, interleaved so the machine's noise falls on both alike.

The floor: the median ``--at HEAD~50`` query, after its first use, takes at most ``MAX_RATIO``
times the median query at HEAD. Prints a table; writes ``bench/out/at-speed.json``.

    python -m bench.at_speed --workdir /tmp/mnemo-at
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import check_run, machine_info, machine_line, run_measured, table, verdict, write_json
from bench.quality.evaluate import checkout
from bench.quality.mining import git
from bench.quality.process_speed import bytecode_env, queries
from bench.quality.repos import DEFAULT_MIRRORS, DEFAULT_REF, BenchRepo, working_clone

DEFAULT_RUNS = 10
DEFAULT_WORKDIR = Path("/tmp/mnemo-at")
REPO = BenchRepo("at-pytest", "pytest-dev/pytest")
AT = "HEAD~50"
FURTHER = "HEAD~60"
MAX_RATIO = 3.0  # issue #17: --at HEAD~50 answers within 3x a query at HEAD, after its first use
OUT_NAME = "at-speed"


def mnemo(*args: str) -> list[str]:
    """The console script a user runs (next to this interpreter)."""
    return [str(Path(sys.executable).parent / "mnemo"), *args]


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table and the floor, write the JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.at_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="task texts (runs of each command)")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="where fetched mirrors live")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="where the clone is kept")
    args = parser.parse_args(argv)

    root = working_clone(REPO, args.mirrors, args.workdir)
    checkout(root, git(root, "rev-parse", f"{DEFAULT_REF}^{{commit}}").strip())
    shutil.rmtree(root / ".mnemo", ignore_errors=True)
    env = bytecode_env(args.workdir)
    texts = queries(root, args.runs)

    def task(text: str, *more: str) -> float:
        run = run_measured(mnemo("task", "--format", "json", "--no-memory", text, *more), cwd=root, env=env)
        return check_run(run, "mnemo task").wall_s

    cold = check_run(run_measured(mnemo("index", str(root)), env=env), "mnemo index").wall_s
    task(texts[0])  # the bytecode cache, warm
    first = task(texts[0], "--at", AT)
    further = task(texts[0], "--at", FURTHER)
    task(texts[0], "--at", AT)  # back: the tree at HEAD~50 again, as the timed runs ask
    head_runs, at_runs = [], []
    for text in texts:
        head_runs.append(task(text))
        at_runs.append(task(text, "--at", AT))
    head, at = statistics.median(head_runs), statistics.median(at_runs)
    differing = {
        ref: len(git(root, "diff", "--name-only", ref, "HEAD").splitlines()) for ref in (AT, FURTHER)
    }
    files = len(git(root, "ls-files").splitlines())

    machine = machine_info()
    print(f"\n`mnemo task` on {REPO.source} ({files} files), whole process ({machine_line(machine)})\n")
    print(
        table(
            ("what", "seconds"),
            [
                ["cold index at HEAD (mnemo index, no .mnemo)", cold],
                [f"first --at {AT} ({differing[AT]} files differ from HEAD)", first],
                [f"first --at {FURTHER} (moved on from {AT})", further],
                [f"task at HEAD, median of {len(texts)}", head],
                [f"task --at {AT}, median of {len(texts)}", at],
            ],
        )
    )
    ratio = at / head
    ok = ratio <= MAX_RATIO
    print(f"\n{verdict(ok)}  --at {AT} <= {MAX_RATIO}x a query at HEAD: {ratio:.2f}x")
    output: dict[str, Any] = {
        "machine": machine,
        "repo": REPO.source,
        "files": files,
        "differing_files": differing,
        "cold_index_s": cold,
        "first_at_s": first,
        "first_further_s": further,
        "head_runs": head_runs,
        "at_runs": at_runs,
        "head_median_s": head,
        "at_median_s": at,
        "ratio": ratio,
        "ok": ok,
    }
    print(f"\nwrote {write_json(OUT_NAME, output)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
