"""Indexing speed on the Python standard library: cold, no-op and one-file re-index, peak memory.

The machine's stdlib ``.py`` files (``site-packages`` and ``__pycache__`` excluded) are copied into a
temporary directory, once as a plain directory (mnemo walks it) and once as a fresh git repository
(mnemo lists it with ``git ls-files``). Then, in one run, so that ratios compare like with like on a
noisy machine:

- floor: a pure tree-sitter parse of the same files in one process (read + ``parser.parse(bytes)``);
- cold: ``index_repo(root)`` with no ``.mnemo/`` (removed before each repeat; the page cache is warm),
  run right after a floor run: cold/floor is the median of these back-to-back ratios, so a change
  in the machine's load between runs does not skew it (the 1-minute load average is recorded too, and
  the CPU seconds of the indexer's process tree, which load barely moves);
- no-op: re-index with nothing changed;
- touch: re-index after changing one file's mtime only (content hash unchanged);
- edit: re-index after appending a function to one file;
- peak memory of the cold index: the sampled peak of the summed PSS of the indexing process and its
  worker processes (the floor is checked on it: resolution forks workers that share the parent's
  pages, which summed RSS would count once per process), next to the summed RSS (an upper
  bound: shared pages count in each process), the exact
  ``ru_maxrss`` of the main process and the sampled peak of the largest worker. (``RUSAGE_CHILDREN``
  is no use for the workers: ``ru_maxrss`` survives ``exec``, so a ``git`` forked late by the main
  process reports the main process's size.)

Every indexer timing is the wall time of a fresh ``python -c`` subprocess around ``index_repo``, so
interpreter start-up, imports and process-pool start-up are all counted. Each timing is repeated
``--repeat`` times and the median is reported; the floors in ``FLOORS`` are checked and printed as
PASS/FAIL lines.

Run: ``python bench/index_speed.py [--repeat 3] [--variants walked,git]``.

``--cold REPO...`` measures instead what a user runs, against the parse floor, in CPU seconds beside
wall time (issue 42's floors: at most 3x the floor in CPU): for each repository (a directory, or
``stdlib`` for a git copy of this interpreter's standard library) and each repeat, back to back,
a fresh-process parse floor (every file mnemo would index, read and parsed with its own grammar)
and ``python -m mnemo_core.cli index --no-vectors`` run cold (``.mnemo/`` removed: history
included where there is git) by each ``--code`` tree in turn. CPU is the user + system time of the
whole process tree (``RUSAGE_CHILDREN``: the worker processes too); each ratio is taken against the
floor of its own round, and the medians are reported.
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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    check_run,
    machine_info,
    machine_line,
    markdown_table,
    median,
    python_json_run,
    run_measured,
    table,
    verdict,
    write_json,
)

NAME = "index_speed"
DEFAULT_REPEAT = 3
DEFAULT_EDIT_FILE = "argparse.py"  # a large (2.6k lines), widely imported module: a realistic edit
SKIPPED_DIRS = frozenset({"site-packages", "__pycache__"})
VARIANTS = ("walked", "git")
KIB_PER_GIB = 1024 * 1024
FLOORS = {
    "cold_over_floor": 3.0,  # cold index at most 3x a single-process tree-sitter parse
    "noop_s": 1.5,  # a no-op re-index costs about a stat per file
    "one_file_s": 0.5,  # saving one file in an editor must feel instant
    "peak_rss_kib": 1 * KIB_PER_GIB,  # the cold index fits comfortably on a laptop or a CI runner
}
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
}

# Run in a fresh interpreter: read and parse every .py file under argv[1] with tree-sitter only.
FLOOR_CODE = """
import json, sys, time
from pathlib import Path
from tree_sitter_language_pack import get_parser
parser = get_parser("python")
skip = {".mnemo", ".git"}
files = sorted(p for p in Path(sys.argv[1]).rglob("*.py") if not skip & set(p.parts))
started = time.perf_counter()
data = [f.read_bytes() for f in files]
read = time.perf_counter()
for source in data:
    parser.parse(source)
done = time.perf_counter()
print(json.dumps({"files": len(files), "bytes": sum(map(len, data)), "read_s": read - started,
                  "parse_s": done - read, "floor_s": done - started, "cpu_s": time.process_time()}))
"""

# Run in a fresh interpreter: read and parse every file mnemo indexes under argv[1], each with its
# language's grammar (the files chosen, and the parsers made, before the clock starts).
LANGUAGE_FLOOR_CODE = """
import json, sys, time
from pathlib import Path
from mnemo_core.index.files import list_files
from mnemo_core.index.languages import language_for_path
root = Path(sys.argv[1])
files = [(root / p, language_for_path(p)) for p in list_files(root).paths]
parsers = {spec.name: spec.parser for _, spec in files if spec is not None}
started = time.perf_counter()
count = size = 0
for path, spec in files:
    data = path.read_bytes()
    parsers[spec.name].parse(data)
    count, size = count + 1, size + len(data)
print(json.dumps({"files": count, "bytes": size, "floor_s": time.perf_counter() - started}))
"""

# Run in a fresh interpreter: index argv[1] with mnemo, report its stats and peak memory.
INDEX_CODE = """
import json, resource, sys, time
started = time.perf_counter()
from pathlib import Path
from mnemo_core.index.indexer import index_repo
imported = time.perf_counter()
stats = index_repo(Path(sys.argv[1]))
done = time.perf_counter()
print(json.dumps({"files": stats.files, "parsed": stats.parsed, "skipped": stats.skipped,
                  "symbols": stats.symbols, "edges": stats.edges, "walked": stats.walked,
                  "import_s": imported - started, "index_s": done - imported,
                  "self_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "cpu_s": sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF,
                               resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))}))
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repeat", type=int, default=DEFAULT_REPEAT, help="repeats per timing (median reported)"
    )
    parser.add_argument(
        "--stdlib",
        type=Path,
        default=Path(sysconfig.get_paths()["stdlib"]),
        help="the source tree to copy (default: this interpreter's stdlib)",
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help="comma-separated: walked (plain directory), git (a git repository)",
    )
    parser.add_argument("--edit-file", default=DEFAULT_EDIT_FILE, help="repo-relative file to touch and edit")
    parser.add_argument(
        "--cold",
        nargs="+",
        default=None,
        metavar="REPO",
        help="measure cold `mnemo index` of these repositories (or `stdlib`) against the parse floor",
    )
    parser.add_argument(
        "--code",
        type=Path,
        action="append",
        default=None,
        help="with --cold: a mnemo code tree put first on PYTHONPATH (repeatable; default: this one)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where to copy the tree (default: a temp dir, removed afterwards)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="with --cold: keep each code tree's last index as KEEP/<repository>/<code tree>/index.db"
        " (to compare what they built; `bench/same_edges.py`)",
    )
    args = parser.parse_args(argv)
    args.variants = [v for v in args.variants.split(",") if v]
    unknown = set(args.variants) - set(VARIANTS)
    if unknown or args.repeat < 1:
        parser.error(f"unknown variants {sorted(unknown)}" if unknown else "--repeat must be at least 1")
    return args


# -- the corpus -----------------------------------------------------------------------------
def copy_python_tree(source: Path, dest: Path) -> tuple[int, int]:
    """Copy every ``.py`` file under ``source`` (skipping ``SKIPPED_DIRS``) to ``dest``; (files, bytes)."""
    files = size = 0
    for directory, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        rel = Path(directory).relative_to(source)
        for name in sorted(n for n in names if n.endswith(".py")):
            target = dest / rel / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(directory) / name, target)
            files += 1
            size += target.stat().st_size
    return files, size


def make_git_repo(root: Path) -> None:
    """Turn ``root`` into a git repository with everything committed (dates and author pinned)."""
    env = {**os.environ, **GIT_ENV}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stdlib copy"]):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env, capture_output=True)


# -- measurements ---------------------------------------------------------------------------
def floor_once(root: Path) -> dict[str, Any]:
    """One fresh-process tree-sitter parse of every file under ``root``."""
    run, data = python_json_run(FLOOR_CODE, [str(root)])
    return {**data, "wall_s": run.wall_s}


def index_once(root: Path, prepare: Callable[[], None] | None = None) -> dict[str, Any]:
    """One fresh-process ``index_repo(root)``: its wall time, stats and memory."""
    if prepare is not None:
        prepare()
    run, data = python_json_run(INDEX_CODE, [str(root)])
    return {
        **data,
        "wall_s": run.wall_s,
        "tree_rss_kib": run.peak_tree_rss_kib,
        "tree_pss_kib": run.peak_tree_pss_kib,
        "worker_rss_kib": run.peak_child_rss_kib,
        "load_1m": os.getloadavg()[0],
    }


def measure_variant(root: Path, edit_file: str, repeat: int) -> dict[str, list[dict[str, Any]]]:
    """Floor and cold index back to back (their ratio is taken pairwise: the machine's load drifts),
    then no-op, touch and edit re-indexes, on one copy of the tree."""
    target = root / edit_file
    if not target.is_file():
        raise SystemExit(f"--edit-file {edit_file} is not a file under {root}")

    def cold() -> None:
        shutil.rmtree(root / ".mnemo", ignore_errors=True)

    def touch() -> None:
        stamp = time.time_ns()
        os.utime(target, ns=(stamp, stamp))

    def edit() -> None:
        with target.open("a", encoding="utf-8") as f:
            f.write(f"\n\ndef _mnemo_bench_edit_{time.time_ns()}(value):\n    return value\n")

    results: dict[str, list[dict[str, Any]]] = {"floor": [], "cold": []}
    for _ in range(repeat):
        results["floor"].append(floor_once(root))
        results["cold"].append(index_once(root, cold))
    for name, prepare in (("noop", None), ("touch", touch), ("edit", edit)):
        results[name] = [index_once(root, prepare) for _ in range(repeat)]
    return results


# -- report ---------------------------------------------------------------------------------
def summarize(variants: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """Medians per measure, the cold/floor ratio, and the floor checks."""
    rows: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    floors: dict[str, dict[str, float]] = {}
    for variant, measures in variants.items():
        floor, cold = measures["floor"], measures["cold"]
        ratios = [c["wall_s"] / f["floor_s"] for f, c in zip(floor, cold, strict=True)]
        floors[variant] = {
            "floor_s": median(f["floor_s"] for f in floor),
            "cpu_s": median(f["cpu_s"] for f in floor),
            "parse_s": median(f["parse_s"] for f in floor),
            "wall_s": median(f["wall_s"] for f in floor),
            "cold_over_floor": median(ratios),
            "cold_cpu_over_floor_cpu": median(c["cpu_s"] for c in cold) / median(f["cpu_s"] for f in floor),
        }
        tree_rss = max(s["tree_rss_kib"] for s in cold)
        tree_pss = max(s["tree_pss_kib"] for s in cold)
        main_rss = max(s["self_maxrss_kib"] for s in cold)
        worker_rss = max(s["worker_rss_kib"] for s in cold)
        for measure in ("cold", "noop", "touch", "edit"):
            rows.append(_row(variant, measure, measures[measure]))
        rows[-4].update(
            peak_tree_rss_mib=round(tree_rss / 1024),
            peak_tree_pss_mib=round(tree_pss / 1024),
            main_rss_mib=round(main_rss / 1024),
            worker_rss_mib=round(worker_rss / 1024),
            cold_over_floor=round(median(ratios), 2),
        )
        one_file = max(median(s["wall_s"] for s in measures[m]) for m in ("touch", "edit"))
        noop = median(s["wall_s"] for s in measures["noop"])
        checks += [
            _check(
                variant,
                "cold / floor (median of back-to-back pairs)",
                median(ratios),
                FLOORS["cold_over_floor"],
                "x",
            ),
            _check(variant, "no-op re-index", noop, FLOORS["noop_s"], "s"),
            _check(variant, "one-file re-index (worst of touch, edit)", one_file, FLOORS["one_file_s"], "s"),
            _check(
                variant,
                "peak memory of cold index (process tree PSS)",
                max(tree_pss, main_rss) / 1024,
                FLOORS["peak_rss_kib"] / 1024,
                "MiB",
            ),
        ]
    return {"floors": floors, "rows": rows, "checks": checks}


def _row(variant: str, measure: str, samples: list[dict[str, Any]]) -> dict[str, Any]:
    walls = [s["wall_s"] for s in samples]
    return {
        "variant": variant,
        "measure": measure,
        "median_s": median(walls),
        "min_s": min(walls),
        "max_s": max(walls),
        "in_process_s": median(s["index_s"] for s in samples),
        "startup_s": median(s["import_s"] for s in samples),
        "cpu_s": median(s["cpu_s"] for s in samples),
        "parsed": samples[-1]["parsed"],
        "files": samples[-1]["files"],
        "edges": samples[-1]["edges"],
        "load_1m": round(median(s["load_1m"] for s in samples), 1),
    }


def _check(variant: str, what: str, value: float, limit: float, unit: str) -> dict[str, Any]:
    return {
        "variant": variant,
        "what": what,
        "value": round(value, 3),
        "limit": limit,
        "unit": unit,
        "pass": value <= limit,
    }


ROW_HEADERS = (
    "variant",
    "measure",
    "median s",
    "min s",
    "max s",
    "in-process s",
    "start-up s",
    "CPU s",
    "parsed",
    "load 1m",
    "cold/floor",
    "peak MiB (tree PSS / tree RSS / main / worker)",
)


def row_cells(row: dict[str, Any]) -> list[object]:
    """One results row as table cells."""
    rss = (
        f"{row['peak_tree_pss_mib']} / {row['peak_tree_rss_mib']} / {row['main_rss_mib']} / "
        f"{row['worker_rss_mib']}"
        if "peak_tree_rss_mib" in row
        else ""
    )
    return [
        row["variant"],
        row["measure"],
        row["median_s"],
        row["min_s"],
        row["max_s"],
        row["in_process_s"],
        row["startup_s"],
        row["cpu_s"],
        row["parsed"],
        row["load_1m"],
        row.get("cold_over_floor", ""),
        rss,
    ]


def check_lines(checks: list[dict[str, Any]]) -> list[str]:
    """One PASS/FAIL line per floor."""
    return [
        f"{verdict(c['pass'])}  [{c['variant']}] {c['what']}: {c['value']:g} {c['unit']}"
        f" (floor <= {c['limit']:g})"
        for c in checks
    ]


def report(
    info: dict[str, Any], corpus: dict[str, Any], summary: dict[str, Any], repeat: int, edit_file: str
) -> str:
    """The printed report."""
    floors = "; ".join(
        f"{v}: {f['floor_s']:.3f} s (parse only {f['parse_s']:.3f} s, whole subprocess "
        f"{f['wall_s']:.3f} s, CPU {f['cpu_s']:.2f} s)"
        for v, f in summary["floors"].items()
    )
    lines = [
        f"machine: {machine_line(info)}",
        f"corpus: {corpus['files']} .py files, {corpus['bytes'] / 1e6:.1f} MB copied from {corpus['source']}",
        "every indexer timing is the wall time of a fresh `python -c` process around index_repo (imports and"
        f" process-pool start-up included); median of {repeat}; touch/edit file: {edit_file}",
        f"floor (tree-sitter read+parse of every file, one process), median: {floors}",
        "cold CPU / floor CPU (the work ratio, which load barely moves; not a floor): "
        + ", ".join(f"{v} {f['cold_cpu_over_floor_cpu']:.2f}x" for v, f in summary["floors"].items()),
        "",
        table(ROW_HEADERS, [row_cells(r) for r in summary["rows"]]),
        "",
        *check_lines(summary["checks"]),
    ]
    return "\n".join(lines)


# -- cold, whole process, against the parse floor ------------------------------------------------
def cold_pair(
    root: Path, codes: list[Path], keep: Path | None = None, reverse: bool = False
) -> dict[str, Any]:
    """One round on ``root``: the parse floor, then a cold ``mnemo index`` by each code tree, in
    reverse order with ``reverse`` (rounds alternate it: the tree run second in a round paid a few
    per cent more CPU on a loaded machine); its ``.mnemo/`` is moved under ``keep``, when given, as
    ``<repository>/<code tree name>``."""
    floor_code = codes[-1]
    run = check_run(
        run_measured([sys.executable, "-c", LANGUAGE_FLOOR_CODE, str(root)], env=_with_path(floor_code)),
        "the parse floor",
    )
    found: dict[str, Any] = {"floor": {**json.loads(run.stdout), "wall_s": run.wall_s, "cpu_s": run.cpu_s}}
    for code in reversed(codes) if reverse else codes:
        shutil.rmtree(root / ".mnemo", ignore_errors=True)
        cmd = [sys.executable, "-m", "mnemo_core.cli", "index", "--no-vectors", str(root)]
        index = check_run(run_measured(cmd, cwd=root, env=_with_path(code)), f"mnemo index ({code})")
        found[str(code)] = {"wall_s": index.wall_s, "cpu_s": index.cpu_s, "load_1m": os.getloadavg()[0]}
        if keep is not None:
            kept = keep / root.name / code.name
            shutil.rmtree(kept, ignore_errors=True)
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(root / ".mnemo", kept)
    return found


def _with_path(code: Path) -> dict[str, str]:
    """The environment that runs ``code``, byte-compiled as an installed package is (a
    ``PYTHONDONTWRITEBYTECODE`` inherited from a sandbox would compile every module in every process)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(code.resolve())}


def cold_report(rounds: dict[str, list[dict[str, Any]]], codes: list[Path]) -> tuple[str, bool]:
    """A table of medians and paired ratios per repository and code tree, and whether every CPU
    ratio of the last code tree is within the floor."""
    headers = (
        "repository",
        "files",
        "code",
        "wall s",
        "CPU s",
        "floor wall s",
        "floor CPU s",
        "CPU / floor",
        "wall / floor",
    )
    rows, passed = [], True
    for repo, samples in rounds.items():
        floor_cpu = median(r["floor"]["cpu_s"] for r in samples)
        floor_wall = median(r["floor"]["wall_s"] for r in samples)
        for code in codes:
            runs = [r[str(code)] for r in samples]
            cpu_ratio = median(r[str(code)]["cpu_s"] / r["floor"]["cpu_s"] for r in samples)
            wall_ratio = median(r[str(code)]["wall_s"] / r["floor"]["wall_s"] for r in samples)
            rows.append(
                [
                    repo,
                    samples[0]["floor"]["files"],
                    str(code),
                    round(median(r["wall_s"] for r in runs), 1),
                    round(median(r["cpu_s"] for r in runs), 1),
                    round(floor_wall, 1),
                    round(floor_cpu, 1),
                    f"{cpu_ratio:.2f}x",
                    f"{wall_ratio:.2f}x",
                ]
            )
            if code == codes[-1]:
                passed = passed and cpu_ratio <= FLOORS["cold_over_floor"]
    return markdown_table(headers, rows), passed


def main_cold(args: argparse.Namespace) -> int:
    """``--cold``: each repository's rounds, interleaved, then the medians."""
    codes = [c.resolve() for c in args.code] if args.code else [Path(__file__).resolve().parents[1]]
    for code in codes:  # byte-compiled before the first timing, not by it
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "mnemo_core")], check=True)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mnemo-bench-"))
    rounds: dict[str, list[dict[str, Any]]] = {}
    try:
        roots = {}
        for repo in args.cold:
            if repo == "stdlib":
                root = workdir / "stdlib"
                if not root.is_dir():
                    copy_python_tree(args.stdlib, root)
                    make_git_repo(root)
                roots[repo] = root
            else:
                roots[Path(repo).name] = Path(repo).resolve()
        for name, root in roots.items():
            rounds[name] = [cold_pair(root, codes, args.keep, i % 2 == 1) for i in range(args.repeat)]
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    text, passed = cold_report(rounds, codes)
    print(f"machine: {machine_line(machine_info())}; median of {args.repeat} rounds\n\n{text}")
    print(
        f"\n{verdict(passed)}  cold index CPU at most {FLOORS['cold_over_floor']:g}x the parse floor"
        " (the last --code)"
    )
    path = write_json(
        f"{NAME}_cold", {"machine": machine_info(), "codes": [str(c) for c in codes], "rounds": rounds}
    )
    print(f"wrote {path}")
    return 0 if passed else 1


def main(argv: list[str] | None = None) -> int:
    """Copy the corpus, measure, print the table and floors, write JSON."""
    args = parse_args(argv)
    if args.cold:
        return main_cold(args)
    info = machine_info()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mnemo-bench-"))
    try:
        corpus: dict[str, Any] = {"source": str(args.stdlib)}
        variants = {}
        for variant in args.variants:
            root = workdir / variant / "stdlib"
            corpus["files"], corpus["bytes"] = copy_python_tree(args.stdlib, root)
            if variant == "git":
                make_git_repo(root)
            variants[variant] = measure_variant(root, args.edit_file, args.repeat)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    summary = summarize(variants)
    print(report(info, corpus, summary, args.repeat, args.edit_file))
    print("\n" + markdown_table(ROW_HEADERS, [row_cells(r) for r in summary["rows"]]))
    path = write_json(
        NAME,
        {
            "machine": info,
            "corpus": corpus,
            "repeat": args.repeat,
            "edit_file": args.edit_file,
            "floors": FLOORS,
            "samples": variants,
            "summary": summary,
        },
    )
    print(f"\nwrote {path}")
    return 0 if all(c["pass"] for c in summary["checks"]) else 1


if __name__ == "__main__":
    sys.exit(main())
