"""``mnemo``: parse the command line, dispatch to a command, map failures to exit codes.

Failures map to exit codes in ``mnemo_core.boundary`` (shared by every entry point).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from mnemo_core import __version__
from mnemo_core.boundary import guarded
from mnemo_core.commands import COMMANDS
from mnemo_core.terminal import escaped_output


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="mnemo", description="Which code matters here: ranked, budgeted, explained."
    )
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. Nothing it prints carries a control character."""
    with escaped_output():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mnemo: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    repo = getattr(args, "path", None) or getattr(args, "repo", None)  # where a crash log may go
    if getattr(args, "engine_free", False):  # the command opens the engine itself, when it needs it
        return guarded("mnemo", lambda: int(args.run(args)), repo)
    from mnemo_core.engine import recovering  # after parsing: --version and --help load no engine

    return guarded("mnemo", lambda: recovering(repo, lambda: int(args.run(args))), repo)


if __name__ == "__main__":
    sys.exit(main())
