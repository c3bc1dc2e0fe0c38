"""Helpers shared by the commands: the repository argument, output formats, JSON printing."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from mnemo_core.defaults import DEFAULT_BUDGET

if TYPE_CHECKING:  # building the parser imports no engine code (``mnemo --version``)
    from mnemo_core.engine import Engine
    from mnemo_core.model import ContextPack, Symbol

_OPENED: list[Engine] = []  # the engines the running command opened: closed when it ends
BUDGET_HELP = f"token budget (default: budget in [tool.mnemo] or mnemo.toml, else {DEFAULT_BUDGET})"


def add_repo_argument(parser: argparse.ArgumentParser) -> None:
    """``--repo PATH`` (default: the current directory)."""
    parser.add_argument("--repo", default=".", help="repository directory (default: current directory)")


def add_coverage_arguments(parser: argparse.ArgumentParser) -> None:
    """``--coverage PATH`` and ``--coverage-commit REF``: per-test coverage data for the tests."""
    parser.add_argument(
        "--coverage",
        metavar="PATH",
        help="a coverage.py data file with per-test contexts (pytest --cov --cov-context=test): the "
        "tests that ran each changed symbol replace the static graph's guess (default: coverage in "
        "[tool.mnemo] or mnemo.toml; a .coverage file is never picked up on its own)",
    )
    parser.add_argument(
        "--coverage-commit",
        metavar="REF",
        help="the commit the coverage data was taken at (default: coverage_commit in the settings, "
        "else HEAD)",
    )


def positive_int(text: str) -> int:
    """An argparse type for counts and budgets: 0 or a negative number is a usage error, not
    "unlimited"."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_format_argument(parser: argparse.ArgumentParser, choices: tuple[str, ...] = ("text", "json")) -> None:
    """``--format`` with the given choices, the first being the default."""
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")


def add_memory_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-memory``: neither use nor write the session and task memory (``.mnemo/memory.db``)."""
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="leave the session and task memory out: nothing read from or written to .mnemo/memory.db",
    )


def add_at_argument(parser: argparse.ArgumentParser) -> None:
    """``--at REF``: answer against the files of another commit."""
    parser.add_argument(
        "--at",
        metavar="REF",
        help="answer against the files of commit REF (a branch, tag, sha or HEAD~50), read from git's "
        "objects: the work tree is not touched (the first use of a repository takes an index's time)",
    )


def open_engine(args: argparse.Namespace) -> Engine:
    """The engine of the repository ``--repo`` names (without memory when ``--no-memory``; at
    another commit with ``--at``)."""
    from mnemo_core.engine import Engine

    memory = False if getattr(args, "no_memory", False) else None
    return opened(Engine.open(args.repo, memory=memory, at=getattr(args, "at", None)))


def opened(engine: Engine) -> Engine:
    """``engine``, closed when the command ends (by ``close_engines``)."""
    _OPENED.append(engine)
    return engine


def close_engines() -> None:
    """Close the engines the command opened: their index and memory connections, their files."""
    while _OPENED:
        _OPENED.pop().close()


def print_at(engine: Engine) -> None:
    """Say, above a text answer given at another commit, which commit it is about."""
    if engine.at is not None:
        print(f"({engine.at.note()})")


def render_pack(form: str, pack: ContextPack) -> str:
    """An answer in ``form`` (text, markdown or json); the renderers load when an answer is made."""
    from mnemo_core.render import to_json, to_markdown, to_text

    return {"text": to_text, "markdown": to_markdown, "json": to_json}[form](pack)


def print_json(value: object) -> None:
    """Print JSON with stable key order."""
    print(json.dumps(value, indent=2, sort_keys=False))


def symbol_line(symbol: Symbol) -> str:
    """``path:line  kind  name  signature`` for text output."""
    return f"{symbol.path}:{symbol.start_line}  {symbol.kind:<9} {symbol.name}  {symbol.signature}".rstrip()


SHOWN_PARTIAL = 3  # files indexed in part named in one line; the rest are counted


def in_part(partial: dict[str, str]) -> str:
    """The files indexed in part, and why: ``deep.py (nested deeper than 256 levels)``."""
    shown = [f"{path} ({why})" for path, why in sorted(partial.items())[:SHOWN_PARTIAL]]
    more = len(partial) - SHOWN_PARTIAL
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
