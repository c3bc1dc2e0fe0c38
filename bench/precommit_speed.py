"""Speed of the pre-commit hook on a warm flask-sized repository: 1-3 changed files per commit.

Clones the fetched mirror of pallets/flask (``/work/.mirror/pallets+flask/repo``; never committed)
into a temporary directory, builds the index, and then for each scenario stages an edit and runs
``mnemo-precommit`` in a fresh interpreter, as pre-commit does, timing the whole process: start-up,
the incremental re-index of the edited files, ``for_pr`` on the staged change and the output. Each
round writes a different edit, so every run re-parses its files like a real commit would. The
floor is 1.5 s per run (the worst of the rounds). Bytecode caching is on for the child processes
(a pip-installed hook has compiled modules; this environment may disable writing them).

Usage: ``python bench/precommit_speed.py [--repeat 5] [--mirror-root /work/.mirror]``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import machine_info, machine_line, run_measured, table, verdict, write_json

REPO = "pallets/flask"
MIRROR_ROOT = Path("/work/.mirror")
FLOOR_S = 1.5  # the budget for a 1-3 file change on a warm flask-sized repository
HOOK = "import sys; from ci.precommit import main; sys.exit(main(sys.argv[1:]))"
HEADLINE = re.compile(r"(\d+) changed symbols?.* (\d+) impacted callers?.* (\d+) impacted tests?")
# scenario -> [(file, function, delete)]: the function gets a new first statement, or is deleted
SCENARIOS: dict[str, list[tuple[str, str, bool]]] = {
    "1 file: body edit": [("src/flask/helpers.py", "get_debug_flag", False)],
    "2 files: body edits": [
        ("src/flask/helpers.py", "get_debug_flag", False),
        ("src/flask/sansio/scaffold.py", "_endpoint_from_view_func", False),
    ],
    "3 files: body edits": [
        ("src/flask/helpers.py", "get_debug_flag", False),
        ("src/flask/sansio/scaffold.py", "_endpoint_from_view_func", False),
        ("src/flask/cli.py", "prepare_import", False),
    ],
    "1 file: delete a called function": [("src/flask/helpers.py", "get_load_dotenv", True)],
}


def checkout(workdir: Path, mirror_root: Path) -> tuple[Path, str]:
    """Clone the fetched mirror into ``workdir``; returns (path, commit)."""
    mirror = mirror_root / REPO.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{mirror} is missing: fetch github:{REPO} with the search tool first")
    dest = workdir / "flask"
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True, capture_output=True)
    sha = subprocess.run(
        ["git", "-C", str(dest), "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return dest, sha


def edit(root: Path, path: str, function: str, delete: bool, round_no: int) -> None:
    """Add ``_bench = round_no`` as the first statement of ``function``, or delete the function."""
    file = root / path
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"def {function}("))
    body = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith(":")) + 1
    indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
    if delete:
        outside = (i for i in range(body, len(lines)) if lines[i].strip() and not lines[i].startswith(indent))
        del lines[start : next(outside, len(lines))]
    else:
        lines.insert(body, f"{indent}_bench = {round_no}\n")
    file.write_text("".join(lines), encoding="utf-8")


def hook_env() -> dict[str, str]:
    """The environment of the timed hook: bytecode caching on, no inherited git or pre-commit state."""
    drop = ("PYTHONDONTWRITEBYTECODE",)
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(("GIT_", "PRE_COMMIT"))}


def run_hook(root: Path) -> tuple[float, str]:
    """One hook run in a fresh interpreter: wall seconds and its output."""
    run = run_measured(
        [sys.executable, "-c", HOOK, "--fail-on", "never", "--repo", str(root)], cwd=root, env=hook_env()
    )
    if run.returncode != 0:
        raise SystemExit(f"mnemo-precommit failed ({run.returncode}):\n{run.stdout}{run.stderr}")
    return run.wall_s, run.stdout


def scenario(root: Path, edits: list[tuple[str, str, bool]], repeat: int) -> dict[str, Any]:
    """Time ``repeat`` commits of ``edits``, each round with a fresh edit."""
    times, headline = [], ""
    for round_no in range(repeat):
        subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "HEAD"], check=True)
        for path, function, delete in edits:
            edit(root, path, function, delete, round_no)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        wall, out = run_hook(root)
        times.append(wall)
        headline = out.splitlines()[0] if out else ""
    counts = HEADLINE.search(headline)
    return {
        "files": len(edits),
        "median_s": round(statistics.median(times), 3),
        "max_s": round(max(times), 3),
        "runs_s": [round(t, 3) for t in times],
        "headline": headline,
        "changed": int(counts[1]) if counts else 0,
        "callers": int(counts[2]) if counts else 0,
        "tests": int(counts[3]) if counts else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="commits timed per scenario (default 5)")
    parser.add_argument("--mirror-root", type=Path, default=MIRROR_ROOT, help="where fetched mirrors live")
    args = parser.parse_args()
    info = machine_info()
    with tempfile.TemporaryDirectory(prefix="mnemo-precommit-bench-") as tmp:
        root, sha = checkout(Path(tmp), args.mirror_root)
        index = run_measured([sys.executable, "-m", "mnemo_core.cli", "index", str(root)], env=hook_env())
        run_hook(root)  # warm: the operating system's file cache and the bytecode cache
        results = {name: scenario(root, edits, args.repeat) for name, edits in SCENARIOS.items()}
    rows = [
        (
            name,
            r["files"],
            r["changed"],
            r["callers"],
            r["tests"],
            f"{r['median_s']:.2f}",
            f"{r['max_s']:.2f}",
            verdict(r["max_s"] <= FLOOR_S),
        )
        for name, r in results.items()
    ]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"mnemo-precommit on {REPO} @ {sha} (cold index {index.wall_s:.1f} s), {args.repeat} commits per "
        f"scenario, load average {load}; {machine_line(info)}"
    )
    print(
        table(
            ("scenario", "files", "changed", "callers", "tests", "median s", "worst s", f"<= {FLOOR_S} s"),
            rows,
        )
    )
    write_json(
        "precommit_speed",
        {
            "machine": info,
            "repo": REPO,
            "commit": sha,
            "cold_index_s": index.wall_s,
            "floor_s": FLOOR_S,
            "scenarios": results,
        },
    )


if __name__ == "__main__":
    main()
