"""Impacted tests through layers of overrides: the walk's cost as the class hierarchy deepens.

Builds throwaway repositories of ``L`` layers, each a base class whose method ``K`` subclasses
override, every override calling the next layer's base method (``x.m1(x)`` on a ``B1``); a test per
override of the first layer. One commit changes an override of the last layer, and ``mnemo tests
--base HEAD~1`` runs in a fresh interpreter, timed whole (the index is built first). Every path up
from the change assumes a receiver class per layer it climbs, so an unbounded walk keeps ``K ** (L -
1)`` states for a method of the first layer. No floor: the table shows whether the time grows with
``K ** L`` or stays flat.

Usage: ``python -m bench.layers_speed [--repeat 3] [--shapes 4x4,5x6,6x6,6x8,6x10]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import machine_info, machine_line, run_measured, table, write_json

DATE = "2025-01-01T00:00:00+00:00"


def layered_source(layers: int, overrides: int) -> tuple[str, str]:
    """The package module and the test module of one shape."""
    parts = []
    for i in range(layers):
        parts.append(f"class B{i}:\n    def m{i}(self, x: 'B{i + 1}'):\n        return 0\n")
        for j in range(overrides):
            body = f"return x.m{i + 1}(x)" if i + 1 < layers else "return 1"
            parts.append(f"class S{i}_{j}(B{i}):\n    def m{i}(self, x: 'B{i + 1}'):\n        {body}\n")
    parts.append(f"class B{layers}:\n    def m{layers}(self, x):\n        return 0\n")
    tests = [
        f"def test_chain_{j}():\n    assert S0_{j}().m0(S1_{j}()) is not None\n" for j in range(overrides)
    ]
    return "\n\n".join(parts), "from pkg.layers import *\n\n\n" + "\n\n".join(tests)


def git(root: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE)
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def build(root: Path, layers: int, overrides: int) -> None:
    """The repository of one shape, with a second commit changing an override of the last layer."""
    package, tests = layered_source(layers, overrides)
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/layers.py").write_text(package)
    (root / "tests/test_layers.py").write_text(tests)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=bench@example.com", "-c", "user.name=bench", "commit", "-qm", "layers")
    last = f"class S{layers - 1}_0(B{layers - 1}):\n    def m{layers - 1}(self, x: 'B{layers}'):\n"
    last += "        return 1\n"
    (root / "pkg/layers.py").write_text(package.replace(last, last.replace("return 1", "return 2")))
    git(root, "-c", "user.email=bench@example.com", "-c", "user.name=bench", "commit", "-qam", "edit")


def measure(root: Path, repeat: int) -> dict[str, Any]:
    """Whole-process ``mnemo tests --base HEAD~1``, ``repeat`` times after one warm-up."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-m", "mnemo_core.cli", "tests", "--base", "HEAD~1", "--format", "list"]
    run_measured([sys.executable, "-m", "mnemo_core.cli", "index", str(root)], env=env)
    warm = run_measured(command, cwd=root, env=env)
    if warm.returncode != 0:
        raise SystemExit(f"mnemo tests failed in {root}:\n{warm.stderr}")
    times = [run_measured(command, cwd=root, env=env).wall_s for _ in range(repeat)]
    return {
        "median_s": round(statistics.median(times), 3),
        "runs_s": [round(t, 3) for t in times],
        "tests": len(warm.stdout.splitlines()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per shape (default 3)")
    parser.add_argument("--shapes", default="4x4,5x6,6x6,6x8,6x10", help="LAYERSxOVERRIDES, comma-separated")
    args = parser.parse_args()
    shapes = [tuple(int(n) for n in shape.split("x")) for shape in args.shapes.split(",")]
    info = machine_info()
    results = {}
    with tempfile.TemporaryDirectory(prefix="mnemo-layers-bench-") as tmp:
        for layers, overrides in shapes:
            root = Path(tmp) / f"{layers}x{overrides}"
            build(root, layers, overrides)
            results[f"{layers}x{overrides}"] = {
                "layers": layers,
                "overrides": overrides,
                **measure(root, args.repeat),
            }
    rows = [
        (
            shape,
            r["layers"],
            r["overrides"],
            r["overrides"] ** (r["layers"] - 1),
            r["tests"],
            f"{r['median_s']:.2f}",
        )
        for shape, r in results.items()
    ]
    print(machine_line(info))
    print(table(["shape", "layers", "overrides", "unbounded states", "tests", "median s"], rows))
    print(f"results: {write_json('layers_speed', {'machine': info, 'shapes': results})}")


if __name__ == "__main__":
    main()
