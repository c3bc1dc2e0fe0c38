"""A new generation's graph file, derived from an earlier one and the indexer's record of the
symbols whose edges changed, equals the file built from every edge, byte for byte."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store, graphlog
from mnemo_core.repository import Repository
from mnemo_core.retrieve import graphcache

BASE = {
    "pkg/a.py": (
        "class Base:\n    def run(self):\n        return helper(1)\n\n"
        "    def stop(self):\n        return 0\n\n\n"
        "class Child(Base):\n    def run(self):\n        helper(2)\n        return shared()\n\n\n"
        "def helper(n):\n    return shared() + n\n\n\n"
        "def shared():\n    return 1\n\n\n"
        "def recurse(n):\n    return recurse(n - 1)\n"
    ),
    "pkg/b.py": (
        "from pkg.a import Child, helper, shared\n\n\n"
        "def use():\n    helper(3)\n    return Child().run()\n\n\n"
        "def other():\n    return shared()\n"
    ),
    "pkg/c.py": (
        "from pkg.a import helper\n\n\ndef far():\n    return helper(4)\n\n\ndef alone():\n    return 2\n"
    ),
    "tests/test_a.py": (
        "from pkg.a import helper\nfrom pkg.b import use\n\n\ndef test_use():\n    assert use()\n"
        "\n\ndef test_helper():\n    assert helper(0)\n"
    ),
}
EDITS: dict[str, dict[str, str | None]] = {
    # new symbols, new calls into old ones, a new subclass
    "adds edges": {
        "pkg/b.py": BASE["pkg/b.py"]
        + "\n\ndef more():\n    use()\n    return other()\n\n\nclass Grand(Child):\n    def run(self):\n"
        "        return more()\n\n\ndef lonely():\n    return 3\n"  # its one edge: the module contains it
    },
    # a function others call is gone: their edges into it go too
    "removes edges": {"pkg/a.py": BASE["pkg/a.py"].replace("def shared():\n    return 1\n\n\n", "")},
    # the same names, other targets: a call moves from helper to shared, a method to another class
    "moves edges": {
        "pkg/c.py": BASE["pkg/c.py"].replace(
            "from pkg.a import helper", "from pkg.a import shared as helper"
        ),
        "pkg/b.py": BASE["pkg/b.py"].replace("Child().run()", "Child().stop()"),
    },
    "deletes a file": {"pkg/c.py": None},
}


@pytest.fixture(autouse=True)
def derive_any_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small repository's edit changes most of its graph: derive all the same."""
    monkeypatch.setattr(graphcache, "DERIVE_MAX_SHARE", 1.0)


def edit(repo: Path, files: dict[str, str | None]) -> None:
    for path, text in files.items():
        if text is None:
            (repo / path).unlink()
        else:
            (repo / path).write_text(text, encoding="utf-8")


def graph_file(store: Store) -> Path:
    return store.path.parent / f"graph-{store.index_id()}-{store.generation()}.bin"


def loaded(root: Path) -> tuple[Store, graphcache.Cached]:
    graphcache._graphs.clear()  # as a new process would start
    store = Store.open(root)
    return store, graphcache._cached(store)


def built_from_every_edge(root: Path) -> bytes:
    """The current generation's file made from every edge (the derived one set aside)."""
    store = Store.open(root)
    path = graph_file(store)
    derived = path.read_bytes()
    path.unlink()
    graphcache._graphs.clear()
    graphcache._cached(store)
    rebuilt = path.read_bytes()
    path.write_bytes(derived)
    store.close()
    return rebuilt


def no_build(store: Store) -> graphcache.Plan:
    raise AssertionError("built from every edge, not derived")


@pytest.mark.parametrize("change", list(EDITS))
def test_a_derived_file_equals_the_file_built_from_every_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    index_repo(repo)
    loaded(repo)[0].close()  # the base generation's file
    edit(repo, EDITS[change])
    index_repo(repo)
    store = Store.open(repo)
    deltas = list(store.path.parent.glob("graphdelta-*.bin"))
    assert [p.name for p in deltas] == [f"graphdelta-{store.index_id()}-{store.generation()}.bin"]
    assert not graph_file(store).exists(), "the update leaves the file to the first query"
    store.close()
    with monkeypatch.context() as patched:
        patched.setattr(graphcache, "build_plan", no_build)
        store, cached = loaded(repo)
    derived = graph_file(store).read_bytes()
    assert [p.name for p in store.path.parent.glob("graph*.bin")] == [graph_file(store).name]
    store.close()
    assert derived == built_from_every_edge(repo)
    store = Store.open(repo)
    expected = graphcache.build(store)
    assert cached.graph.ids.tolist() == expected.graph.ids.tolist()
    assert cached.fan_in.ids.tolist() == expected.fan_in.ids.tolist()
    assert cached.fan_in.counts.tolist() == expected.fan_in.counts.tolist()
    store.close()


def test_updates_before_any_query_add_up_from_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    index_repo(repo)
    store, _ = loaded(repo)
    base = store.generation()
    store.close()
    for change in ("adds edges", "moves edges", "deletes a file"):
        edit(repo, EDITS[change])
        index_repo(repo)
    store = Store.open(repo)
    delta = store.graph_delta(store.generation())
    assert delta is not None and delta.base == base and store.generation() > base + 1
    store.close()
    with monkeypatch.context() as patched:
        patched.setattr(graphcache, "build_plan", no_build)
        loaded(repo)[0].close()
    assert graph_file(Store.open(repo)).read_bytes() == built_from_every_edge(repo)


def test_a_damaged_change_record_is_not_used(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    index_repo(repo)
    loaded(repo)[0].close()
    edit(repo, EDITS["adds edges"])
    index_repo(repo)
    store = Store.open(repo)
    record = store.path.parent / f"graphdelta-{store.index_id()}-{store.generation()}.bin"
    good = record.read_bytes()
    record.write_bytes(good[:-8] + bytes([good[-8] ^ 1]) + good[-7:])  # another symbol named
    store.close()
    with caplog.at_level(logging.INFO):
        store, _ = loaded(repo)
    assert any("damaged" in r.getMessage() and str(record) in r.getMessage() for r in caplog.records)
    assert not record.exists(), "the file is written and the record dropped"
    store.close()
    assert graph_file(Store.open(repo)).read_bytes() == built_from_every_edge(repo)


def test_an_update_that_changes_no_edge_keeps_an_empty_record(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    index_repo(repo)
    loaded(repo)[0].close()
    edit(repo, {"pkg/c.py": BASE["pkg/c.py"] + "\n# a comment\n"})
    index_repo(repo)
    store, _ = loaded(repo)
    assert graph_file(store).is_file()
    store.close()
    assert graph_file(Store.open(repo)).read_bytes() == built_from_every_edge(repo)


def test_a_cold_index_writes_the_graph_file_and_an_update_only_its_record(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    repository = Repository.open(repo)
    repository.update_index()
    store = Store.open(repo)
    first = graph_file(store)
    assert first.is_file(), "the first query only maps it"
    store.close()
    edit(repo, EDITS["adds edges"])
    repository.update_index()
    store = Store.open(repo)
    assert first.is_file() and not graph_file(store).exists()
    assert store.graph_delta(store.generation()) is not None
    store.close()
    repository.close()


def test_an_update_that_changes_more_than_the_record_holds_leaves_the_file_to_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo", BASE)
    index_repo(repo)
    loaded(repo)[0].close()
    monkeypatch.setattr(graphlog, "LOG_CAP", 4)  # the edit writes more than 2 edges
    edit(repo, EDITS["adds edges"])
    index_repo(repo)
    store = Store.open(repo)
    assert store.graph_delta(store.generation()) is None and not graph_file(store).exists()
    store.close()
    store, _ = loaded(repo)
    store.close()
    assert graph_file(Store.open(repo)).read_bytes() == built_from_every_edge(repo)
