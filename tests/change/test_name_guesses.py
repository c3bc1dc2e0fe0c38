"""Calls matched to a method by its name alone, on real throwaway repositories: a test reaches the
method through such a guess only if it names the class, unless the call site does
(tests/change/test_name_guesses.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.engine import Engine

FILES = {
    "shop/__init__.py": "",
    "shop/live.py": (
        "class Live:\n"
        "    def start(self) -> str:\n"
        "        return 'live'\n"
        "\n"
        "class SessionInterface:\n"
        "    def open_session(self) -> str:\n"
        "        return 'session'\n"
        "\n"
        "class Box:\n"
        "    def __init__(self) -> None:\n"
        "        self.session_interface = SessionInterface()\n"
    ),
    "shop/use.py": (
        "def first(match):\n"
        "    return match.start()\n"
        "\n"
        "def session_of(app):\n"
        "    si = app.session_interface\n"
        "    return si.open_session()\n"
    ),
    "tests/test_use.py": (
        "from shop.live import Box, Live, SessionInterface\n"
        "from shop.use import first, session_of\n"
        "\n"
        "def test_first():\n"
        "    assert first(None) == 0\n"
        "\n"
        "def test_live():\n"
        "    assert Live().start() == 'live'\n"
        "\n"
        "def test_session():\n"
        "    assert session_of(Box()) == 'session'\n"
        "\n"
        "def test_interface():\n"
        "    assert SessionInterface().open_session() == 'session'\n"
    ),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


def impacted_tests(repo: Path, old: str, new: str) -> list[str]:
    """The impacted tests of a one-line edit of ``shop/live.py``, by name."""
    commit(repo, {"shop/live.py": FILES["shop/live.py"].replace(old, new)}, "edit")
    pack = Engine.open(repo).pr(base="HEAD~1")
    assert pack.impact is not None
    return sorted(t.symbol.name for t in pack.impact.tests)


def test_a_guess_at_a_method_reaches_only_the_tests_that_name_its_class(repo: Path) -> None:
    # match.start() is Live.start by its name alone, and test_first never names Live
    assert impacted_tests(repo, "'live'", "'live!'") == ["test_live"]


def test_a_guess_whose_call_site_names_the_class_is_taken_as_sure(repo: Path) -> None:
    # si = app.session_interface; si.open_session(): the receiver is named after SessionInterface
    assert impacted_tests(repo, "'session'", "'session!'") == ["test_interface", "test_session"]
