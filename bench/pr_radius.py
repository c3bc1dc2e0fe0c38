"""What ``mnemo pr`` says of real commits: the blast radius it counts, what it lists apart, the verdict.

For each of the newest non-merge commits of a fetched repository (``/work/.mirror/<owner>+<name>/repo``,
cloned into a temporary directory and indexed once at its head), runs ``mnemo pr --base C~1 --head C
--format json`` in a fresh interpreter and records the counted callers, the possible callers (listed
apart, not counted), how many of the counted callers are modules (an importer, or module-level code
that calls the change), the changed symbols it says no test reaches, and the risk verdict. Run it once per
engine (``--pythonpath`` points at another checkout of mnemo) and compare the JSON files: a count that
moves tells which commits a change to the engine re-judged.

Usage: ``python bench/pr_radius.py --repos sqlalchemy/alembic,pallets/flask [--commits 40]
[--pythonpath DIR] [--label NAME]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from common import machine_info, machine_line, table, write_json

MIRROR_ROOT = Path("/work/.mirror")
CLI = "import sys; from mnemo_core.cli import main; sys.exit(main(sys.argv[1:]))"


def clone(source: str, workdir: Path) -> Path:
    """A clone of the fetched mirror of ``source`` (owner/name) in ``workdir``."""
    mirror = MIRROR_ROOT / source.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{mirror} is missing: fetch github:{source} with the search tool first")
    dest = workdir / source.replace("/", "+")
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True, capture_output=True)
    return dest


def mnemo(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``mnemo ARGS`` in a fresh interpreter, in ``root``."""
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )


def commits(root: Path, count: int) -> list[str]:
    """The newest ``count`` non-merge commits that have a parent."""
    out = subprocess.run(
        ["git", "log", "--no-merges", "--format=%H %P", f"--max-count={count}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split()[0] for line in out.splitlines() if len(line.split()) == 2]


def judged(root: Path, env: dict[str, str], sha: str) -> dict[str, Any]:
    """One commit's counts and verdict (or the error line ``mnemo pr`` gave)."""
    run = mnemo(root, env, "pr", "--base", f"{sha}~1", "--head", sha, "--format", "json")
    if run.returncode != 0:
        return {"commit": sha, "error": run.stderr.strip().splitlines()[-1:]}
    impact = json.loads(run.stdout)["impact"]
    modules = [c for c in impact["callers"] if c["kind"] == "module"]
    untested = next((r for r in impact["reasons"] if r.startswith("no test reaches: ")), "")
    return {
        "commit": sha,
        "callers": len(impact["callers"]),
        "module_callers": len(modules),
        "possible_callers": len(impact["possible_callers"]),
        "untested": len(_names(untested.removeprefix("no test reaches: "))) if untested else 0,
        "risk": impact["risk"],
        "radius_reason": next((r for r in impact["reasons"] if "blast radius" in r), ""),
    }


def _names(listed: str) -> list[str]:
    """The names of a reason's list (``a, b and 3 more`` counts 5)."""
    head, _, more = listed.partition(" and ")
    return head.split(", ") + ["?"] * int(more.split()[0] if more[:1].isdigit() else 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", default="sqlalchemy/alembic,pallets/flask")
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--pythonpath", help="a checkout of mnemo to measure instead of the installed one")
    parser.add_argument("--label", default="", help="suffix of the JSON file (pr-radius-<label>.json)")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": args.pythonpath} if args.pythonpath else dict(os.environ)
    info = machine_info()
    print(machine_line(info))
    results: dict[str, list[dict[str, Any]]] = {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="mnemo-pr-radius-") as tmp:
        for source in args.repos.split(","):
            root = clone(source, Path(tmp))
            mnemo(root, env, "index")
            results[source] = [judged(root, env, sha) for sha in commits(root, args.commits)]
            ok = [r for r in results[source] if "error" not in r]
            risks = Counter(r["risk"] for r in ok)
            rows.append(
                [
                    source,
                    len(ok),
                    sum(r["callers"] for r in ok),
                    sum(r["module_callers"] for r in ok),
                    sum(r["possible_callers"] for r in ok),
                    sum(1 for r in ok if r["radius_reason"]),
                    sum(r["untested"] for r in ok),
                    f"{risks['low']}/{risks['medium']}/{risks['high']}",
                ]
            )
    headers = [
        "repo",
        "commits",
        "callers",
        "module callers",
        "possible",
        "radius reasons",
        "untested",
        "risk l/m/h",
    ]
    print(table(headers, rows))
    label = f"-{args.label}" if args.label else ""
    write_json(f"pr-radius{label}", {"machine": info, "pythonpath": args.pythonpath, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
