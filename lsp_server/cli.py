"""``mnemo-lsp``: start the language server on stdio (the default) or on a TCP port."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence

from lsp_server import calls, commands, configuration, hover, indexing, lens, session, symbols
from lsp_server.protocol import DESERIALIZE_FAILED
from lsp_server.server import ClientStdout, MnemoServer, forward_engine_logs
from mnemo_core import __version__
from mnemo_core.boundary import EXIT_USAGE, guarded
from mnemo_core.engine import languages
from mnemo_core.terminal import escaped_output

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 2087  # the port pygls examples and editor configs conventionally use
PYGLS_RPC_LOGGER = "pygls.protocol.json_rpc"
PYGLS_SERVER_LOGGER = "pygls.server"
ANSWERED_ERROR = "Exception occurred for message"  # pygls logs each error response with a traceback


def create_server() -> MnemoServer:
    """A server with every feature registered."""
    server = MnemoServer()
    for feature in (configuration, indexing, commands, hover, lens, calls, symbols, session):
        feature.setup(server)
    forward_engine_logs(server)
    return server


def _skip_answered_errors(record: logging.LogRecord) -> bool:
    """Drop pygls' traceback for an error the client already got as a response (bugs among them
    are logged to the client's output channel with their traceback)."""
    return not str(record.msg).startswith((ANSWERED_ERROR, DESERIALIZE_FAILED))


def _skip_exit_tracebacks(record: logging.LogRecord) -> bool:
    """Drop asyncio's traceback for pygls' ``sys.exit`` on ``exit`` over TCP (it is raised inside the
    connection callback; the exit code is still the one the LSP asks for)."""
    return not (record.exc_info and isinstance(record.exc_info[1], SystemExit))


def _announce_listening() -> None:
    """Say on stderr when the TCP server listens (pygls' "Serving on ..." line)."""
    announcer = logging.StreamHandler(sys.stderr)
    announcer.setFormatter(logging.Formatter("mnemo-lsp: %(message)s"))
    logger = logging.getLogger(PYGLS_SERVER_LOGGER)
    logger.addHandler(announcer)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnemo-lsp``."""
    parser = argparse.ArgumentParser(prog="mnemo-lsp", description="The mnemo language server.")
    parser.add_argument("--version", action="version", version=f"mnemo-lsp {__version__}")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP port instead of stdio")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"TCP host (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr what the server does")
    parser.add_argument(
        "--languages",
        action="store_true",
        help="print the languages the server indexes (JSON: name -> file extensions) and exit",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until the client disconnects; returns the exit code (1 for an ``exit``
    notification without a ``shutdown`` request before it, as the LSP says)."""
    with escaped_output(stdout=False):  # stdout carries the protocol; the log is stderr
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.languages:
        return guarded("mnemo-lsp", _print_languages)
    if args.tcp and args.stdio:
        print("mnemo-lsp: error: choose one of --stdio and --tcp", file=sys.stderr)
        return EXIT_USAGE
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.INFO if args.verbose else logging.WARNING)
    logging.basicConfig(handlers=[stderr], level=logging.WARNING, format="mnemo-lsp: %(name)s: %(message)s")
    logging.getLogger(PYGLS_RPC_LOGGER).addFilter(_skip_answered_errors)
    logging.getLogger("asyncio").addFilter(_skip_exit_tracebacks)
    return guarded("mnemo-lsp", lambda: _serve(args))


def _print_languages() -> int:
    print(json.dumps(languages()))
    return 0


def _serve(args: argparse.Namespace) -> int:
    server = create_server()
    if args.tcp:
        _announce_listening()
    try:
        if args.tcp:
            server.start_tcp(args.host, args.port)
        else:
            server.start_io(sys.stdin.buffer, ClientStdout(sys.stdout.buffer))  # type: ignore[arg-type]
    finally:
        server.close()
    return server.exit_code


if __name__ == "__main__":
    sys.exit(main())
