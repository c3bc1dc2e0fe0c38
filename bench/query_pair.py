"""``mnemo task`` on a large index, warm or first after an edit, two mnemo trees paired in one run
(issue #42 item 4).

Each tree answers on its own copy of the same indexed repository (a graph or name cache written by
one version is not read by another, so one shared ``.mnemo/`` would make each run rebuild them):
``--root`` for ``--code``, ``--base-root`` for ``--base``. Each copy gets one warming query per
tree first (it writes the caches of the index's generation). Then, per task text, the two answer in
turn, A B A B ..., each a whole process timed from outside (wall; user + system CPU of it and the
children it waited for; its peak RSS), and the pair's ratios are taken; medians are reported. The
answers (``--format json``, less ``elapsed_ms`` and the root's path) must be the same, or the run
says which text differs.

``--first index`` times the first query after an edit instead: before each pair, one new function
is appended to ``--edit`` (a repo-relative file) in both copies and ``mnemo index`` brings each up to
date (its CPU reported apart), so each query is the first of a new index generation (its graph
file made from the edit). ``--first fresh`` appends the function and lets the query's own freshness
check do the update (the query's time includes it).

Run: ``python bench/query_pair.py --root X --base-root Y --code NEW --base OLD [--pairs 5]
[--first index --edit copy3/json/decoder.py]`` (``bench/memory_corpus.py --copies 10 --keep DIR``
builds the ten-copy corpus; copy it for the base).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
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
FLOOR_S = 2.0  # a query on the ten-copy corpus, warm or first after an edit (issue #42 item 4)


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


def index(code: Path, root: Path) -> float:
    """CPU seconds of one whole ``mnemo index`` process (an update)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = run_measured(
        [sys.executable, "-m", "mnemo_core.cli", "index", "--no-vectors", "."], cwd=root, env=env
    )
    check_run(run, f"mnemo index on {root}")
    return run.cpu_s


def edit(root: Path, path: str, round_: int) -> None:
    """Append one new function to ``path``: the next index generation has a symbol and an edge more."""
    with (root / path).open("a", encoding="utf-8") as handle:
        handle.write(f"\n\ndef _mnemo_bench_edit_{round_}(value):\n    return len(value)\n")


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
    indexed: list[tuple[float, float]] = []
    for _ in range(args.pairs):
        if args.first != "warm":
            args.round += 1
            for root in (args.root, args.base_root):
                edit(root, args.edit, args.round)
        if args.first == "index":
            indexed.append((index(args.code, args.root), index(args.base, args.base_root)))
        figures, ours = answer(args.code, args.root, text)
        new.append(figures)
        figures, theirs = answer(args.base, args.base_root, text)
        base.append(figures)
        same = same and ours == theirs
    out: dict[str, Any] = {"text": text, "same_answer": same}
    if indexed:
        out["index_cpu_s"] = statistics.median(a for a, _ in indexed)
        out["base_index_cpu_s"] = statistics.median(b for _, b in indexed)
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
    parser.add_argument(
        "--first",
        choices=("warm", "index", "fresh"),
        default="warm",
        help="warm queries, or each the first after an edit and `mnemo index` (index) or with the query's"
        " own update (fresh)",
    )
    parser.add_argument("--edit", help="the repo-relative file --first edits (both copies)")
    args = parser.parse_args()
    if args.first != "warm" and not args.edit:
        parser.error("--first index|fresh needs --edit PATH")
    args.round = int(time.time())  # each run's functions are new names
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
            f"  {'same answer' if row['same_answer'] else 'ANSWERS DIFFER'}"
            + (
                f"  (index before: cpu {row['index_cpu_s']:.2f} / {row['base_index_cpu_s']:.2f} s)"
                if "index_cpu_s" in row
                else ""
            ),
            flush=True,
        )
    worst = max(row["wall_s"] for row in rows)
    print(f"slowest median wall {worst:.2f} s: {'PASS' if worst < FLOOR_S else 'FAIL'} (floor {FLOOR_S} s)")
    # a loaded machine stretches the wall, not the CPU: on a free one a query's wall is about its CPU
    cpu = statistics.median(row["cpu_s"] for row in rows), max(row["max_cpu_s"] for row in rows)
    verdict = "PASS" if cpu[1] < FLOOR_S else "FAIL"
    print(f"CPU: median of the texts' medians {cpu[0]:.2f} s, slowest run {cpu[1]:.2f} s: {verdict}")
    write_json(NAME, {"machine": machine_info(), "first": args.first, "rows": rows})


if __name__ == "__main__":
    main()
