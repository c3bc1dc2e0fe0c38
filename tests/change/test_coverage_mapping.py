"""Covered lines -> symbols, case by case, against the impact benchmark's definition of a function's
own lines (first body statement to last line, minus the bodies of functions nested in it; a nested
``def`` line stays with the outer function): a real package, its real tests under a real coverage run
with per-test contexts, then a one-line edit in the working tree (``mnemo_core/change/coverage.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coverage_helpers import run_coverage
from helpers import make_repo

from mnemo_core.cli import main

SHAPES = (
    "import functools\n"
    "\n"
    "def logged(func):\n"
    "    @functools.wraps(func)\n"
    "    def wrapper(*args):\n"
    "        return func(*args)\n"
    "    return wrapper\n"
    "\n"
    "class Box:\n"
    "    def __init__(self, size):\n"
    "        self._size = size\n"
    "\n"
    "    @property\n"
    "    def size(self):\n"
    "        return self._size\n"
    "\n"
    "    @size.setter\n"
    "    def size(self, value):\n"
    "        self._size = value\n"
    "\n"
    "def make_counter(start):\n"
    "    count = [start]\n"
    "    def step():\n"
    "        count[0] += 1\n"
    "        return count[0]\n"
    "    return step\n"
    "\n"
    "@logged\n"
    "def area(w, h):\n"
    "    return w * h\n"
    "\n"
    "def build(kind):\n"
    "    class Shape:\n"
    "        name = kind\n"
    "        def describe(self):\n"
    "            return self.name\n"
    "    return Shape()\n"
    "\n"
    "def formatter(upper):\n"
    "    if upper:\n"
    "        def fmt(text):\n"
    "            return text.upper()\n"
    "    else:\n"
    "        def fmt(text):\n"
    "            return text.lower()\n"
    "    return fmt\n"
)
TESTS = (
    "from shapes.core import Box, area, build, formatter, logged, make_counter\n"
    "from shared import test_shared_area\n"
    "\n"
    "def test_read_size():\n"
    "    assert Box(2).size == 2\n"
    "\n"
    "def test_write_size():\n"
    "    box = Box(1)\n"
    "    box.size = 3\n"
    "    assert box._size == 3\n"
    "\n"
    "def test_counter_made():\n"
    "    assert callable(make_counter(1))\n"
    "\n"
    "def test_counter_steps():\n"
    "    assert make_counter(1)() == 2\n"
    "\n"
    "def test_area():\n"
    "    assert area(2, 3) == 6\n"
    "\n"
    "def test_logged():\n"
    "    assert logged(len)('ab') == 2\n"
    "\n"
    "def test_built():\n"
    "    assert build('x') is not None\n"
    "\n"
    "def test_described():\n"
    "    assert build('x').describe() == 'x'\n"
    "\n"
    "def test_upper():\n"
    "    assert formatter(True)('a') == 'A'\n"
    "\n"
    "def test_lower():\n"
    "    assert formatter(False)('A') == 'a'\n"
    "\n"
    "class _Resizing:\n"
    "    def test_resize(self):\n"
    "        box = Box(1)\n"
    "        box.size = 4\n"
    "        assert box._size == 4\n"
    "\n"
    "class TestResizing(_Resizing):\n"
    "    pass\n"
)
SHARED = (
    "from shapes import core\n\ndef test_shared_area():\n    assert getattr(core, 'ar' + 'ea')(1, 1) == 1\n"
)
FILES = {
    "shapes/__init__.py": "",
    "shapes/core.py": SHAPES,
    "tests/test_shapes.py": TESTS,
    # a test defined in one module and collected where another imports it; nothing static links
    # it to area (a name built at run time): only the coverage data does
    "tests/shared.py": SHARED,
    ".gitignore": ".coverage\n.pytest_cache/\n",
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository with coverage data (pytest-cov's node-id contexts) of its commit."""
    base = tmp_path_factory.mktemp("mapping")
    root = make_repo(base / "shapes", FILES)
    run_coverage(root, "nodeid", base, source="shapes")
    return root


def answer_for_edit(root: Path, capsys: pytest.CaptureFixture[str], after: str, indent: str) -> set[str]:
    """The tests ``mnemo tests --worktree`` names with the coverage data, for a ``pass`` inserted
    after the (unique) lines ``after`` of shapes/core.py; the file is put back afterwards."""
    path = root / "shapes/core.py"
    assert SHAPES.count(after + "\n") == 1
    at = SHAPES.index(after + "\n") + len(after) + 1
    path.write_text(SHAPES[:at] + f"{indent}pass\n" + SHAPES[at:])
    try:
        args = ["tests", "--repo", str(root), "--worktree", "--format", "json", "--sure-only"]
        assert main([*args, "--coverage", str(root / ".coverage")]) == 0
    finally:
        path.write_text(SHAPES)
    data = json.loads(capsys.readouterr().out)
    return {t["id"].removeprefix("tests/test_shapes.py::") for t in data["tests"]}


@pytest.mark.parametrize(
    ("after", "indent", "expected"),
    [
        # a property's getter and setter share a name: each has its own tests
        ("    def size(self):", "        ", {"test_read_size"}),
        # pytest runs the inherited test as ``TestResizing::test_resize``: it is the base's method
        ("    def size(self, value):", "        ", {"test_write_size", "_Resizing::test_resize"}),
        # if/else variants of one closure: the branch edited
        ("        def fmt(text):\n            return text.upper()", "            ", {"test_upper"}),
        ("        def fmt(text):\n            return text.lower()", "            ", {"test_lower"}),
        # a closure edited inside a function: only what called the closure; the outer function's
        # own lines keep the closure's def line (defining it is its work)
        ("    def step():", "        ", {"test_counter_steps"}),
        ("def make_counter(start):", "    ", {"test_counter_made", "test_counter_steps"}),
        # a decorated function: its decorator runs at import, its body in the tests that call it
        ("def area(w, h):", "    ", {"test_area", "tests/shared.py::test_shared_area"}),
        (
            "    def wrapper(*args):",
            "        ",
            {"test_area", "test_logged", "tests/shared.py::test_shared_area"},
        ),
        # a class nested in a function: its method's body is its own, the class body the function's
        ("        def describe(self):", "            ", {"test_described"}),
        ("def build(kind):", "    ", {"test_built", "test_described"}),
    ],
)
def test_each_edit_gets_the_tests_that_ran_its_own_lines(
    measured: Path, capsys: pytest.CaptureFixture[str], after: str, indent: str, expected: set[str]
) -> None:
    assert answer_for_edit(measured, capsys, after, indent) == expected
