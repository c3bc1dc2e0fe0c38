"""A property's getter and setter, on a real throwaway repository: a test that reads the property
reaches the getter, one that assigns it the setter, and a change to one of them reaches only its
own tests, in ``mnemo pr`` as on the definition's own lens; the calls in the setter's body are the
setter's (the two share a name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, impacted_test_names, make_repo

from mnemo_core.engine import Engine

SESSION = (
    "def stored(value):\n"
    "    return value\n"
    "\n"
    "class Session:\n"
    "    def __init__(self):\n"
    "        self._permanent = False\n"
    "\n"
    "    @property\n"
    "    def permanent(self) -> bool:\n"
    "        return self._permanent\n"
    "\n"
    "    @permanent.setter\n"
    "    def permanent(self, value: bool) -> None:\n"
    "        self._permanent = stored(value)\n"
)
FILES = {
    "app/__init__.py": "",
    "app/session.py": SESSION,
    "tests/test_session.py": (
        "from app.session import Session\n"
        "\n"
        "def test_read():\n"
        "    session = Session()\n"
        "    assert session.permanent is False\n"
        "\n"
        "def test_write():\n"
        "    session = Session()\n"
        "    session.permanent = True\n"
    ),
}


@pytest.mark.parametrize(
    ("old", "new", "tests"),
    [
        ("return self._permanent", "return bool(self._permanent)", ["test_read"]),
        ("self._permanent = stored(value)", "self._permanent = bool(stored(value))", ["test_write"]),
        ("    return value\n", "    return bool(value)\n", ["test_write"]),  # called in the setter's body
    ],
)
def test_a_change_to_a_getter_or_a_setter_reaches_its_own_tests(
    tmp_path: Path, old: str, new: str, tests: list[str]
) -> None:
    repo = make_repo(tmp_path / "app", FILES)
    assert impacted_test_names(repo, "app/session.py", SESSION.replace(old, new)) == tests


def test_each_definition_s_lens_counts_its_own_tests(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", FILES)
    with Engine.open(repo) as engine:
        getter, setter = sorted(engine.find("Session.permanent"), key=lambda s: s.start_line)
        assert engine.card(getter).tests == 1 and engine.card(setter).tests == 1


def test_a_setter_nothing_assigns_statically_gets_its_module_s_tests_as_possible(tmp_path: Path) -> None:
    """The getter is read, but the setter is only assigned through an object of unknown class: the
    setter alone changed, so its fallback applies (its module's tests are possible), not "untested"."""
    files = {
        **FILES,
        "tests/test_session.py": FILES["tests/test_session.py"].replace(
            "    session = Session()\n    session.permanent = True\n",
            "    session = object.__new__(Session)\n    session.permanent = True\n",
        ),
    }
    repo = make_repo(tmp_path / "app", files)
    setter = SESSION.replace("= stored(value)", "= bool(stored(value))")
    commit(repo, {"app/session.py": setter}, "bool")
    pack = Engine.open(repo).pr(base="HEAD~1")
    assert pack.impact is not None
    [changed] = pack.impact.changed
    assert not pack.impact.tests
    assert sorted(t.symbol.name for t in pack.impact.possible_tests) == ["test_read", "test_write"]
    assert any("nothing in the repository calls it" in r for r in changed.reasons)
