"""Helpers shared by the benchmarks: machine facts, timed subprocesses with peak memory, tables, JSON.

Every benchmark prints a plain-text table and writes the same numbers as JSON to
``bench/out/<name>.json`` (git-ignored); the human-readable record goes into ``bench/RESULTS.md``.
Timings of the indexer are taken from the outside, around a fresh interpreter, so imports and
process-pool start-up count: that is what a user waits for.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
RSS_SAMPLE_INTERVAL_S = 0.05  # 20 Hz: the indexer's allocation peaks last seconds, not milliseconds
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
KIB_PER_MIB = 1024


# -- the machine ----------------------------------------------------------------------------
def machine_info() -> dict[str, Any]:
    """What the numbers were measured on: cores, CPU model, RAM, Python, mnemo's commit, the date."""
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "ram_gib": round(_mem_total_kib() / KIB_PER_MIB / KIB_PER_MIB, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "mnemo_commit": git_head(REPO_DIR),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total_kib() -> int:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def git_head(path: Path) -> str | None:
    """The short commit checked out at ``path``, or None."""
    done = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or None


def machine_line(info: Mapping[str, Any]) -> str:
    """One line describing the machine, for tables and RESULTS.md."""
    return (
        f"{info['nproc']} cores ({info['cpu']}), {info['ram_gib']} GiB RAM, Python {info['python']}, "
        f"mnemo {info['mnemo_commit']}, {info['date']}"
    )


# -- timed subprocesses ---------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """One finished subprocess: wall time, peak memory of its process tree, and its output."""

    wall_s: float
    peak_tree_rss_kib: int  # sampled peak of the summed RSS of the process and all its descendants
    peak_child_rss_kib: int  # sampled peak RSS of the largest single descendant (a worker process)
    peak_tree_pss_kib: int  # sampled peak of the summed PSS: shared pages counted once, in shares
    returncode: int
    stdout: str
    stderr: str
    cpu_s: float = 0.0  # user + system CPU of the process and every descendant it waited for


def run_measured(cmd: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Run:
    """Run ``cmd`` to completion, timing it and sampling the RSS of its whole process tree."""
    sampler = _TreeRssSampler()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(cmd),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sampler.start(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    sampler.stop()
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = done.ru_utime + done.ru_stime - used.ru_utime - used.ru_stime
    return Run(
        wall, sampler.peak_kib, sampler.peak_child_kib, sampler.peak_pss_kib, proc.returncode, out, err, cpu
    )


def check_run(run: Run, what: str) -> Run:
    """Fail loudly (with the child's stderr) when a measured command failed."""
    if run.returncode != 0:
        raise SystemExit(f"{what} failed with exit code {run.returncode}:\n{run.stderr.strip()}")
    return run


class _TreeRssSampler:
    """Polls /proc for the RSS of a process and its descendants; keeps the peak of their sum and the
    peak of the largest descendant. RSS counts pages shared between processes in each of them, so the
    sum is an upper bound of the memory the tree needs (forked workers share most of their parent's
    pages); the summed PSS (proportional set size) counts each shared page once, split between its
    sharers: the memory the tree actually needs."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self.peak_pss_kib = 0
        self.peak_child_kib = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, pid: int) -> None:
        self._thread = threading.Thread(target=self._loop, args=(pid,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self, pid: int) -> None:
        while not self._stop.is_set():
            sizes = _tree_rss_kib(pid)
            self.peak_kib = max(self.peak_kib, sum(sizes.values()))
            self.peak_pss_kib = max(self.peak_pss_kib, sum(_pss_kib(p) for p in sizes))
            self.peak_child_kib = max(self.peak_child_kib, *(v for p, v in sizes.items() if p != pid), 0)
            self._stop.wait(RSS_SAMPLE_INTERVAL_S)


def _tree_rss_kib(root_pid: int) -> dict[int, int]:
    """The RSS of ``root_pid`` and of each of its descendants, by pid (following each thread's
    ``/proc/<pid>/task/<tid>/children``: far cheaper than scanning all of ``/proc``)."""
    tree: dict[int, int] = {}
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        if pid in tree:
            continue
        try:
            tree[pid] = int(Path(f"/proc/{pid}/statm").read_text(encoding="ascii").split()[1]) * PAGE_KB
            tasks = os.listdir(f"/proc/{pid}/task")
        except (OSError, IndexError, ValueError):
            continue  # the process ended between two reads
        for tid in tasks:
            try:
                stack.extend(int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
            except (OSError, ValueError):
                continue
    return tree


def _pss_kib(pid: int) -> int:
    """A process's proportional set size from ``/proc/<pid>/smaps_rollup`` (0 when unreadable)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="ascii").splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def python_json_run(code: str, args: Sequence[str], cwd: Path | None = None) -> tuple[Run, dict[str, Any]]:
    """Run ``code`` in a fresh interpreter; its last stdout line is JSON, returned parsed."""
    run = check_run(run_measured([sys.executable, "-c", code, *args], cwd=cwd), "python -c")
    lines = run.stdout.strip().splitlines()
    return run, json.loads(lines[-1]) if lines else {}


# -- statistics and output ------------------------------------------------------------------
def median(values: Iterable[float]) -> float:
    """The median (0.0 for no values)."""
    values = list(values)
    return statistics.median(values) if values else 0.0


def repeat(n: int, measure: Callable[[int], float]) -> list[float]:
    """``measure(i)`` for i in 0..n-1."""
    return [measure(i) for i in range(n)]


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table with columns padded to fit (numbers right-aligned)."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    numeric = [
        bool(rows) and all(isinstance(row[i], (int, float)) for row in rows) for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        cells = (v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True))
        return "  ".join(cells).rstrip()

    return "\n".join([line(list(headers)), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """The same table in Markdown, for RESULTS.md."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(out)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def verdict(ok: bool) -> str:
    """PASS or FAIL."""
    return "PASS" if ok else "FAIL"


def write_json(name: str, data: Mapping[str, Any]) -> Path:
    """Write a benchmark's results to ``bench/out/<name>.json``; returns the path."""
    OUT_DIR.mkdir(exist_ok=True)
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
    return path
