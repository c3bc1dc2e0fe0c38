"""Functions handed over under a key, on real throwaway repositories: one stored under a keyword
(``globals.update(shout=shout)``) or registered beside a predicate (``register(is_counter,
self.gen_counter)``) is reached only by the tests that name its key: the keyword, the predicate's
subject or a type its body tests for; a predicate whose body does not spell its subject
(``has_with_generic``) keys nothing, and every test that builds the converter keeps its factory."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import impacted_test_names, make_repo

from mnemo_core.change.registry_keys import handed_keys, spellings

PREDICATES = (
    "from collections import Counter\n"
    "from typing import Mapping\n"
    "\n"
    "def is_counter(t):\n"
    '    """Whether ``t`` is a Counter."""\n'
    '    return t is Counter or getattr(t, "__origin__", None) is Counter\n'
    "\n"
    "def is_mapping(t):\n"
    "    return t in (dict, Mapping)\n"
    "\n"
    "def has_with_generic(t):\n"
    '    return hasattr(t, "__attrs_attrs__")\n'
)
CONVERTER = (
    "from conv.predicates import has_with_generic, is_counter, is_mapping\n"
    "\n"
    "def shout(text):\n"
    "    return text.upper()\n"
    "\n"
    "class Converter:\n"
    "    def __init__(self):\n"
    "        self.factories = []\n"
    "        self.register(is_counter, self.gen_counter)\n"
    "        self.register(\n"
    "            is_mapping, self.gen_mapping\n"
    "        )\n"
    "        self.register(has_with_generic, self.gen_attrs)\n"
    "        self.helpers = {}\n"
    "        self.helpers.update(shout=shout)\n"
    "\n"
    "    def register(self, predicate, factory):\n"
    "        self.factories.append((predicate, factory))\n"
    "\n"
    "    def structure(self, value, t):\n"
    "        for predicate, factory in self.factories:\n"
    "            if predicate(t):\n"
    "                return factory(t)(value)\n"
    "        return value\n"
    "\n"
    "    def render(self, name, value):\n"
    "        return self.helpers[name](value)\n"
    "\n"
    "    def gen_counter(self, t):\n"
    "        return t\n"
    "\n"
    "    def gen_mapping(self, t):\n"
    "        return dict\n"
    "\n"
    "    def gen_attrs(self, t):\n"
    "        return lambda v: t(**v)\n"
)
FILES = {
    "conv/__init__.py": "",
    "conv/predicates.py": PREDICATES,
    "conv/converter.py": CONVERTER,
    "tests/test_convert.py": (
        "from collections import Counter\n"
        "from conv.converter import Converter\n"
        "\n"
        "def test_counter():\n"
        '    assert Converter().structure(["a"], Counter) == Counter(["a"])\n'
        "\n"
        "def test_dict():\n"
        '    assert Converter().structure({"a": 1}, dict) == {"a": 1}\n'
        "\n"
        "def test_render():\n"
        '    assert Converter().render("shout", "a") == "A"\n'
        "\n"
        "def test_plain():\n"
        "    assert Converter().structure(1, int) == 1\n"
    ),
}
EVERY_TEST = ["test_counter", "test_dict", "test_plain", "test_render"]


@pytest.mark.parametrize(
    ("old", "new", "tests"),
    [
        ("        return t\n", "        return Counter\n", ["test_counter"]),  # gen_counter: Counter
        ("        return dict\n", "        return dict.copy\n", ["test_dict"]),  # gen_mapping: dict, Mapping
        ("text.upper()", "text.upper() + '!'", ["test_render"]),  # shout
        ("lambda v: t(**v)", "lambda v: t(*v)", EVERY_TEST),  # gen_attrs: nothing a test would name
    ],
)
def test_a_handed_function_is_reached_by_the_tests_that_name_its_key(
    tmp_path: Path, old: str, new: str, tests: list[str]
) -> None:
    repo = make_repo(tmp_path / "conv", FILES)
    assert impacted_test_names(repo, "conv/converter.py", CONVERTER.replace(old, new)) == tests


def test_the_keys_of_a_handed_function_are_read_from_its_call() -> None:
    lines = [
        "    env.globals.update(",
        "        url_for=self.url_for,",
        "        flashed=get_flashed_messages,",
        "    )",
        "    register(is_typed_dict, self.gen_typeddict)",
        "    items = sorted(words, key=by_length)",
        "    factories = [(is_namedtuple, namedtuple_factory, 'extended')]",
        "    register(self.is_ok(x), handler)",
    ]
    assert handed_keys(lines, 3, "get_flashed_messages") == ({"flashed"}, set())
    assert handed_keys(lines, 5, "gen_typeddict") == (set(), {("is_typed_dict", "typeddict")})
    assert handed_keys(lines, 6, "by_length") == (set(), set())  # a keyword of a call that stores nothing
    assert handed_keys(lines, 7, "namedtuple_factory") == (set(), {("is_namedtuple", "namedtuple")})
    assert handed_keys(lines, 8, "handler") == (set(), set())  # a predicate's call, not a predicate


def test_a_subject_is_named_in_any_spelling_of_its_words() -> None:
    assert "typeddict" in spellings("TypedDict")
    assert "typeddict" in spellings("simple_typeddicts")
    assert "mutablesequence" in spellings("MutableSequence")
    assert "typeddict" not in spellings("typed")
