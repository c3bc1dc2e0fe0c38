"""Peak memory of a cold index as the repository grows: N copies of the standard library in one
git repository (issue #42 item 4: ten copies, ~18,000 files, must index under 1 GB).

The machine's stdlib ``.py`` files (``site-packages`` and ``__pycache__`` excluded, as in
``index_speed``) are copied N times (``copy0/`` ... ``copyN-1/``) into a temporary directory, which
is made a git repository with one commit. Then, as whole processes with ``--code`` first on
``PYTHONPATH`` (this checkout by default):

1. cold ``mnemo -v index --no-vectors .``: wall and CPU seconds (the process and every child),
   the sampled peak RSS of the whole process tree (forked workers share most of their parent's
   pages, so this is an upper bound), of its summed PSS (shared pages counted once) and of the
   largest single process; and the peak of the tree's PSS within each phase, named "until" the
   ``-v`` log line that ends it (a phase runs from one log line to the next; the first one from
   the start, the last one to the end), so the phase that holds the peak shows;
2. ``mnemo task`` for a few task texts: wall and CPU seconds each (the first is the first query
   after the index: its graph file was made by the index, or by that query);
3. the first query after a one-file edit: one new function appended to ``EDIT_PATH``, then
   ``mnemo index`` (its CPU) and one ``mnemo task``; again with the query's own freshness check
   doing the update (no ``mnemo index`` before it).

Run: ``python bench/memory_corpus.py --copies 2 [--copies 4 ...] [--code DIR] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import _pss_kib, _tree_rss_kib, check_run, machine_info, machine_line, run_measured, write_json
from index_speed import copy_python_tree, make_git_repo

NAME = "memory_corpus"
HERE = Path(__file__).resolve().parent.parent
SAMPLE_S = 0.1  # the tree's memory is sampled this often (phases last seconds)
TASKS = (
    "parse command line arguments into a namespace",
    "retry the http connection when the socket times out",
    "compress a file with gzip and write it to a tar archive",
)
EDIT_PATH = "copy3/json/decoder.py"  # the file a one-file edit appends a function to
FLOOR_MB = 1024  # the whole tree's peak at ten copies (issue #42 item 4)
TASK_FLOOR_S = 2.0  # a query on that index


@dataclass
class _Sampler:
    """The tree's RSS, PSS and largest process, sampled; each phase's peak named by the stderr line
    that ends it."""

    pid: int
    peak_rss: int = 0
    peak_pss: int = 0
    peak_one: int = 0
    current: int = 0  # the peak PSS (KiB) of the phase running now
    phases: dict[str, int] = field(default_factory=dict)  # "until <line>" -> peak PSS (KiB)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            sizes = _tree_rss_kib(self.pid)
            pss = sum(_pss_kib(p) for p in sizes)
            self.peak_rss = max(self.peak_rss, sum(sizes.values()))
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_one = max(self.peak_one, *sizes.values(), 0)
            with self.lock:
                self.current = max(self.current, pss)
            self.stop.wait(SAMPLE_S)

    def ended(self, line: str) -> None:
        """The phase running now ended where the log says ``line``: its peak is kept under it."""
        with self.lock:
            name = f"until: {line}"
            self.phases[name] = max(self.phases.get(name, 0), self.current)
            self.current = 0


def _phase_of(line: str) -> str:
    """A log line as a phase name: its words, numbers and paths dropped."""
    words = [w for w in line.removeprefix("mnemo: ").split() if w.isalpha()]
    return " ".join(words[:6])


def index_cold(code: Path, root: Path) -> dict[str, Any]:
    """One cold ``mnemo index`` of ``root`` with ``code`` first on the path."""
    shutil.rmtree(root / ".mnemo", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(code)}
    cmd = [sys.executable, "-m", "mnemo_core.cli", "-v", "index", "--no-vectors", "."]
    started = time.perf_counter()
    before = os.times()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = _Sampler(proc.pid)
    thread = threading.Thread(target=sampler.run, daemon=True)
    thread.start()
    log = []
    assert proc.stderr is not None and proc.stdout is not None
    for line in proc.stderr:
        log.append(f"{time.perf_counter() - started:7.1f}s {line.rstrip()}")
        sampler.ended(_phase_of(line))
    proc.stdout.read()
    proc.wait()
    wall = time.perf_counter() - started
    sampler.stop.set()
    thread.join()
    sampler.ended("the end")
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"mnemo index failed ({proc.returncode}):\n" + "\n".join(log[-20:]))
    return {
        "wall_s": wall,
        "cpu_s": after.children_user - before.children_user + after.children_system - before.children_system,
        "peak_tree_rss_mb": sampler.peak_rss / 1024,
        "peak_tree_pss_mb": sampler.peak_pss / 1024,
        "peak_process_mb": sampler.peak_one / 1024,
        "phases_pss_mb": {p: kib / 1024 for p, kib in sampler.phases.items()},
        "log": log,
    }


def _mnemo(code: Path, root: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one whole ``mnemo`` process run in ``root``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    run = check_run(run_measured([sys.executable, "-m", "mnemo_core.cli", *args], cwd=root, env=env), "mnemo")
    return run.wall_s, run.cpu_s


def task_times(code: Path, root: Path) -> list[tuple[float, float]]:
    """Wall and CPU seconds of one whole ``mnemo task`` process per task text."""
    return [_mnemo(code, root, "task", "--no-memory", text) for text in TASKS]


def after_edits(code: Path, root: Path) -> dict[str, tuple[float, float]]:
    """The first query after a one-file edit: after ``mnemo index``, and with the query's own update."""
    out: dict[str, tuple[float, float]] = {}
    for step, indexed in (("after index", True), ("own update", False)):
        with (root / EDIT_PATH).open("a", encoding="utf-8") as handle:
            handle.write(f"\n\ndef _mnemo_memory_edit_{len(out)}(value):\n    return len(value)\n")
        if indexed:
            out["index update"] = _mnemo(code, root, "index", "--no-vectors", ".")
        out[step] = _mnemo(code, root, "task", "--no-memory", TASKS[0])
    return out


def totals(root: Path) -> dict[str, int]:
    """Files, symbols and edges of the built index."""
    sys.path.insert(0, str(HERE))
    import sqlite3

    from mnemo_core.index.store import index_path

    with sqlite3.connect(index_path(root)) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("files", "symbols", "edges")
        }


def make_corpus(stdlib: Path, root: Path, copies: int) -> None:
    """``copies`` copies of the stdlib under ``root``, committed."""
    if root.exists():
        shutil.rmtree(root)
    for i in range(copies):
        copy_python_tree(stdlib, root / f"copy{i}")
    make_git_repo(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, action="append", help="stdlib copies (repeatable)")
    parser.add_argument("--code", type=Path, default=HERE, help="the mnemo source tree to run")
    parser.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--keep", type=Path, help="build the corpora here and keep them")
    parser.add_argument("--log", action="store_true", help="print each index's -v log with times")
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="mnemo-memory-"))
    print(machine_line(machine_info()))
    print(f"code: {args.code}")
    results = []
    try:
        for copies in args.copies or [2]:
            root = workdir / f"stdlib-x{copies}"
            if not (root / ".git").is_dir():
                make_corpus(args.stdlib, root, copies)
            run = index_cold(args.code.resolve(), root)
            run.update(copies=copies, **totals(root), task_s=task_times(args.code.resolve(), root))
            run.update(edits=after_edits(args.code.resolve(), root))
            results.append(run)
            if args.log:
                print("\n".join(run["log"]))
            print(
                f"x{copies}: {run['files']} files, {run['symbols']} symbols, {run['edges']} edges;"
                f" wall {run['wall_s']:.1f} s, CPU {run['cpu_s']:.1f} s"
                f" ({1000 * run['cpu_s'] / run['files']:.1f} ms a file);"
                f" peak tree RSS {run['peak_tree_rss_mb']:.0f} MB, PSS {run['peak_tree_pss_mb']:.0f} MB,"
                f" one process {run['peak_process_mb']:.0f} MB;"
                f" task (wall/CPU) {', '.join(f'{w:.2f}/{c:.2f}' for w, c in run['task_s'])} s;"
                f" after an edit {', '.join(f'{k} {w:.2f}/{c:.2f}' for k, (w, c) in run['edits'].items())} s",
                flush=True,
            )
            for phase, mb in run["phases_pss_mb"].items():
                print(f"    {mb:7.0f} MB  {phase}")
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    write_json(NAME, {"runs": [{k: v for k, v in r.items() if k != "log"} for r in results]})
    print(json.dumps({"floor_mb": FLOOR_MB, "task_floor_s": TASK_FLOOR_S}))


if __name__ == "__main__":
    main()
