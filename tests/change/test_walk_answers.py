"""The walks' answers where they are computed by shorter roads: a symbol's tests, walked for tests
alone, are the test cases of its whole walk with their paths; a symbol's steps over sure edges,
read from those over every edge, are those read alone; a flag the function assigns before its
``if`` is no opt-in, one it assigns only after the ``if`` still is."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, impacted_test_names, make_repo

from mnemo_core.change import impact
from mnemo_core.change.flags import OptInFlags
from mnemo_core.change.impact import SURE_FROM, TEST_DEPTH, walk_back
from mnemo_core.change.receivers import ReceiverNames
from mnemo_core.change.steps import Steps, _step, _step_order
from mnemo_core.engine import Engine
from mnemo_core.index.store import Store

SHAPES = {
    "shapes/__init__.py": "",
    "shapes/base.py": (
        "class Shape:\n"
        "    def area(self):\n"
        "        return 0\n"
        "\n"
        "    def describe(self):\n"
        "        return f'{self.area():.1f}'\n"
        "\n"
        "def report(shapes):\n"
        "    return [s.describe() for s in shapes]\n"
        "\n"
        "def total(shapes):\n"
        "    return sum(s.area() for s in shapes)\n"
    ),
    "shapes/kinds.py": (
        "from shapes.base import Shape\n"
        "\n"
        "class Square(Shape):\n"
        "    def __init__(self, side):\n"
        "        self.side = side\n"
        "\n"
        "    def area(self):\n"
        "        return helper(self.side) * self.side\n"
        "\n"
        "class Circle(Shape):\n"
        "    def __init__(self, radius):\n"
        "        self.radius = radius\n"
        "\n"
        "    def area(self):\n"
        "        return 3.14 * helper(self.radius) ** 2\n"
        "\n"
        "def helper(x):\n"
        "    return x\n"
    ),
    "tests/test_shapes.py": (
        "import unittest\n"
        "from shapes.base import report\n"
        "from shapes.kinds import Circle, Square\n"
        "\n"
        "def test_square():\n"
        "    assert report([Square(2)]) == ['4.0']\n"
        "\n"
        "def test_circle():\n"
        "    assert report([Circle(1)]) == ['3.1']\n"
        "\n"
        "class TestBoth(unittest.TestCase):\n"
        "    def setUp(self):\n"
        "        self.shapes = [Square(1), Circle(1)]\n"
        "\n"
        "    def test_report(self):\n"
        "        assert len(report(self.shapes)) == 2\n"
        "\n"
        "def test_total():\n"
        "    assert total([Square(1)]) == 1\n"
    ),
}


def _indexed(tmp_path: Path) -> Store:
    root = make_repo(tmp_path / "r", SHAPES)
    commit(root, {"README": "x\n"}, "second")
    with Engine.open(root) as engine:
        engine.index()
    return Store.open(root, create=False)


def test_the_tests_of_a_symbol_are_the_test_cases_of_its_whole_walk_with_their_paths(tmp_path: Path) -> None:
    store = _indexed(tmp_path)
    symbols = [s for path in SHAPES for s in store.symbols_in_file(path) if s.kind != "module"]
    cases = {s.id for s in symbols if s.is_test_case}
    walked = 0
    for symbol in symbols:
        sure = walk_back(store, [symbol.id], TEST_DEPTH, True, SURE_FROM)
        every = walk_back(store, [symbol.id], TEST_DEPTH, True)
        expected_sure = {t: r for t, r in sure.items() if t in cases and t != symbol.id}
        expected_every = {t: r for t, r in every.items() if t in cases and t != symbol.id}
        found = impact.tests_reaching(store, [symbol.id])[symbol.id]
        if symbol.is_test:
            continue  # code written in a test runs in that test alone: not walked
        assert found.sure == expected_sure, symbol.name
        assert found.possible == {t: r for t, r in expected_every.items() if t not in expected_sure}
        walked += bool(expected_sure)
    assert walked >= 6  # the fixture's methods, dispatches and helpers each reach tests


def test_a_symbols_sure_steps_read_from_its_steps_over_every_edge_are_those_read_alone(
    tmp_path: Path,
) -> None:
    store = _indexed(tmp_path)
    ids = sorted(s.id for path in SHAPES for s in store.symbols_in_file(path))
    for readers in ((None, None), (ReceiverNames(store), OptInFlags(store))):
        alone = {
            n: sorted(_step(store, [n], SURE_FROM, *readers), key=_step_order) for n in ids
        }  # read directly, past every cache
        every = Steps(store, 0.0)(ids, *readers)
        assert any(step.confidence < SURE_FROM for step in every)  # a name shared by three methods
        assert {n: Steps(store, SURE_FROM)([n], *readers) for n in ids} == alone


FLAGS = {
    "app/__init__.py": "",
    "app/build.py": (
        "def build(name: str, strict: bool = False) -> str:\n"
        "    if strict:\n"
        "        check(name)\n"
        "    strict = True\n"
        "    return name\n"
        "\n"
        "def build_loose(name: str, strict: bool = False) -> str:\n"
        "    strict = strict or name.startswith('x')\n"
        "    if strict:\n"
        "        check_loose(name)\n"
        "    return name\n"
        "\n"
        "def check(name: str) -> None:\n"
        "    assert name\n"
        "\n"
        "def check_loose(name: str) -> None:\n"
        "    assert name\n"
    ),
    "tests/test_build.py": (
        "from app.build import build, build_loose\n"
        "\n"
        "def test_strict():\n"
        "    assert build('a', strict=True) == build_loose('a', strict=True)\n"
        "\n"
        "def test_plain():\n"
        "    assert build('a') == build_loose('a')\n"
        "\n"
        "def test_long():\n"
        "    assert build('abc') == build_loose('abc')\n"
        "\n"
        "def test_empty():\n"
        "    assert build('') == build_loose('')\n"
    ),
}


def _edited(tmp_path: Path, name: str) -> list[str]:
    repo = make_repo(tmp_path / name, FLAGS)
    source = FLAGS["app/build.py"]
    return impacted_test_names(
        repo,
        "app/build.py",
        source.replace(
            f"def {name}(name: str) -> None:\n    assert name\n",
            f"def {name}(name: str) -> None:\n    assert name, 1\n",
        ),
    )


def test_a_flag_assigned_only_after_its_if_is_still_an_opt_in(tmp_path: Path) -> None:
    assert _edited(tmp_path, "check") == ["test_strict"]


def test_a_flag_the_function_assigns_before_its_if_is_no_opt_in(tmp_path: Path) -> None:
    assert _edited(tmp_path, "check_loose") == ["test_empty", "test_long", "test_plain", "test_strict"]
