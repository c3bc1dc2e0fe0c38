"""Speed of the git layer on a synthetic history: one log pass, diffs, and blame cold and cached.

Builds a repository with ``git fast-import`` (files x lines, commits that each rewrite a few lines
of a few files, at increasing dates), then times the calls the pipelines make. Prints a table of
medians. Usage: ``python bench/vcs_speed.py [--files 400] [--commits 2000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from mnemo_core.index.languages import source_extensions
from mnemo_core.vcs.blame import blame_files, blame_lines, clear_blame_cache, newest_commit_in_ranges
from mnemo_core.vcs.changes import commit_log
from mnemo_core.vcs.diff import changed_files
from mnemo_core.vcs.git import git_env
from mnemo_core.vcs.refs import Snapshot

START = 1_700_000_000  # a fixed first commit time keeps runs comparable
STEP_S = 3600  # one commit an hour
BLAMED_FILES = 20  # about what a pull request's changed files and their neighbours need


def build(root: Path, files: int, commits: int, lines: int, seed: int = 7) -> None:
    """A repository at ``root`` with the given shape, written through one fast-import stream."""
    rng = random.Random(seed)
    content = {f"pkg/mod_{i:04d}.py": [f"line {n} of {i}" for n in range(lines)] for i in range(files)}
    stream: list[bytes] = []
    for number in range(commits):
        touched = content if number == 0 else {p: content[p] for p in rng.sample(sorted(content), 3)}
        for text in touched.values():
            if number:
                for _ in range(4):
                    text[rng.randrange(lines)] = f"edit {number} {rng.random():.6f}"
        when = START + number * STEP_S
        message = f"commit {number}".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"author A{number % 7} <a{number % 7}@example.com> {when} +0000\n".encode())
        stream.append(f"committer C <c@example.com> {when} +0000\n".encode())
        stream.append(b"data %d\n%s\n" % (len(message), message))
        for path, text in touched.items():
            blob = ("\n".join(text) + "\n").encode()
            stream.append(f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(blob) + blob + b"\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=git_env())
    subprocess.run(
        ["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(stream), check=True, env=git_env()
    )
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main"], check=True, env=git_env())


def median_ms(action: Callable[[], object], repeat: int, before: Callable[[], None] | None = None) -> float:
    """Median wall time of ``action`` in milliseconds, running ``before`` untimed each round."""
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mnemo-vcs-bench-"))
    try:
        root = work / "repo"
        build(root, args.files, args.commits, args.lines)
        paths = sorted(p.relative_to(root).as_posix() for p in (root / "pkg").glob("*.py"))[:BLAMED_FILES]

        def blame_each(rev: str) -> None:
            for path in paths:
                newest_commit_in_ranges(blame_lines(root, path, rev), [(1, 20), (100, 140)])

        def wipe_disk() -> None:
            clear_blame_cache()
            shutil.rmtree(root / ".mnemo" / "blame", ignore_errors=True)

        (root / ".mnemo").mkdir()
        first = root / paths[0]
        first.write_text("edited\n" + first.read_text(encoding="utf-8"), encoding="utf-8")
        blamed = f"blame {BLAMED_FILES} files"
        cases: list[tuple[str, Callable[[], object], Callable[[], None] | None]] = [
            (
                "commit_log (the index's one git log pass)",
                lambda: commit_log(root, "HEAD", 5000, source_extensions()),
                None,
            ),
            ("changed_files HEAD~50..HEAD", lambda: changed_files(root, "HEAD~50", "HEAD"), None),
            ("changed_files worktree", lambda: changed_files(root, None, Snapshot.WORKTREE), None),
            (f"{blamed} at HEAD one by one, cold", lambda: blame_each("HEAD"), wipe_disk),
            (f"{blamed} at HEAD with blame_files, cold", lambda: blame_files(root, paths, "HEAD"), wipe_disk),
            (
                f"{blamed} at HEAD, disk cache (new process)",
                lambda: blame_files(root, paths, "HEAD"),
                clear_blame_cache,
            ),
            (f"{blamed} at HEAD, memory cache", lambda: blame_files(root, paths, "HEAD"), None),
            (f"{blamed} in the working tree, cold", lambda: blame_files(root, paths), wipe_disk),
            (f"{blamed} in the working tree, memory cache", lambda: blame_files(root, paths), None),
        ]
        rows = [(name, median_ms(action, args.repeat, before)) for name, action, before in cases]
        print(
            f"repository: {args.files} files x {args.lines} lines, {args.commits} commits; "
            f"median of {args.repeat}"
        )
        width = max(len(name) for name, _ in rows)
        print(f"{'operation':<{width}}  {'ms':>9}")
        for name, ms in rows:
            print(f"{name:<{width}}  {ms:>9.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
