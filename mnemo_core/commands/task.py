"""``mnemo task "TEXT"`` and ``mnemo why --task "TEXT" SYMBOL``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mnemo_core.commands.common import (
    BUDGET_HELP,
    add_at_argument,
    add_format_argument,
    add_memory_argument,
    add_repo_argument,
    open_engine,
    positive_int,
    print_at,
    render_pack,
)


def register(sub: Any) -> None:
    task = sub.add_parser("task", help="the code to read for a task, ranked and packed into a token budget")
    task.add_argument("text", help='the task in words, e.g. "add retry to the upload client"')
    task.add_argument("--budget", type=positive_int, help=BUDGET_HELP)
    task.add_argument("--limit", type=positive_int, default=None, help="at most this many symbols")
    add_repo_argument(task)
    add_format_argument(task, ("text", "markdown", "json"))
    add_memory_argument(task)
    add_at_argument(task)
    task.set_defaults(run=run_task)

    why = sub.add_parser("why", help="explain one symbol's score for a task")
    why.add_argument("symbol", help="name, Class.method or path:name")
    why.add_argument("--task", required=True, help="the task the score is for")
    add_repo_argument(why)
    add_format_argument(why)
    add_memory_argument(why)
    add_at_argument(why)
    why.set_defaults(run=run_why)


def run_task(args: argparse.Namespace) -> int:
    pack = open_engine(args).task(args.text, budget=args.budget, limit=args.limit)
    print(render_pack(args.format, pack))
    return 0


def run_why(args: argparse.Namespace) -> int:
    from mnemo_core.render import explanation_json, explanation_text

    engine = open_engine(args)
    explanation = engine.explain(args.task, args.symbol)
    if args.format == "json":
        print(json.dumps(explanation_json(explanation) | engine.at_fields(), indent=2))
    else:
        print_at(engine)
        print(explanation_text(explanation))
    return 0
