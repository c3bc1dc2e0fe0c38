"""``mnemo feedback --task "TEXT" --used SYMBOL... --useless SYMBOL...``: what helped a task."""

from __future__ import annotations

import argparse
from typing import Any

from mnemo_core.commands.common import (
    add_format_argument,
    add_memory_argument,
    add_repo_argument,
    open_engine,
    print_json,
)


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "feedback",
        help="remember which symbols were useful or useless for a task (similar tasks recall them)",
    )
    parser.add_argument("--task", required=True, help="the task, in the words it was asked in")
    parser.add_argument(
        "--used",
        nargs="+",
        default=[],
        metavar="SYMBOL",
        help="symbols that were useful (name, Class.method or path:name)",
    )
    parser.add_argument(
        "--useless", nargs="+", default=[], metavar="SYMBOL", help="symbols that were shown but did not help"
    )
    add_repo_argument(parser)
    add_format_argument(parser)
    add_memory_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.render import feedback_json, feedback_text

    feedback = open_engine(args).feedback(args.task, args.used, args.useless)
    if args.format == "json":
        print_json(feedback_json(feedback))
    else:
        print(feedback_text(feedback))
    return 0
