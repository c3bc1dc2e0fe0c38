"""``mnemo coverage``: the coverage map the pytest plugin records (``show``, ``merge``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mnemo_core.commands.common import add_format_argument, add_repo_argument, opened, print_json

if TYPE_CHECKING:  # building the parser imports no engine code (``mnemo --version``)
    from mnemo_core.engine import Engine


def register(sub: Any) -> None:
    parser = sub.add_parser("coverage", help="the coverage map that `pytest --mnemo-record` keeps")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="{show,merge}")
    show = verbs.add_parser("show", help="the map's commit, tests and files")
    show.add_argument("--map", metavar="PATH", help="a map file (default: the repository's)")
    add_repo_argument(show)
    add_format_argument(show)
    show.set_defaults(run=run_show)
    merge = verbs.add_parser(
        "merge", help="merge maps recorded elsewhere (CI shards, jobs of a matrix) into one"
    )
    merge.add_argument("maps", nargs="+", metavar="FILE", help="coverage maps to merge")
    merge.add_argument("--into", metavar="PATH", help="the map to merge into (default: the repository's)")
    add_repo_argument(merge)
    merge.set_defaults(run=run_merge)


def run_show(args: argparse.Namespace) -> int:
    facts = {"schema": 1, **_engine(args).coverage_map(args.map)}
    if args.format == "json":
        print_json(facts)
    elif facts["commit"] is None:
        print(f"no coverage map at {facts['map']}; record one with `pytest --mnemo-record`")
    else:
        for key, value in facts.items():
            if key != "schema":
                print(f"{key:<7} {value}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    into, commit, written = _engine(args).merge_coverage_maps(args.maps, args.into)
    print(f"merged {written} tests into {into} (lines numbered at {commit[:10]})")
    return 0


def _engine(args: argparse.Namespace) -> Engine:
    """The repository's engine, without memory or an index update: the map is all these verbs read."""
    from mnemo_core.engine import Engine

    return opened(Engine.open(args.repo, update_index=False, memory=False))
