"""The diff's extractions kept by content (``change/extracts.py``): an entry decodes to the
extraction itself, a later question reads it back, and other bytes at the same path are another key;
a side the index holds as it is comes from the index."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.change.diffmap import changed_symbols
from mnemo_core.change.extracts import FILE_NAME, decode, encode, symbols_of
from mnemo_core.index.discovery import read_discovery
from mnemo_core.index.extract import extract
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import Store
from mnemo_core.model import RawSymbol
from mnemo_core.vcs.diff import changed_files
from mnemo_core.vcs.refs import Snapshot

CORE = '''"""Core."""
from dataclasses import dataclass, field

__all__ = ["Box", "make"]


@dataclass
class Box:
    """A box."""

    size: int = field(default=1)

    @property
    def area(self) -> int:
        return self.size * self.size

    def grow(self, by: int = 1) -> "Box":
        self.size += by
        return self


def make(size: int) -> Box:
    return Box(size)
'''
TESTS = """import pytest
from app.core import make


class TestBox:
    def setUp(self):
        self.box = make(2)

    def test_area(self):
        assert make(2).area == 4


@pytest.mark.parametrize("n", [1, 2])
def test_grow(n):
    assert make(1).grow(n).size == 1 + n
"""


def test_an_entry_decodes_to_the_extraction_itself(tmp_path: Path) -> None:
    discovery = read_discovery(tmp_path)
    for path, text in (("app/core.py", CORE), ("tests/test_core.py", TESTS)):
        spec = language_for_path(path)
        assert spec is not None
        for symbols_only in (True, False):  # a full one too: references, fields, bases, bodies
            made = extract(path, text.encode(), spec, discovery, symbols_only)
            assert made.symbols and decode(encode(made)) == made


def _kept(root: Path) -> list[tuple[bytes, bytes]]:
    with closing(sqlite3.connect(root / ".mnemo" / FILE_NAME)) as db:
        return [(bytes(k), bytes(v)) for k, v in db.execute("SELECT key, data FROM extracts ORDER BY rowid")]


def _changed(root: Path, base: str = "HEAD~1") -> list[tuple[str, str, int, int]]:
    found, _ = changed_symbols(root, changed_files(root, base, "HEAD"), base, "HEAD")
    return [(c.name, c.status, c.start_line, c.end_line) for c in found]


def test_a_later_question_reads_the_sides_back_and_other_bytes_are_another_key(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app/core.py": CORE, ".gitignore": ".mnemo/\n"})
    commit(root, {"app/core.py": CORE.replace("return Box(size)", "return Box(size + 0)")}, "edit make")
    (root / ".mnemo").mkdir()
    first = _changed(root)
    assert first == [("make", "modified", 22, 23)]
    kept = _kept(root)
    assert len(kept) == 2  # both sides of the one changed file
    # what is kept answers: the head side's entry swapped for an extraction of other code
    other = CORE.replace("def make(size: int) -> Box:", "def make(size: int) -> Box:\n    '''Made.'''")
    spec = language_for_path("app/core.py")
    assert spec is not None
    swapped = encode(extract("app/core.py", other.encode(), spec, read_discovery(root), True))
    with closing(sqlite3.connect(root / ".mnemo" / FILE_NAME)) as db, db:
        db.execute("UPDATE extracts SET data=? WHERE key=?", (swapped, kept[1][0]))
    assert _changed(root) == [("make", "modified", 22, 24)]  # the kept (swapped) entry was read
    # the same path with other bytes (an amended head) is another key: extracted, not read back
    commit(root, {"app/core.py": CORE.replace("return self\n", "return self  # grown\n")}, "edit grow")
    assert _changed(root, "HEAD~2") == [("Box.grow", "modified", 17, 19)]
    assert len(_kept(root)) == 3  # the base side read back, the new head side kept


def test_a_side_the_index_holds_as_it_is_is_read_from_it_as_extraction_gives_it(tmp_path: Path) -> None:
    """The head side of a range ending at the indexed HEAD comes from the index: the fields a diff
    reads, in source order, and the imports, equal to the extraction's (a property's getter and
    setter are two definitions of one name, in order); a side with other bytes than the index's is
    extracted (the index's row swapped for other lines shows which was read)."""
    namesakes = CORE.replace(
        "    def grow(",
        "    @area.setter\n    def area(self, value: int) -> None:\n        self.size = value\n\n"
        "    def grow(",
    )
    root = make_repo(tmp_path / "repo", {"app/core.py": namesakes, ".gitignore": ".mnemo/\n"})
    commit(root, {"app/core.py": namesakes.replace("return Box(size)", "return Box(size + 0)")}, "edit")
    index_repo(root)
    store = Store.open(root)
    try:
        head = (root / "app" / "core.py").read_bytes()
        spec = language_for_path("app/core.py")
        assert spec is not None
        held = symbols_of(root, [("app/core.py", head, spec)], read_discovery(root), store)
        made = extract("app/core.py", head, spec, read_discovery(root), symbols_only=True)
        read = held[("app/core.py", head)]
        assert [_read_fields(s) for s in read.symbols] == [_read_fields(s) for s in made.symbols]
        assert [s.name for s in read.symbols].count("Box.area") == 2
        assert read.imports == made.imports and read.exports == made.exports
        assert not (root / ".mnemo" / FILE_NAME).exists()  # nothing kept: the index holds it
        with store.conn:  # the index's line for make moved: the head side is read from the index
            store.conn.execute("UPDATE symbols SET end_line = end_line + 1 WHERE name = 'make'")
        found, _ = changed_symbols(root, changed_files(root, "HEAD~1", "HEAD"), "HEAD~1", "HEAD", store)
        assert [(c.name, c.end_line) for c in found] == [("make", 28)]
        (root / "app" / "core.py").write_bytes(head + b"\n")  # other bytes than the index's: extracted
        found, _ = changed_symbols(
            root, changed_files(root, "HEAD~1", Snapshot.WORKTREE), "HEAD~1", Snapshot.WORKTREE, store
        )
        assert [(c.name, c.end_line) for c in found] == [("make", 27)]
    finally:
        store.close()


def _read_fields(symbol: RawSymbol) -> tuple[object, ...]:
    """What a diff reads of a symbol."""
    return (
        symbol.name,
        symbol.kind,
        symbol.start_line,
        symbol.end_line,
        symbol.signature,
        symbol.is_test,
        symbol.is_test_case,
        symbol.exported,
    )
