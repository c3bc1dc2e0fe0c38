"""Work bounded by size, not by input (issue #37): a file nested thousands deep, a 200 MB change.

Builds, in a temporary directory, one repository per nesting depth holding ``deep.py``
(``x = f(f(f(...)))``, one call per line) and a small module, and one repository whose last commit
edits a small module and adds a generated ``gen.py`` of ``--mb`` megabytes. Then, in fresh
interpreters with ``PYTHONPATH`` on ``--checkout`` (this repository by default; a worktree of an
older commit measures the before): ``mnemo index`` on each deep repository, and ``mnemo pr`` over
the last commit under an address-space limit of ``--memory-gb`` (``prlimit --as``, as ``ulimit -v``),
timing the whole process and sampling the peak RSS of its process tree (git included). The floors:
the 5,000-deep file indexes in under 10 s; the change is answered in under 10 s within 2 GB, with a
note naming the file it skipped.

Usage: ``python bench/bounds_speed.py [--depths 5000 7000] [--mb 200] [--checkout PATH]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO_DIR, check_run, machine_info, machine_line, run_measured, table, verdict, write_json

FLOOR_S = 10.0  # the floor for both the deep file and the large change
AUTHOR_ENV = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}
GENERATED_LINE = "def f(x):\n    return x + 1\n\n\n"


def git(root: Path, *args: str) -> str:
    env = {**os.environ, **AUTHOR_ENV}
    return subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout


def new_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    return commit(root, files)


def commit(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[5000, 7000])
    parser.add_argument("--mb", type=int, default=200, help="size of the generated file in the change")
    parser.add_argument("--memory-gb", type=float, default=2.0)
    parser.add_argument("--checkout", type=Path, default=REPO_DIR, help="the mnemo to measure")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.checkout.resolve())}
    cli = [sys.executable, "-m", "mnemo_core.cli"]
    rows, data = [], {"machine": machine_info(), "checkout": str(args.checkout), "runs": []}
    with tempfile.TemporaryDirectory(prefix="mnemo-bounds-") as tmp:
        for depth in args.depths:
            deep = "x = " + "f(\n" * depth + "1" + ")" * depth + "\n"
            root = new_repo(
                Path(tmp) / f"deep{depth}", {"deep.py": deep, "ok.py": "def hello():\n    return 1\n"}
            )
            run = check_run(run_measured([*cli, "index", "--repo", str(root)], env=env), "index")
            rows.append(
                [
                    f"index: f(...) {depth} deep",
                    f"{run.wall_s:.1f}",
                    run.peak_tree_rss_kib // 1024,
                    verdict(run.wall_s < FLOOR_S),
                    run.stdout.strip()[-90:],
                ]
            )
            data["runs"].append(
                {"what": f"index {depth} deep", "wall_s": run.wall_s, "rss_kib": run.peak_tree_rss_kib}
            )
        root = new_repo(Path(tmp) / "large", {"app.py": "def hello():\n    return 1\n"})
        generated = GENERATED_LINE * (args.mb * 1_000_000 // len(GENERATED_LINE) + 1)
        commit(root, {"app.py": "def hello():\n    return 2\n", "gen.py": generated})
        del generated
        limit = str(int(args.memory_gb * 1e9))
        run = run_measured(
            ["prlimit", f"--as={limit}", *cli, "pr", "HEAD~1..HEAD", "--repo", str(root)], env=env
        )
        note = next(
            (line for line in run.stdout.splitlines() if line.startswith("note: skipped")), "(no note)"
        )
        ok = run.returncode == 0 and run.wall_s < FLOOR_S and "gen.py" in note
        rows.append(
            [
                f"pr: +{args.mb} MB gen.py, {args.memory_gb:g} GB limit",
                f"{run.wall_s:.1f}",
                run.peak_tree_rss_kib // 1024,
                verdict(ok),
                f"exit {run.returncode}; {note}",
            ]
        )
        data["runs"].append(
            {
                "what": f"pr {args.mb} MB",
                "wall_s": run.wall_s,
                "rss_kib": run.peak_tree_rss_kib,
                "returncode": run.returncode,
            }
        )
    print(machine_line(data["machine"]))
    print(table(["run", "wall s", "peak MB", "floor", "said"], rows))
    write_json("bounds_speed", data)


if __name__ == "__main__":
    main()
