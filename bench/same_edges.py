"""Did two code trees resolve the same edges? Two indexes of one repository, compared edge by edge.

A faster resolver must link exactly what the old one did, and note the same dependency keys (what
a later history move re-resolves by). This reads two index databases built from the same checkout
(``bench/index_speed.py --cold REPO --code BASE --code NEW --keep DIR`` keeps them) and compares
their ``edges`` (each endpoint named by file path, qualified name and line, since row ids may
differ), their ``deps`` (key, file path) and their files' stored references; it prints the counts
and the first differences.

Run: ``python bench/same_edges.py BASE_INDEX_DIR NEW_INDEX_DIR`` (each a ``.mnemo`` directory, or
its ``index.db``); exit status 1 when something differs.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections import Counter
from pathlib import Path

SHOWN_DIFFERENCES = 5  # rows printed per table that differs

EDGES = """
SELECT fs.path, s.name, s.start_line, fd.path, d.name, d.start_line, e.type, e.resolution, e.confidence,
       e.line, fe.path
FROM edges e JOIN symbols s ON s.id = e.src JOIN files fs ON fs.id = s.file_id
JOIN symbols d ON d.id = e.dst JOIN files fd ON fd.id = d.file_id JOIN files fe ON fe.id = e.file_id
"""
DEPS = "SELECT deps.key, files.path FROM deps JOIN files ON files.id = deps.file_id"
REFS = "SELECT path, refs FROM files"


def rows(database: Path, query: str) -> Counter[tuple[object, ...]]:
    """The rows of ``query`` as a multiset."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return Counter(connection.execute(query).fetchall())
    finally:
        connection.close()


def compare(base: Path, new: Path) -> int:
    """How many tables differ (printing counts and the first differences)."""
    differing = 0
    for name, query in (("edges", EDGES), ("deps", DEPS), ("stored references", REFS)):
        old, now = rows(base, query), rows(new, query)
        only_old, only_new = old - now, now - old
        same = not only_old and not only_new
        print(f"{name}: base {sum(old.values())}, new {sum(now.values())}: {'same' if same else 'DIFFER'}")
        if not same:
            differing += 1
            for label, extra in (("only in base", only_old), ("only in new", only_new)):
                for row in list(extra)[:SHOWN_DIFFERENCES]:
                    print(f"  {label}: {row}")
    return differing


def database(path: Path) -> Path:
    """The index database at ``path`` (a ``.mnemo`` directory or the file itself)."""
    return path / "index.db" if path.is_dir() else path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    found = [database(p) for p in (args.base, args.new)]
    missing = [str(p) for p in found if not p.is_file()]
    if missing:
        print(f"no index database at {', '.join(missing)}", file=sys.stderr)
        return 2
    return 1 if compare(*found) else 0


if __name__ == "__main__":
    sys.exit(main())
