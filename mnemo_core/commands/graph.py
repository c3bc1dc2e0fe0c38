"""``mnemo callers SYMBOL`` and ``mnemo callees SYMBOL``: walk the call graph."""

from __future__ import annotations

import argparse
from typing import Any

from mnemo_core.commands.common import (
    add_format_argument,
    add_repo_argument,
    open_indexed,
    positive_int,
    print_json,
)
from mnemo_core.lookup import resolve_symbol, walk
from mnemo_core.render import walk_json, walk_text


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
        parser.set_defaults(run=run, direction=direction)


def run(args: argparse.Namespace) -> int:
    repo = open_indexed(args)
    start = resolve_symbol(repo, args.symbol)
    hops = walk(repo, start, args.direction, args.depth)
    if args.format == "json":
        print_json(walk_json(start, hops, args.direction))
    else:
        print(walk_text(start, hops, args.direction))
    return 0
