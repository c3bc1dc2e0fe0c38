"""A bumped analysis version against a full re-index: whole-process wall time, in interleaved pairs.

The repository is cloned afresh and indexed once. Then, ``--repeat`` times, back to back: ``mnemo
index --full`` (every file parsed and resolved again) and, after the index's analysis version is set
to one this code does not have, ``mnemo index`` (every file resolved again from its stored
references, none parsed). Both skip the semantic vectors. Each pair's ratio is taken, so a change in
the machine's load between pairs does not skew it; the medians of the times and of the ratios are
printed, with the edges each way leaves (they must be the same).

Run: ``python bench/analysis_speed.py /work/.mirror/pytest-dev+pytest/repo [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

from bench.common import run_measured
from mnemo_core.index.store import ANALYSIS_META, index_path

FLOOR = 0.5  # re-deriving the analysis takes under half of a full re-index


def _index(root: Path, *flags: str) -> float:
    done = run_measured([sys.executable, "-m", "mnemo_core.cli", "index", "--no-vectors", *flags, str(root)])
    if done.returncode != 0:
        raise SystemExit(f"mnemo index failed in {root}:\n{done.stderr}")
    return done.wall_s


def _edges(root: Path) -> int:
    with closing(sqlite3.connect(index_path(root))) as db:
        return int(db.execute("SELECT count(*) FROM edges").fetchone()[0])


def _forget_analysis(root: Path) -> None:
    with closing(sqlite3.connect(index_path(root))) as db, db:
        db.execute("UPDATE meta SET value='0' WHERE key=?", (ANALYSIS_META,))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a git directory or work tree")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work) / "repo"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(root)], check=True)
        _index(root)
        full, again, ratios = [], [], []
        for _ in range(args.repeat):
            full.append(_index(root, "--full"))
            edges_full = _edges(root)
            _forget_analysis(root)
            again.append(_index(root))
            ratios.append(again[-1] / full[-1])
            if _edges(root) != edges_full:
                raise SystemExit(f"re-derived edges differ: {_edges(root)} against {edges_full}")
        print(f"full re-index: median {statistics.median(full):.2f}s of {[round(t, 2) for t in full]}")
        print(f"analysis bump: median {statistics.median(again):.2f}s of {[round(t, 2) for t in again]}")
        ratio = statistics.median(ratios)
        print(f"ratio (median of pairs): {ratio:.2f}; edges {edges_full}")
        print(f"{'PASS' if ratio < FLOOR else 'FAIL'} re-deriving takes under {FLOOR:.0%} of a full re-index")
    return 0 if ratio < FLOOR else 1


if __name__ == "__main__":
    sys.exit(main())
