"""``mnemo history SYMBOL``: the commits that changed a symbol's lines, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from mnemo_core.commands.common import (
    add_at_argument,
    add_format_argument,
    add_repo_argument,
    open_engine,
    positive_int,
    print_at,
    print_json,
)
from mnemo_core.defaults import DEFAULT_HISTORY


def register(sub: Any) -> None:
    parser = sub.add_parser("history", help="the commits that changed a symbol's lines, newest first")
    parser.add_argument("symbol", help="name, Class.method or path:name")
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=DEFAULT_HISTORY,
        help=f"at most this many commits (default {DEFAULT_HISTORY})",
    )
    add_repo_argument(parser)
    add_format_argument(parser)
    add_at_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.render import history_json, history_text

    engine = open_engine(args)
    histories = engine.history(args.symbol, args.limit)
    if args.format == "json":
        print_json(history_json(histories) | engine.at_fields())
    else:
        print_at(engine)
        print("\n\n".join(history_text(h) for h in histories))
    return 0
