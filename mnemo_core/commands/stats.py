"""``mnemo stats``: what the index holds."""

from __future__ import annotations

import argparse
import time
from typing import Any

from mnemo_core.commands.common import (
    add_format_argument,
    add_repo_argument,
    in_part,
    open_engine,
    print_json,
)


def register(sub: Any) -> None:
    parser = sub.add_parser("stats", help="files, symbols and edges in the index")
    add_repo_argument(parser)
    add_format_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mnemo_core.render import index_stats_json

    data = open_engine(args).stats()
    if args.format == "json":
        print_json(index_stats_json(data))
        return 0
    print(f"repository  {data['repo']}")
    for title in ("files", "symbols", "edges", "resolution"):
        table = data[title]
        assert isinstance(table, dict)
        cells = ", ".join(f"{k} {v}" for k, v in sorted(table.items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"{title:<11} {sum(table.values())}: {cells}")
    partial = data["partial"]
    assert isinstance(partial, dict)
    if partial:
        print(f"in part     {len(partial)}: {in_part(partial)}")
    print(f"index size  {int(str(data['index_bytes'])) / 1e6:.1f} MB")
    indexed_at = data["indexed_at"]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(str(indexed_at)))) if indexed_at else "never"
    print(f"indexed at  {when} (commit {str(data['commit'])[:10] if data['commit'] else 'none'})")
    return 0
