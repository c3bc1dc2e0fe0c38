"""``mnemo index [PATH | --repo PATH] [--full] [--no-vectors]``: build or update the index, then,
when the ``semantic`` extra is installed, the vectors of the symbols whose text is new."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from mnemo_core.commands.common import add_format_argument, in_part, opened, print_json
from mnemo_core.terminal import unfiltered

PROGRESS_AFTER_S = 1.0  # only runs that take a while get a progress bar


class _ProgressBar:
    """A one-line progress bar on stderr, shown in a terminal once a run passes one second."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not sys.stderr.isatty() or time.monotonic() - self.started < PROGRESS_AFTER_S:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        screen = unfiltered(sys.stderr)
        screen.write(f"\r{phase} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        screen.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            unfiltered(sys.stderr).write("\r\033[K")


def register(sub: Any) -> None:
    parser = sub.add_parser("index", help="build or update the index of a repository")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("path", nargs="?", help="repository directory (default: the current directory)")
    where.add_argument("--repo", default=".", help="the same, as an option like every other command's")
    parser.add_argument("--full", action="store_true", help="re-parse every file")
    parser.add_argument(
        "--plain",
        action="store_true",
        help="index a directory that is not in a git work tree (walked; later commands then accept it)",
    )
    parser.add_argument(
        "--no-vectors",
        action="store_true",
        help="skip the semantic vectors (made after the index when mnemo[semantic] is installed)",
    )
    add_format_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.engine import Engine
    from mnemo_core.render import index_run_json

    engine = opened(Engine.open(args.path or args.repo, plain=args.plain))
    bar = _ProgressBar()
    try:
        stats = engine.index(full=args.full, progress=bar)
    finally:
        bar.close()
    vectors = None
    if not args.no_vectors:
        bar = _ProgressBar()
        try:
            vectors = engine.vectors(progress=bar)
        finally:
            bar.close()
    if stats.walked:
        print(
            f"mnemo: {engine.root} is not a git repository; indexed it by walking the directory",
            file=sys.stderr,
        )
    if args.format == "json":
        print_json(index_run_json(engine.root, stats, vectors))
        return 0
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(stats.skipped.items()))
    partial = f", {len(stats.partial)} in part: {in_part(stats.partial)}" if stats.partial else ""
    print(
        f"indexed {engine.root}: {stats.files} files ({stats.parsed} parsed, {stats.removed} removed"
        f"{', skipped ' + skipped if skipped else ''}{partial}), {stats.symbols} symbols, {stats.edges} edges"
        f" in {stats.elapsed_ms / 1000:.2f}s"
    )
    if vectors is not None:
        print(
            f"vectors: {vectors.encoded} encoded, {vectors.reused} reused for {vectors.symbols} product"
            f" symbols in {vectors.elapsed_ms / 1000:.2f}s"
        )
    return 0
