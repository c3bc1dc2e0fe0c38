"""``mnemo``: parse the command line, dispatch to a command, map failures to exit codes.

Exit codes: 0 success, 1 a MnemoError (one line on stderr), 2 bad usage (argparse), 3 an
unexpected error (traceback written to a log file whose path is printed), 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path

from mnemo_core import __version__
from mnemo_core.commands import COMMANDS
from mnemo_core.errors import MnemoError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command registered."""
    parser = argparse.ArgumentParser(prog="mnemo", description="Which code matters here: ranked, budgeted, explained.")
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="mnemo: %(message)s", stream=sys.stderr, force=True)
    try:
        return int(args.run(args))
    except MnemoError as exc:
        print(f"mnemo: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mnemo: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception:
        log = Path(tempfile.gettempdir()) / "mnemo-crash.log"
        log.write_text(traceback.format_exc(), encoding="utf-8")
        print(f"mnemo: internal error; details written to {log}. Please report it.", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
