"""What a move through history costs: ``mnemo index`` after ``git checkout HEAD~N`` and back, beside
a cold index of the same repository, and whether the moved index equals a cold one.

For each source tree of mnemo given (this checkout, and ``--code DIR`` for another, e.g. an export
of main: paired, run after each other in every round), a clone of ``--repo`` is made under
``--workdir`` and, as whole processes (``python -m mnemo_core.cli -v index --no-vectors .`` with
that tree first on ``PYTHONPATH``; the semantic vectors, keyed by text, are left out):

1. cold: ``mnemo index`` of the clone at its HEAD (the state directory removed first);
2. back: ``git checkout HEAD~N`` then ``mnemo index``;
3. forward: ``git checkout`` the first HEAD again then ``mnemo index``;
4. with ``--again``, back and forward once more ("back again", "forward again"): the files of
   both trees were parsed by an update before, so they come from the index's kept extractions.

Each timing is wall seconds and the CPU seconds (user + system) of the process and its children,
with the largest RSS of any child so far (``ru_maxrss`` of the children: cumulative, an upper
bound for the step). With ``--check``, this checkout's index
after the round trip is compared with the cold one (rows named without ids: ``store.snapshot``), and the
index at HEAD~N with a cold index of a second clone at HEAD~N; a difference is printed and fails.

Run: ``python bench/history_move.py --repo /work/.mirror/saleor+saleor/repo --back 50 --rounds 1
[--code DIR] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
_LOGGED = ("read what changed", "followed base classes", "parsed and stored", "resolved ", "kept extractions")
STEPS = ("cold", "back", "forward", "back again", "forward again")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _index(code: Path, repo: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one ``mnemo index`` process."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "mnemo_core.cli", "-v", "index", "--no-vectors", "."],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    for line in run.stderr.splitlines():
        if any(word in line for word in _LOGGED):
            print(f"  {code.name}: {line}", flush=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, after.ru_maxrss / 1024


def _snapshot(repo: Path) -> object:
    sys.path.insert(0, str(HERE))
    from mnemo_core.index.store import index_path
    from mnemo_core.index.store.snapshot import snapshot

    with sqlite3.connect(index_path(repo)) as conn:
        return snapshot(conn)


def _clone(source: str, target: Path, rev: str | None = None) -> Path:
    if target.exists():
        shutil.rmtree(target)
    subprocess.run(["git", "clone", "-q", source, str(target)], check=True)
    if rev:
        _git(target, "checkout", "-q", rev)
    return target


def _round(code: Path, label: str, args: argparse.Namespace) -> dict[str, tuple[float, float, float]]:
    repo = _clone(args.repo, Path(args.workdir) / label)
    head = _git(repo, "rev-parse", "HEAD")
    check = args.check and label == "new"
    out = {"cold": _index(code, repo)}
    cold = _snapshot(repo) if check else None
    _git(repo, "checkout", "-q", f"HEAD~{args.back}")
    out["back"] = _index(code, repo)
    cold_back = None
    if check:
        moved = _snapshot(repo)
        there = _clone(args.repo, Path(args.workdir) / f"{label}-cold-back", f"{head}~{args.back}")
        _index(code, there)
        cold_back = _snapshot(there)
        _report(f"{label} at HEAD~{args.back}", moved, cold_back)
    _git(repo, "checkout", "-q", head)
    out["forward"] = _index(code, repo)
    if cold is not None:
        _report(f"{label} back at HEAD", _snapshot(repo), cold)
    if args.again:
        _git(repo, "checkout", "-q", f"HEAD~{args.back}")
        out["back again"] = _index(code, repo)
        if cold_back is not None:
            _report(f"{label} at HEAD~{args.back} again", _snapshot(repo), cold_back)
        _git(repo, "checkout", "-q", head)
        out["forward again"] = _index(code, repo)
        if cold is not None:
            _report(f"{label} back at HEAD again", _snapshot(repo), cold)
    return out


def _report(what: str, moved: object, cold: object) -> None:
    differences = moved.differences(cold)  # type: ignore[attr-defined]
    print(f"check {what}: {'equal to a cold index' if not differences else 'DIFFERS'}")
    for line in differences:
        print(f"  {line[:2000]}")
    if differences:
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="a git repository (or mirror) to clone")
    parser.add_argument("--back", type=int, default=50, help="commits to move back")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--code", help="another mnemo source tree to pair with this one")
    parser.add_argument("--workdir", default="/tmp/history_move")
    parser.add_argument("--check", action="store_true", help="compare the moved indexes with cold ones")
    parser.add_argument("--again", action="store_true", help="move back and forward a second time")
    args = parser.parse_args()
    codes = [("new", HERE)] + ([("base", Path(args.code).resolve())] if args.code else [])
    results: dict[str, list[dict[str, tuple[float, float, float]]]] = {label: [] for label, _ in codes}
    for _ in range(args.rounds):
        for label, code in codes:
            results[label].append(_round(code, label, args))
    print("| code | step | wall s | CPU s | largest RSS so far MB | CPU / cold CPU |")
    print("|---|---|---:|---:|---:|---:|")
    for label, runs in results.items():
        for step in STEPS[: 5 if args.again else 3]:
            walls, cpus, rss = zip(*(run[step] for run in runs), strict=True)
            share = sorted(run[step][1] / run["cold"][1] for run in runs)[len(runs) // 2]
            print(
                f"| {label} | {step} | {sorted(walls)[len(walls) // 2]:.1f}"
                f" | {sorted(cpus)[len(cpus) // 2]:.1f} | {max(rss):.0f} | {share:.1%} |"
            )


if __name__ == "__main__":
    main()
