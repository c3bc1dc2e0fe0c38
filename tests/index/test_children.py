"""Members of symbols, read through their parents' files."""

from __future__ import annotations

from pathlib import Path

from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store

SHAPES = (
    "class Shape:\n    def area(self):\n        return 0\n\n"
    "    class Inner:\n        def deep(self):\n            pass\n"
)
ALSO = "def helper():\n    pass\n\n\nclass Shape:\n    def perimeter(self):\n        return 0\n"


def test_the_members_of_several_parents_in_several_files_in_line_order(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": SHAPES, "b.py": ALSO})
    index_repo(repo)
    store = Store.open(repo)
    try:
        every = store.conn.execute("SELECT id FROM symbols").fetchall()
        parents = [sid for (sid,) in every]
        found = store.children_of(parents)
        expected: dict[int, list[int]] = {}
        for parent, child in store.conn.execute(
            "SELECT parent_id, id FROM symbols WHERE parent_id IS NOT NULL ORDER BY start_line, id"
        ):
            expected.setdefault(parent, []).append(child)
        assert {p: [s.id for s in members] for p, members in found.items()} == expected
        names = {p: [s.name for s in members] for p, members in found.items()}
        assert ["Shape.area", "Shape.Inner"] in names.values() and ["Shape.perimeter"] in names.values()
        assert ["helper", "Shape"] in names.values() and ["Shape.Inner.deep"] in names.values()
    finally:
        store.close()
