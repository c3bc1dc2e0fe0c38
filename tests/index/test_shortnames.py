"""The distinct short names kept per index generation for the name channel's substring search."""

from __future__ import annotations

from pathlib import Path

from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store, shortnames
from mnemo_core.index.store.shortnames import ShortNames


def test_names_containing_a_fragment_as_sqlite_lowers_them() -> None:
    names = ShortNames.of(["Walker", "walker", "walkers", "WALKER_OF", "Über_walker", "odd\nwalker", "x", ""])
    assert names.containing("walker") == {"walkers", "walker_of", "Über_walker", "odd\nwalker"}
    assert names.containing("über") == set(), "only ASCII letters are folded, as SQLite's lower does"
    assert names.containing("d\nw") == {"odd\nwalker"} and names.containing("r\nw") == set()
    assert names.containing("") == {"walker", "walkers", "walker_of", "Über_walker", "odd\nwalker", "x"}
    assert names.containing("x") == set() and names.containing("er_w") == {"Über_walker"}
    assert ShortNames.parsed(names.serialised()) == names
    assert ShortNames.parsed("not json\n\nwalker\n") is None and ShortNames.parsed("[]\nwalker") is None


def test_the_names_are_read_once_per_generation_and_saved_for_the_next_process(tmp_path: Path) -> None:
    source = "def walker():\n    pass\n\n\ndef walkers():\n    pass\n"
    repo = make_repo(tmp_path / "repo", {"a.py": source})
    index_repo(repo)
    store = Store.open(repo)
    first = store.symbols_containing_each(["walker"], 5)
    saved = list((repo / ".mnemo").glob("names-*.txt"))
    assert [p.name for p in saved] == [f"names-{store.index_id()}-{store.generation()}.txt"]
    assert [s.short_name for s in first["walker"]] == ["walkers"]
    shortnames._sets.clear()  # a new process: the names come from the file
    saved[0].write_text(saved[0].read_text() + "walkerish\n")
    assert store.symbols_containing_each(["walker"], 5) == first, "only indexed names have symbols"
    shortnames._sets.clear()
    saved[0].write_text("damaged")
    assert store.symbols_containing_each(["walker"], 5) == first and saved[0].read_text() != "damaged"
    store.close()
    (repo / "a.py").write_text(source + "\n\ndef walker_again():\n    pass\n")
    index_repo(repo)
    store = Store.open(repo)
    found = store.symbols_containing_each(["walker"], 5)
    assert [s.short_name for s in found["walker"]] == ["walkers", "walker_again"]
    assert [p.name for p in (repo / ".mnemo").glob("names-*.txt")] == [
        f"names-{store.index_id()}-{store.generation()}.txt"
    ], "the older generation's file is removed"
    store.close()


def test_an_update_derives_the_next_generations_names_from_the_last_ones(tmp_path: Path) -> None:
    """The names a written file gained are added to the last generation's, before any query; a
    name gone stays in the list and finds nothing, so every answer is the one all names give."""
    source = "def walker():\n    pass\n\n\nclass Walkers:\n    def walk_on(self):\n        pass\n"
    repo = make_repo(tmp_path / "repo", {"a.py": source, "b.py": "def other_walker():\n    pass\n"})
    index_repo(repo)
    store = Store.open(repo)
    store.symbols_containing_each(["walk"], 9)  # the first query reads every name and keeps them
    store.close()
    edits = {
        "a.py": source.replace("walk_on", "Walk_Further") + "\n\ndef sleepwalker():\n    pass\n",
        "c.py": "def walkabout():\n    pass\n",
    }
    for path, text in edits.items():
        (repo / path).write_text(text)
    (repo / "b.py").unlink()
    index_repo(repo)
    store = Store.open(repo)
    names = repo / ".mnemo" / f"names-{store.index_id()}-{store.generation()}.txt"
    assert names.is_file(), "kept by the update itself"
    kept = shortnames.ShortNames.parsed(names.read_text())
    assert kept is not None and {"walk_further", "sleepwalker", "walkabout", "other_walker"} <= set(
        kept.text.split("\n")
    )
    shortnames._sets.clear()
    derived = store.symbols_containing_each(["walk", "walker", "further"], 9)
    names.unlink()
    shortnames._sets.clear()
    assert store.symbols_containing_each(["walk", "walker", "further"], 9) == derived
    assert "other_walker" not in names.read_text(), "read again: only the index's names"
    assert [s.short_name for s in derived["walker"]] == ["Walkers", "sleepwalker"]
    store.close()


def test_names_extended_are_the_names_read_with_the_new_ones() -> None:
    names = ["Walker", "walker", "x", "", "odd\nwalker", "Über"]
    for extra in (set(), {"NEW"}, {"a\nB"}, {"walker"}, {""}, {"Odd\nWalker"}):
        assert ShortNames.of(names).extended(extra) == ShortNames.of([*names, *extra]), extra
    assert ShortNames.of([]).extended({"Q"}) == ShortNames.of(["q"])
