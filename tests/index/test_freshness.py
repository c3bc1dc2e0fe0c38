"""The update before every query: what it costs when nothing changed, and that it still sees files
edited outside any editor."""

from __future__ import annotations

from pathlib import Path

from helpers import make_repo

from mnemo_core.index.indexer import TOTALS_META, index_repo
from mnemo_core.index.store import Store

FILES = {
    "app/models.py": "class User:\n    def save(self):\n        return 1\n",
    "app/service.py": "from app.models import User\n\ndef register():\n    return User().save()\n",
}


def counted(root: Path) -> tuple[int, int, int]:
    store = Store.open(root)
    try:
        return store.totals()
    finally:
        store.close()


def test_an_update_that_changes_nothing_reports_the_last_count_without_counting(tmp_path: Path) -> None:
    make_repo(tmp_path, FILES)
    first = index_repo(tmp_path)
    assert (first.files, first.symbols, first.edges) == counted(tmp_path)
    assert first.files == 2
    store = Store.open(tmp_path)
    with store.transaction():
        store.set_meta(TOTALS_META, "[7, 8, 9]")  # what the last count stored, as a no-op reads it
    store.close()
    noop = index_repo(tmp_path)
    assert (noop.parsed, noop.files, noop.symbols, noop.edges) == (0, 7, 8, 9)
    util = "def slug(x):\n    return x\n\n\ndef other():\n    return slug(1)\n"
    (tmp_path / "app/util.py").write_text(util)
    grown = index_repo(tmp_path)
    assert (grown.files, grown.symbols, grown.edges) == counted(tmp_path)
    assert grown.files == 3 and grown.symbols > first.symbols and grown.edges > first.edges
    (tmp_path / "app/service.py").unlink()
    shrunk = index_repo(tmp_path)
    assert (shrunk.files, shrunk.symbols, shrunk.edges) == counted(tmp_path) and shrunk.files == 2
    assert index_repo(tmp_path).symbols == shrunk.symbols
