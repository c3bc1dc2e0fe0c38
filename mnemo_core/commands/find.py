"""``mnemo find NAME``: symbols by name or glob."""

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
    symbol_line,
)


def register(sub: Any) -> None:
    parser = sub.add_parser("find", help="find symbols by name or pattern (globs: * ?)")
    parser.add_argument("name", help="a name, Class.method, path:name, or a glob such as 'get_*'")
    parser.add_argument("--limit", type=positive_int, default=50, help="at most this many results")
    add_repo_argument(parser)
    add_format_argument(parser)
    add_at_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.render import find_json

    engine = open_engine(args)
    found = engine.find(args.name, args.limit)
    if args.format == "json":
        print_json(find_json(args.name, found) | engine.at_fields())
    else:
        print_at(engine)
        for symbol in found:
            print(symbol_line(symbol))
        if not found:
            print(f"no symbol matches {args.name!r}")
    return 0 if found else 1
