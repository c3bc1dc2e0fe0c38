"""Work shared with a forked child (``change.beside``): each item is taken once, by one process or
the other; no child where another thread runs or no core is free; and the walks to tests shared
with a child answer as the walks of one process do, also when the child fails."""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.change import beside as beside_module
from mnemo_core.change import impact
from mnemo_core.change.beside import Beside
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache


@pytest.fixture(autouse=True)
def _a_free_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test suite's own load must not decide whether a child is forked."""
    monkeypatch.setattr(beside_module.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(beside_module.os, "getloadavg", lambda: (0.3, 0.3, 0.3))


def _slowly(taken: Iterator[int]) -> bytes:
    seen = []
    for item in taken:
        time.sleep(0.002)  # both processes get some
        seen.append(item)
    return pickle.dumps(seen)


def test_each_item_is_taken_once_by_one_process() -> None:
    items = list(range(60))
    beside = Beside.start(items, _slowly)
    assert beside is not None
    mine = []
    for item in beside.mine():
        time.sleep(0.002)
        mine.append(item)
    sent = beside.results()
    assert sent is not None
    theirs = pickle.loads(sent)
    assert sorted(mine + theirs) == items  # none twice, none lost
    assert mine and theirs


def _quickly(taken: Iterator[int]) -> bytes:
    return pickle.dumps(list(taken))


def test_items_past_the_pipes_tokens_are_this_process_s() -> None:
    items = list(range(beside_module.PIPE_TOKENS + 50))
    beside = Beside.start(items, _quickly)
    assert beside is not None
    mine = list(beside.mine())
    sent = beside.results()
    assert sent is not None
    theirs = pickle.loads(sent)
    assert sorted(mine + theirs) == items
    assert set(items[beside_module.PIPE_TOKENS :]) <= set(mine)


def test_no_child_while_another_thread_runs() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert Beside.start(list(range(10)), _slowly) is None  # a lock it holds would stay held in a child
    finally:
        stop.set()
        other.join()


def test_no_child_without_a_free_core(monkeypatch: pytest.MonkeyPatch) -> None:
    busy = (1.6, 1.0, 1.0)  # 2 cores, one of them busy elsewhere
    monkeypatch.setattr(beside_module.os, "getloadavg", lambda: busy)
    assert Beside.start(list(range(10)), _slowly) is None


def _failing(taken: Iterator[int]) -> bytes:
    next(taken)
    raise RuntimeError("the child fails after taking an item")


def test_a_failed_child_sends_nothing() -> None:
    beside = Beside.start(list(range(10)), _failing)
    assert beside is not None
    list(beside.mine())
    assert beside.results() is None  # what it took, the caller walks itself (below)


LIB = (
    "def parse(text):\n    return text.split()\n\n\n"
    "def count(text):\n    return len(parse(text))\n\n\n"
    "def shout(text):\n    return [w.upper() for w in parse(text)]\n"
)
TESTS = (
    "from words.lib import count, parse, shout\n\n\n"
    "def test_parse():\n    assert parse('a b') == ['a', 'b']\n\n\n"
    "def test_count():\n    assert count('a b') == 2\n\n\n"
    "def test_shout():\n    assert shout('a') == ['A']\n"
)


def _walked(store: Store, ids: list[int], monkeypatch: pytest.MonkeyPatch, shared: bool) -> dict[int, object]:
    monkeypatch.setattr(impact, "_TESTS", BoundedCache(impact.TESTS_CACHED))  # nothing known before
    monkeypatch.setattr(impact, "_SURE", BoundedCache(impact.TESTS_CACHED))
    beside = impact.tests_beside(store, ids) if shared else None
    assert (beside is not None) == shared
    return dict(impact.tests_reaching(store, ids, beside))


def test_walks_shared_with_a_child_answer_as_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"words/__init__.py": "", "words/lib.py": LIB, "words/more.py": LIB, "tests/test_words.py": TESTS},
    )
    index_repo(repo)
    store = Store.open(repo)
    ids = sorted(s.id for path in ("words/lib.py", "words/more.py") for s in store.symbols_in_file(path))
    alone = _walked(store, ids, monkeypatch, shared=False)
    assert any(t.sure for t in alone.values())  # the walks found tests: there is something to compare
    assert _walked(store, ids, monkeypatch, shared=True) == alone
    # a child that fails sends nothing back: this process walks what it took
    monkeypatch.setattr(impact, "_tests_cached", _failing_in_child(impact._tests_cached))
    assert _walked(store, ids, monkeypatch, shared=True) == alone


Walk = Callable[[Store, tuple[str, int, int]], impact.ReachingTests]


def _failing_in_child(walk: Walk) -> Walk:
    parent = os.getpid()

    def failing(store: Store, key: tuple[str, int, int]) -> impact.ReachingTests:
        if os.getpid() != parent:
            raise RuntimeError("the child's walk fails")
        return walk(store, key)

    return failing
