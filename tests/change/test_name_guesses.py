"""Calls matched to a method by its name alone, on real throwaway repositories: a test reaches the
method through such a guess only if it names the class, unless the call site does
(tests/change/test_name_guesses.py)."""

from __future__ import annotations

from pathlib import Path

from helpers import impacted_test_names, make_repo

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


def impacted_tests(tmp_path: Path, old: str, new: str) -> list[str]:
    """The impacted tests of a one-line edit of ``shop/live.py`` in a new repository, by name."""
    repo = make_repo(tmp_path / "shop", FILES)
    return impacted_test_names(repo, "shop/live.py", FILES["shop/live.py"].replace(old, new))


def test_a_guess_at_a_method_reaches_only_the_tests_that_name_its_class(tmp_path: Path) -> None:
    # match.start() is Live.start by its name alone, and test_first never names Live
    assert impacted_tests(tmp_path, "'live'", "'live!'") == ["test_live"]


def test_a_guess_whose_call_site_names_the_class_is_taken_as_sure(tmp_path: Path) -> None:
    # si = app.session_interface; si.open_session(): the receiver is named after SessionInterface
    assert impacted_tests(tmp_path, "'session'", "'session!'") == ["test_interface", "test_session"]


def test_the_receiver_is_read_at_the_call_of_the_method_not_of_a_longer_name(tmp_path: Path) -> None:
    # ``.open_session`` first appears inside ``.open_sessions``, whose receiver names nothing
    use = FILES["shop/use.py"].replace(
        "    return si.open_session()", "    return len(app.open_sessions()) or si.open_session()"
    )
    repo = make_repo(tmp_path / "shop", {**FILES, "shop/use.py": use})
    edited = FILES["shop/live.py"].replace("'session'", "'session!'")
    assert impacted_test_names(repo, "shop/live.py", edited) == ["test_interface", "test_session"]
