"""A visitor's handlers, on real throwaway repositories: a handler whose name spells a keyword
(``visit_For``) is reached only by the tests whose strings spell it; one of a node every input has
(``visit_Name``) by every test that runs the visitor (tests/change/test_syntax_keys.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import impacted_test_names, make_repo

from mnemo_core.change.impact import walk_back
from mnemo_core.change.syntax_keys import id_keywords, keywords_of, syntax_guard
from mnemo_core.repository import Repository

# tests whose code has no keyword node: every handler of a name or a call reaches them
PLAIN_TESTS = (
    "\n"
    "def test_assign():\n"
    "    assert check('a = b') == ['a', 'b']\n"
    "\n"
    "def test_call():\n"
    "    assert check('f()') == ['f']\n"
)
FILES = {
    "lint/__init__.py": "",
    "lint/checker.py": (
        "import ast\n"
        "\n"
        "class Checker:\n"
        "    def __init__(self):\n"
        "        self.found = []\n"
        "\n"
        "    def visit(self, node):\n"
        "        method = 'visit_' + type(node).__name__\n"
        "        getattr(self, method, self.generic_visit)(node)\n"
        "\n"
        "    def generic_visit(self, node):\n"
        "        for child in ast.iter_child_nodes(node):\n"
        "            self.visit(child)\n"
        "\n"
        "    def visit_For(self, node):\n"
        "        self.found.append('loop')\n"
        "        self.generic_visit(node)\n"
        "\n"
        "    def visit_ClassDef(self, node):\n"
        "        self.found.append('class')\n"
        "        self.generic_visit(node)\n"
        "\n"
        "    def visit_Name(self, node):\n"
        "        self.found.append(node.id)\n"
        "\n"
        "\n"
        "def check(source):\n"
        "    checker = Checker()\n"
        "    checker.visit(ast.parse(source))\n"
        "    return checker.found\n"
    ),
    "tests/test_checker.py": (
        "from lint.checker import check\n"
        "\n"
        "def test_loop():\n"
        "    assert 'loop' in check('for x in y:\\n    pass\\n')\n"
        "\n"
        "def test_class():\n"
        "    assert 'class' in check('class C:\\n    pass\\n')\n"
        "\n"
        "def test_name():\n"
        "    for name in ('a', 'b'):\n"
        "        assert check(name) == [name]\n"
        "\n" + PLAIN_TESTS
    ),
}

EVERY_TEST = ["test_assign", "test_call", "test_class", "test_loop", "test_name"]


def impacted_tests(tmp_path: Path, old: str, new: str) -> list[str]:
    """The impacted tests of a one-line edit of ``lint/checker.py`` in a new repository, by name."""
    repo = make_repo(tmp_path / "lint", FILES)
    return impacted_test_names(repo, "lint/checker.py", FILES["lint/checker.py"].replace(old, new))


def test_a_handler_that_spells_a_keyword_reaches_the_tests_whose_strings_spell_it(tmp_path: Path) -> None:
    # test_name loops in its own code, but none of its strings spells ``for``
    assert impacted_tests(tmp_path, "append('loop')", "append('for')") == ["test_loop"]
    assert impacted_tests(tmp_path, "append('class')", "append('cls')") == ["test_class"]


def test_a_handler_of_a_node_any_input_has_reaches_every_test(tmp_path: Path) -> None:
    assert impacted_tests(tmp_path, "append(node.id)", "append(str(node.id))") == EVERY_TEST


def test_a_keyword_no_test_spells_keeps_every_test(tmp_path: Path) -> None:
    files = {**FILES, "tests/test_checker.py": FILES["tests/test_checker.py"].replace("for x in y", "x = y")}
    repo = make_repo(tmp_path / "lint", files)
    edited = FILES["lint/checker.py"].replace("append('loop')", "append('for')")
    assert impacted_test_names(repo, "lint/checker.py", edited) == EVERY_TEST


@pytest.mark.parametrize(
    ("name", "keywords"),
    [
        ("visit_ClassDef", {"class", "def"}),
        ("visit_ImportFrom", {"import", "from"}),
        ("visit_Switch", {"switch"}),
        ("visit_Name", set()),
        ("p_iteration_statement_1", set()),
        ("IMPORTFROM", {"import", "from"}),  # getattr(self, type(node).__name__.upper())
        ("CLASSDEF", {"class", "def"}),
        ("FORMATTEDVALUE", set()),  # a node's name, not "for" and more
    ],
)
def test_the_keywords_a_handler_name_spells(name: str, keywords: set[str]) -> None:
    assert keywords_of(name) == keywords


def test_a_plain_call_beside_a_name_built_one_is_labelled_a_call(tmp_path: Path) -> None:
    # one step back from ``visit_Name`` and ``check``: ``Checker.visit`` reaches the handler by a
    # built name, the tests call ``check`` plainly
    repo = make_repo(tmp_path / "lint", FILES)
    opened = Repository.open(repo)
    opened.update_index()
    store = opened.store
    ids = {s.name: s.id for s in store.symbols_in_file("lint/checker.py")}
    with store.remembering():
        reached = walk_back(store, [ids["Checker.visit_Name"], ids["check"]], 1)
    names = store.symbols_by_ids(reached)
    labels = {names[sid].name: r.labels for sid, r in reached.items() if r.depth}
    assert labels == {"Checker.visit": ("dispatches by name to",)} | {t: ("calls",) for t in EVERY_TEST}


REACH = {
    "lint/__init__.py": "",
    "lint/reach.py": (
        "import ast\n"
        "\n"
        "class Reach:\n"
        "    def __init__(self):\n"
        "        self.kinds = []\n"
        "\n"
        "    def visit(self, node):\n"
        "        if isinstance(node, ast.While):\n"
        "            self._while(node)\n"
        "        elif isinstance(node, (ast.For, ast.AsyncFor)):  # any loop over items\n"
        "            self._loop(node)\n"
        "        elif isinstance(node, ast.Name):\n"
        "            self._name(node)\n"
        "        for child in ast.iter_child_nodes(node):\n"
        "            self.visit(child)\n"
        "\n"
        "    def _while(self, node):\n"
        "        self.kinds.append('while')\n"
        "\n"
        "    def _loop(self, node):\n"
        "        self.kinds.append('for')\n"
        "\n"
        "    def _name(self, node):\n"
        "        self.kinds.append(node.id)\n"
        "\n"
        "\n"
        "def reach(source):\n"
        "    walker = Reach()\n"
        "    walker.visit(ast.parse(source))\n"
        "    return walker.kinds\n"
    ),
    "tests/test_reach.py": (
        "from lint.reach import reach\n"
        "\n"
        "def test_while():\n"
        "    assert 'while' in reach('while x:\\n    pass\\n')\n"
        "\n"
        "def test_for():\n"
        "    assert 'for' in reach('for x in y:\\n    pass\\n')\n"
        "\n"
        "def test_name():\n"
        "    assert reach('a') == ['a']\n"
        "\n"
        "def test_assign():\n"
        "    assert reach('a = b') == ['a', 'b']\n"
        "\n"
        "def test_call():\n"
        "    assert reach('f()') == ['f']\n"
    ),
}
EVERY_REACH_TEST = ["test_assign", "test_call", "test_for", "test_name", "test_while"]


@pytest.mark.parametrize(
    ("old", "new", "tests"),
    [
        ("append('while')", "append('loop')", ["test_while"]),
        ("append('for')", "append('loop')", ["test_for"]),
        ("append(node.id)", "append(str(node.id))", EVERY_REACH_TEST),
    ],
)
def test_a_call_under_an_isinstance_of_a_keyword_node_reaches_the_tests_that_spell_it(
    tmp_path: Path, old: str, new: str, tests: list[str]
) -> None:
    repo = make_repo(tmp_path / "lint", REACH)
    assert impacted_test_names(repo, "lint/reach.py", REACH["lint/reach.py"].replace(old, new)) == tests


@pytest.mark.parametrize(
    ("condition", "keywords"),
    [
        ("elif isinstance(node, ast.While):", {"while"}),
        ("if isinstance(node, (ast.For, ast.AsyncFor,)):", {"for", "async"}),
        ("if isinstance(n, c_ast.Typedef):  # a typedef", {"typedef"}),
        ("if isinstance(node, (ast.Break, ast.Name)):", set()),  # a Name is in any input
        ("if isinstance(value, str):", set()),
        ("if isinstance(node, ast.While) and node.orelse:", set()),
    ],
)
def test_the_keywords_a_syntax_guard_spells(condition: str, keywords: set[str]) -> None:
    guard = syntax_guard(condition)
    assert (id_keywords(guard) if guard is not None else set()) == keywords


UPPER = {
    "lint/__init__.py": "",
    "lint/upper.py": (
        "import ast\n"
        "\n"
        "class Checker:\n"
        "    def __init__(self):\n"
        "        self.seen = []\n"
        "\n"
        "    def handle(self, node):\n"
        "        handler = getattr(self, type(node).__name__.upper(), None)\n"
        "        if handler is not None:\n"
        "            handler(node)\n"
        "        for child in ast.iter_child_nodes(node):\n"
        "            self.handle(child)\n"
        "\n"
        "    def IMPORTFROM(self, node):\n"
        "        self.seen.append(node.module)\n"
        "\n"
        "    def NAME(self, node):\n"
        "        self.seen.append(node.id)\n"
        "\n"
        "\n"
        "def check(source):\n"
        "    checker = Checker()\n"
        "    checker.handle(ast.parse(source))\n"
        "    return checker.seen\n"
    ),
    "tests/test_upper.py": (
        "from lint.upper import check\n"
        "\n"
        "def test_import():\n"
        "    assert check('from os import path') == ['os']\n"
        "\n"
        "def test_name():\n"
        "    assert check('a') == ['a']\n"
        "\n"
        "def test_attribute():\n"
        "    assert check('a.b') == ['a']\n" + PLAIN_TESTS
    ),
}


@pytest.mark.parametrize(
    ("old", "new", "tests"),
    [
        ("append(node.module)", "append(str(node.module))", ["test_import"]),
        (
            "append(node.id)",
            "append(str(node.id))",
            ["test_assign", "test_attribute", "test_call", "test_import", "test_name"],
        ),
    ],
)
def test_a_handler_named_like_an_upper_cased_node_spells_its_keywords(
    tmp_path: Path, old: str, new: str, tests: list[str]
) -> None:
    repo = make_repo(tmp_path / "lint", UPPER)
    assert impacted_test_names(repo, "lint/upper.py", UPPER["lint/upper.py"].replace(old, new)) == tests
