"""``mnemo coverage``: the coverage map the pytest plugin records (``show``, ``merge``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mnemo_core.commands.common import add_format_argument, add_repo_argument, print_json
from mnemo_core.errors import MnemoError
from mnemo_core.vcs.git import require_toplevel


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


def _target(args: argparse.Namespace, option: str | None) -> tuple[Path, Path]:
    from mnemo_core.covmap.store import map_path

    root = require_toplevel(Path(args.repo))
    return root, Path(option).absolute() if option else map_path(root, create=args.verb == "merge")


def run_show(args: argparse.Namespace) -> int:
    from mnemo_core.covmap.store import reading

    _, path = _target(args, args.map)
    facts: dict[str, object] = {"schema": 1, "map": str(path), "commit": None, "tests": 0}
    if path.exists():
        with reading(path) as coverage_map:
            facts |= {
                "commit": coverage_map.commit,
                "tests": coverage_map.test_count(),
                "files": len(coverage_map.measured_files()),
                "failed": len(coverage_map.failures()),
                "bytes": path.stat().st_size,
            }
    if args.format == "json":
        print_json(facts)
    elif facts["commit"] is None:
        print(f"no coverage map at {path}; record one with `pytest --mnemo-record`")
    else:
        for key, value in facts.items():
            if key != "schema":
                print(f"{key:<7} {value}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from mnemo_core.covmap.record import merge_maps

    root, into = _target(args, args.into)
    missing = [m for m in args.maps if not Path(m).is_file()]
    if missing:
        raise MnemoError(f"no such coverage map: {', '.join(missing)}")
    commit, written = merge_maps(root, [Path(m) for m in args.maps], into)
    print(f"merged {written} tests into {into} (lines numbered at {commit[:10]})")
    return 0
