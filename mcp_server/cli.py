"""``mnemo-mcp``: serve mnemo's tools over MCP on stdio, for the repository in the working directory
or the one ``--repo`` names."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Sequence

from mcp_server.server import MnemoTools, create_server
from mnemo_core import __version__
from mnemo_core.boundary import guarded
from mnemo_core.engine import Engine, watch_thread
from mnemo_core.terminal import escaped_output


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnemo-mcp``."""
    parser = argparse.ArgumentParser(
        prog="mnemo-mcp", description="mnemo's code context as Model Context Protocol tools, on stdio."
    )
    parser.add_argument("--version", action="version", version=f"mnemo-mcp {__version__}")
    parser.add_argument("--repo", default=".", help="repository directory (default: current directory)")
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="leave the session and task memory out: nothing read from or written to .mnemo/memory.db",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr what the server does")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until the client closes stdin; returns the exit code (1 when ``--repo`` is not a
    directory, said in one line on stderr)."""
    with escaped_output(stdout=False):  # stdout carries the protocol; the log is stderr
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    # Before the SDK configures logging (its basicConfig is then a no-op): stderr only, since stdout
    # carries the protocol.
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mnemo-mcp: %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    return guarded("mnemo-mcp", lambda: _serve(args.repo, False if args.no_memory else None), args.repo)


def _serve(path: str, memory: bool | None) -> int:
    """Serve on stdio, watching the work tree meanwhile: files an agent writes are indexed as they
    change, not when the next call comes."""
    root = Engine.open(path).root
    tools = MnemoTools(root, memory)
    stop = threading.Event()
    watch_thread(root, tools.changed_on_disk, stop)
    try:
        create_server(root, memory, tools).run("stdio")
    finally:
        stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
