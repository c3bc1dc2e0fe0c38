"""The walks' bounds and caches: a walk stops when its budget runs out and says so; the fallback's
walks, cut, offer every test (more, never fewer); the sure half of the tests is the same walked
alone; a file's extraction is remembered by content."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.change import impact
from mnemo_core.change.dynamic import WALK_CUT, DynamicReach, fallback_source, fallback_tests
from mnemo_core.change.impact import SURE_FROM, TEST_DEPTH, WalkBudget, sure_tests_reaching, walk_back
from mnemo_core.engine import Engine
from mnemo_core.index.extract import extract_once
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import Store

FILES = {
    "pkg/__init__.py": "",
    "pkg/filters.py": (
        "def do_upper(s):\n"
        "    return s.upper()\n"
        "\n"
        "def do_lower(s):\n"
        "    return s.lower()\n"
        "\n"
        "def do_title(s):\n"
        "    return s.title()\n"
        "\n"
        'EXTRA = {"title": do_title}\n'
    ),
    "pkg/other.py": "def unrelated():\n    return 2\n",
    "tests/test_filters.py": (
        "from pkg.filters import do_lower, do_upper\n"
        "\n"
        "def shout(s):\n"
        "    return do_upper(s)\n"
        "\n"
        "def test_lower():\n"
        '    assert do_lower("A") == "a"\n'
        "\n"
        "def test_shout():\n"
        '    assert shout("a") == "A"\n'
    ),
    "tests/test_other.py": (
        "from pkg.other import unrelated\n\ndef test_unrelated():\n    assert unrelated() == 2\n"
    ),
}


def _store(tmp_path: Path) -> Store:
    root = make_repo(tmp_path / "r", FILES)
    commit(root, {"README": "x\n"}, "second")
    with Engine.open(root) as engine:
        engine.index()
    return Store.open(root, create=False)


def _id(store: Store, path: str, name: str) -> int:
    return next(s.id for s in store.symbols_in_file(path) if s.name == name)


def test_a_walk_stops_when_its_budget_runs_out(tmp_path: Path) -> None:
    store = _store(tmp_path)
    upper = _id(store, "pkg/filters.py", "do_upper")
    whole = walk_back(store, [upper], TEST_DEPTH, True, SURE_FROM)
    roomy = WalkBudget(10_000)
    assert walk_back(store, [upper], TEST_DEPTH, True, SURE_FROM, roomy) == whole
    assert not roomy.cut and roomy.states == 10_000 - (len(whole) - 1)  # every state but the start
    tight = WalkBudget(0)  # the first hop overspends it
    cut = walk_back(store, [upper], TEST_DEPTH, True, SURE_FROM, tight)
    assert tight.cut
    assert set(cut) < set(whole)  # shout, one hop out, is reached; test_shout, two hops, is not
    assert _id(store, "tests/test_filters.py", "test_shout") in whole


def test_the_sure_half_walked_alone_is_the_sure_half_of_the_tests(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids = [_id(store, "pkg/filters.py", n) for n in ("do_upper", "do_lower", "do_title")]
    alone = sure_tests_reaching(store, ids)  # walked first: nothing cached yet
    assert alone == {sid: tests.sure for sid, tests in impact.tests_reaching(store, ids).items()}
    assert set(alone[ids[0]]) == {_id(store, "tests/test_filters.py", "test_shout")}


def test_a_fallback_whose_walks_are_cut_offers_every_test(tmp_path: Path) -> None:
    store = _store(tmp_path)
    title = store.symbols_by_ids([_id(store, "pkg/filters.py", "do_title")])
    [symbol] = title.values()
    how = DynamicReach(("EXTRA",), "registry", 1.0)
    found, _ = fallback_tests(store, symbol, how)
    names = {s.name for s in store.symbols_by_ids(found).values()}
    assert names == {"test_lower", "test_shout"}  # the tests of do_lower and do_upper
    assert fallback_source(found.values()) == ""
    cut, narrowed = fallback_tests(store, symbol, how, states=0)
    every = {s.name for s in store.symbols_by_ids(cut).values()}
    assert every == {"test_lower", "test_shout", "test_unrelated"}  # more, and none left out
    assert narrowed == "" and fallback_source(cut.values()) == WALK_CUT
    assert {r.resolution for r in cut.values()} == {"registry"}


def test_an_extraction_is_remembered_by_content() -> None:
    spec = language_for_path("m.py")
    assert spec is not None
    first = extract_once("m.py", b"def f():\n    return 1\n", spec)
    assert extract_once("m.py", b"def f():\n    return 1\n", spec) is first
    changed = extract_once("m.py", b"def g():\n    return 1\n", spec)
    assert [s.name for s in changed.symbols if s.kind != "module"] == ["g"]
