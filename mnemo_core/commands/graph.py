"""``mnemo callers SYMBOL`` and ``mnemo callees SYMBOL``: walk the call graph."""

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


def register(sub: Any) -> None:
    for verb, direction, text in (
        ("callers", "in", "who calls a symbol"),
        ("callees", "out", "what a symbol calls"),
    ):
        parser = sub.add_parser(verb, help=f"{text}, transitively")
        parser.add_argument("symbol", help="name, Class.method or path:name")
        parser.add_argument("--depth", type=positive_int, default=1, help="how many hops (default 1)")
        add_repo_argument(parser)
        add_format_argument(parser)
        add_at_argument(parser)
        parser.set_defaults(run=run, direction=direction)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.render import walk_json, walk_text

    engine = open_engine(args)
    walk = (engine.callers if args.direction == "in" else engine.callees)(args.symbol, args.depth)
    if args.format == "json":
        print_json(walk_json(walk.start, walk.hops, walk.direction) | engine.at_fields())
    else:
        print_at(engine)
        print(walk_text(walk.start, walk.hops, walk.direction))
    return 0
