"""Opt-in flags, on real throwaway repositories: a call under ``if self.deprecated:`` (off by default)
reaches only the tests that name ``deprecated``; one under a flag on by default reaches every test
that runs the function (tests/change/test_flags.py)."""

from __future__ import annotations

from pathlib import Path

from helpers import impacted_test_names, make_repo

LIB = (
    "class Command:\n"
    "    def __init__(self, name: str, deprecated: bool = False, listed: bool = True) -> None:\n"
    "        self.name = name\n"
    "        self.deprecated = deprecated\n"
    "        self.listed = listed\n"
    "\n"
    "    def run(self, verbose: str | None = None) -> str:\n"
    "        if self.deprecated:\n"
    "            warn_deprecated(self.name)\n"
    "        if self.listed:\n"
    "            listing(self.name)\n"
    "        if verbose is not None:\n"
    "            describe(self.name)\n"
    "        return self.name\n"
    "\n"
    "def warn_deprecated(name: str) -> str:\n"
    "    return name + ' is deprecated'\n"
    "\n"
    "def listing(name: str) -> str:\n"
    "    return name\n"
    "\n"
    "def describe(name: str) -> str:\n"
    "    return name.title()\n"
)
FILES = {
    "cli/__init__.py": "",
    "cli/command.py": LIB,
    "tests/test_command.py": (
        "from cli.command import Command\n"
        "\n"
        "def test_run():\n"
        "    assert Command('a').run() == 'a'\n"
        "\n"
        "def test_deprecated():\n"
        "    assert Command('a', deprecated=True).run() == 'a'\n"
        "\n"
        "def test_verbose():\n"
        "    assert Command('a').run(verbose='yes') == 'a'\n"
        "\n"
        "def test_unlisted():\n"
        "    assert Command('b', listed=False).run() == 'b'\n"
        "\n"
        "def test_name():\n"
        "    assert Command('c').name == 'c'\n"
    ),
}
RUNNERS = ["test_deprecated", "test_run", "test_unlisted", "test_verbose"]


def impacted_tests(tmp_path: Path, old: str, new: str) -> list[str]:
    """The impacted tests of a one-line edit of ``cli/command.py`` in a new repository, by name."""
    repo = make_repo(tmp_path / "cli", FILES)
    return impacted_test_names(repo, "cli/command.py", LIB.replace(old, new))


def test_a_call_under_a_flag_off_by_default_reaches_the_tests_that_name_it(tmp_path: Path) -> None:
    assert impacted_tests(tmp_path, "' is deprecated'", "' was deprecated'") == ["test_deprecated"]


def test_a_call_under_a_parameter_that_defaults_to_none_reaches_every_test_that_runs_it(
    tmp_path: Path,
) -> None:
    # an optional object is mostly one the code hands over itself: not an option a test turns on
    assert impacted_tests(tmp_path, "name.title()", "name.upper()") == RUNNERS


def test_a_call_under_a_flag_on_by_default_reaches_every_test_that_runs_it(tmp_path: Path) -> None:
    assert (
        impacted_tests(tmp_path, "    return name\n\ndef describe", "    return name * 1\n\ndef describe")
        == RUNNERS
    )
