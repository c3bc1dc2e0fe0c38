"""Warm ``mnemo task`` on a large index, two mnemo trees paired in one run (issue #42 item 4).

Each tree answers on its own copy of the same indexed repository (a graph or name cache written by
one version is not read by another, so one shared ``.mnemo/`` would make each run rebuild them):
``--root`` for ``--code``, ``--base-root`` for ``--base``. Each copy gets one warming query per
tree first (it writes the caches of the index's generation). Then, per task text, the two answer in
turn, A B A B ..., each a whole process timed from outside (wall; user + system CPU of it and the
children it waited for; its peak RSS), and the pair's ratios are taken; medians are reported. The
answers (``--format json``, less ``elapsed_ms`` and the root's path) must be the same, or the run
says which text differs.

Run: ``python bench/query_pair.py --root X --base-root Y --code NEW --base OLD [--pairs 5]``
(``bench/memory_corpus.py --copies 10 --keep DIR`` builds the ten-copy corpus; copy it for the base).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_run, machine_info, machine_line, run_measured, write_json

NAME = "query_pair"
TASKS = (
    "add retry to the http client",
    "parse email headers with unicode",
    "fix json decoder error messages",
    "parse command line arguments into a namespace",
    "retry the http connection when the socket times out",
    "compress a file with gzip and write it to a tar archive",
)
FLOOR_S = 2.0  # a warm query on the ten-copy corpus (issue #42 item 4)


def answer(code: Path, root: Path, text: str) -> tuple[dict[str, float], Any]:
    """One whole ``mnemo task`` process: its wall, CPU and peak RSS, and its answer (scrubbed)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's installed mnemo has its bytecode cached
    cmd = [sys.executable, "-m", "mnemo_core.cli", "task", "--repo", str(root), "--no-memory"]
    # from the repository, as a user runs it: ``python -m`` puts the working directory first on the path
    run = run_measured([*cmd, "--format", "json", text], cwd=root, env=env)
    check_run(run, f"mnemo task on {root}")
    figures = {"wall_s": run.wall_s, "cpu_s": run.cpu_s, "peak_mb": run.peak_tree_rss_kib / 1024}
    return figures, _scrub(json.loads(run.stdout), str(root))


def _scrub(value: Any, root: str) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, root) for k, v in value.items() if k != "elapsed_ms"}
    if isinstance(value, list):
        return [_scrub(v, root) for v in value]
    return value.replace(root, "ROOT") if isinstance(value, str) else value


def pair(args: argparse.Namespace, text: str) -> dict[str, Any]:
    """``args.pairs`` runs of each tree on ``text``, in turn; medians and the pairs' median ratios."""
    new: list[dict[str, float]] = []
    base: list[dict[str, float]] = []
    same = True
    for _ in range(args.pairs):
        figures, ours = answer(args.code, args.root, text)
        new.append(figures)
        figures, theirs = answer(args.base, args.base_root, text)
        base.append(figures)
        same = same and ours == theirs
    out: dict[str, Any] = {"text": text, "same_answer": same}
    for key in ("wall_s", "cpu_s", "peak_mb"):
        out[key] = statistics.median(r[key] for r in new)
        out[f"base_{key}"] = statistics.median(r[key] for r in base)
        out[f"ratio_{key}"] = statistics.median(a[key] / b[key] for a, b in zip(new, base, strict=True))
    out["max_cpu_s"] = max(r["cpu_s"] for r in new)
    out["base_max_cpu_s"] = max(r["cpu_s"] for r in base)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="the indexed repository --code answers on")
    parser.add_argument("--base-root", type=Path, required=True, help="its copy, for --base")
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--base", type=Path, required=True, help="the mnemo tree to compare with")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--text", action="append", help="task texts (default: six)")
    args = parser.parse_args()
    print(machine_line(machine_info()))
    for code, root in ((args.code, args.root), (args.base, args.base_root)):
        answer(code, root, "warm the caches of this generation")
    rows = []
    for text in args.text or TASKS:
        row = pair(args, text)
        rows.append(row)
        print(
            f"{text[:40]:40} wall {row['wall_s']:6.2f} / {row['base_wall_s']:6.2f} s"
            f" ({row['ratio_wall_s']:.2f}x)  cpu {row['cpu_s']:5.2f} / {row['base_cpu_s']:5.2f} s"
            f" ({row['ratio_cpu_s']:.2f}x, max {row['max_cpu_s']:.2f} / {row['base_max_cpu_s']:.2f})"
            f"  peak {row['peak_mb']:4.0f} / {row['base_peak_mb']:4.0f} MB"
            f"  {'same answer' if row['same_answer'] else 'ANSWERS DIFFER'}",
            flush=True,
        )
    worst = max(row["wall_s"] for row in rows)
    print(f"slowest median wall {worst:.2f} s: {'PASS' if worst < FLOOR_S else 'FAIL'} (floor {FLOOR_S} s)")
    # a loaded machine stretches the wall, not the CPU: on a free one a query's wall is about its CPU
    cpu = statistics.median(row["cpu_s"] for row in rows), max(row["max_cpu_s"] for row in rows)
    verdict = "PASS" if cpu[1] < FLOOR_S else "FAIL"
    print(f"CPU: median of the texts' medians {cpu[0]:.2f} s, slowest run {cpu[1]:.2f} s: {verdict}")
    write_json(NAME, {"machine": machine_info(), "rows": rows})


if __name__ == "__main__":
    main()
