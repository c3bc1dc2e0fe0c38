"""Before/after: the same mnemo commands, run by two checkouts of mnemo's code, give the same JSON.

For each repository (a git directory or work tree) and each checkout of mnemo (a directory put first
on ``PYTHONPATH``), the repository is cloned afresh, indexed, and asked ``mnemo pr`` over a few
commit ranges and ``mnemo task`` for a few tasks, each with ``--format json --no-memory``; the
outputs of the first checkout are compared with those of every other one, command by command.

    python bench/same_json.py --code /tmp/before --code . /work/.mirror/pallets+click/repo ...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

VARIABLE = frozenset({"elapsed_ms"})  # how long a command took: never the same twice
RANGES = ("HEAD~3..HEAD", "HEAD~12..HEAD~8", "HEAD~30..HEAD~29")  # recent, middle, one older commit
TASKS = ("fix the error message when an option is missing", "add a timeout to the client")


def _stable(value: Any) -> Any:
    """A JSON value without the keys that vary from run to run."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VARIABLE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _mnemo(code: Path, repo: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(code.resolve())}
    done = subprocess.run(
        [sys.executable, "-m", "mnemo_core.cli", *args, "--repo", str(repo)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    if "--format" not in args:
        return done.stdout
    return json.dumps(_stable(json.loads(done.stdout)), indent=1, sort_keys=True)


def outputs(code: Path, source: Path, work: Path) -> dict[str, str]:
    """Every command's output for one checkout of mnemo on a fresh clone of ``source`` (at one path
    for every checkout: the JSON names the repository)."""
    repo = work / source.parent.name
    shutil.rmtree(repo, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
    _mnemo(code, repo, "index")
    out = {f"pr {r}": _mnemo(code, repo, "pr", r, "--format", "json", "--no-memory") for r in RANGES}
    out.update({f"task {t}": _mnemo(code, repo, "task", t, "--format", "json", "--no-memory") for t in TASKS})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, action="append", required=True, help="a checkout of mnemo")
    parser.add_argument("--keep", type=Path, help="write each output here, as <repo>.<checkout>.json")
    parser.add_argument("repos", type=Path, nargs="+")
    args = parser.parse_args(argv)
    differ = 0
    for source in args.repos:
        with tempfile.TemporaryDirectory() as work:
            runs = [outputs(code, source, Path(work)) for code in args.code]
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for i, run in enumerate(runs):
                (args.keep / f"{source.parent.name}.{i}.json").write_text(json.dumps(run, indent=1))
        for command, first in runs[0].items():
            same = all(run[command] == first for run in runs[1:])
            valid = not first.startswith("exit")
            differ += not same
            size = f"{len(first.splitlines())} lines" if valid else first
            print(f"{source.parent.name:28} {command:60} {'same' if same else 'DIFFERENT'} ({size})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
