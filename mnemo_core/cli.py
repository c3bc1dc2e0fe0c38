"""``mnemo``: parse the command line, dispatch to a command, map failures to exit codes.

Failures map to exit codes in ``mnemo_core.boundary`` (shared by every entry point). The program
(:func:`run`) ends without the interpreter's teardown: once a command is done, freeing every module
and object (a query's numpy, SQLite and a hundred modules of mnemo) takes a tenth of a query's CPU
and does nothing a user sees. The engines the command opened are closed, the output flushed and the
exit handlers run first; with another thread still running (the interpreter would wait for it) or
an output that cannot be flushed, the ordinary exit does it all.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from mnemo_core import __version__
from mnemo_core.boundary import guarded
from mnemo_core.commands import command_modules
from mnemo_core.commands.common import close_engines
from mnemo_core.terminal import escaped_output

# objects allocated between two garbage collections (Python's default is 700): a query allocates
# fewer (its imports are most of them) and never stops to collect, ~20 ms of its CPU on flask; a long
# index still collects, in larger batches
YOUNG_OBJECTS_PER_COLLECTION = 100_000


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: with only the verb the command line ``argv`` names registered, else
    (no command line, or no verb in it: the help, or an error that lists them) every verb."""
    parser = argparse.ArgumentParser(
        prog="mnemo", description="Which code matters here: ranked, budgeted, explained."
    )
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in command_modules(None if argv is None else _verb(argv)):
        command.register(sub)
    return parser


def _verb(argv: Sequence[str]) -> str | None:
    """The verb of a command line: its first word that is no option (no option before the verb
    takes a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. Nothing it prints carries a control character."""
    with escaped_output():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mnemo: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    repo = getattr(args, "path", None) or getattr(args, "repo", None)  # where a crash log may go
    if getattr(args, "engine_free", False):  # the command opens the engine itself, when it needs it
        return guarded("mnemo", lambda: _command(args), repo)
    from mnemo_core.engine import recovering  # after parsing: --version and --help load no engine

    return guarded("mnemo", lambda: recovering(repo, lambda: _command(args)), repo)


def _command(args: argparse.Namespace) -> int:
    """Run the command; the engines it opened are closed when it ends, however it ends."""
    try:
        return int(args.run(args))
    finally:
        close_engines()


def run() -> NoReturn:
    """The ``mnemo`` program: :func:`main` on the process's command line, then :func:`exit_now`."""
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, *gc.get_threshold()[1:])
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """End the process with ``code``, without the interpreter's teardown when nothing needs it."""
    if _other_threads() or not _flushed():
        sys.exit(code)
    atexit._run_exitfuncs()  # what the interpreter runs at exit (logging's last flush, for one)
    if not _flushed():
        sys.exit(code)
    os._exit(code)


def _other_threads() -> bool:
    """Whether a thread the interpreter waits for at exit is still running."""
    main_thread = threading.main_thread()
    return any(t is not main_thread and not t.daemon and t.is_alive() for t in threading.enumerate())


def _flushed() -> bool:
    """Flush the standard streams; False when one cannot take its output any more."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


if __name__ == "__main__":
    run()
