"""``mnemo pr``, ``mnemo files`` and ``mnemo tests``: the blast radius of a change."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.commands.common import (
    BUDGET_HELP,
    add_coverage_arguments,
    add_format_argument,
    add_memory_argument,
    add_repo_argument,
    open_engine,
    positive_int,
    render_pack,
)
from mnemo_core.defaults import DEFAULT_DEPTH, DEFAULT_FILES_DEPTH
from mnemo_core.errors import MnemoError

if TYPE_CHECKING:
    from mnemo_core.engine import Engine

EXIT_NOTHING_SELECTED = 5  # `mnemo tests` selected nothing: pytest's own code for "no tests collected"
_SHELL_UNSAFE = re.compile(r"[\s*?\[]")  # what `$(...)` splits on or expands as a pattern
GO_RUN_FLAG = "-run"  # the one option `mnemo tests --format go` prints itself


def _selectors(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "range",
        nargs="?",
        metavar="RANGE",
        help="the commits, as git writes them: A..B (A to B), A...B (from their merge-base), "
        "or A (from its merge-base with HEAD, like a pull request); instead of --base and --head",
    )
    parser.add_argument(
        "--base", help="base ref (default: the merge-base with the upstream or default branch)"
    )
    parser.add_argument("--head", help="head ref (default: HEAD)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--staged", action="store_true", help="the staged change (index against HEAD)")
    mode.add_argument(
        "--worktree", action="store_true", help="the working tree against HEAD, untracked files included"
    )
    parser.add_argument(
        "--depth",
        type=positive_int,
        help=f"caller hops (default: depth in [tool.mnemo] or mnemo.toml, else {DEFAULT_DEPTH})",
    )
    add_coverage_arguments(parser)
    add_repo_argument(parser)
    add_memory_argument(parser)


def register(sub: Any) -> None:
    pr = sub.add_parser("pr", help="changed symbols, their callers, impacted tests and a risk verdict")
    _selectors(pr)
    pr.add_argument("--budget", type=positive_int, help=BUDGET_HELP)
    add_format_argument(pr, ("text", "markdown", "json"))
    pr.add_argument(
        "--links",
        metavar="URL",
        help="with --format markdown, link symbols to "
        "URL/PATH#Lstart-Lend, e.g. https://github.com/OWNER/REPO/blob/SHA",
    )
    pr.set_defaults(run=run_pr)

    files = sub.add_parser("files", help="the symbols of some files, their callers and tests")
    files.add_argument("paths", nargs="+", help="files (relative to the repository or absolute)")
    files.add_argument(
        "--depth",
        type=positive_int,
        default=DEFAULT_FILES_DEPTH,
        help=f"caller hops (default {DEFAULT_FILES_DEPTH})",
    )
    files.add_argument("--budget", type=positive_int, help=BUDGET_HELP)
    add_coverage_arguments(files)
    add_repo_argument(files)
    add_format_argument(files, ("text", "markdown", "json"))
    add_memory_argument(files)
    files.set_defaults(run=run_files)

    tests = sub.add_parser("tests", help="the tests a change reaches, e.g. as pytest node ids")
    _selectors(tests)
    tests.add_argument(
        "--format",
        choices=("pytest", "go", "files", "list", "text", "json"),
        help="output format: pytest node ids (the default when the tests are Python's), go test's -run and"
        " packages (the default for Go's: `go test $(mnemo tests)`), their files (the default otherwise:"
        " `mocha $(mnemo tests)`), a list (text is the same), or json",
    )
    tests.add_argument(
        "--output",
        metavar="FILE",
        help="write the selection to FILE instead, one argument a line (`pytest @FILE` reads it, any name)",
    )
    tests.add_argument(
        "--sure-only",
        action="store_true",
        help=(
            "leave out the tests reached only through an ambiguous name guess "
            "(listed by default, marked possible in JSON)"
        ),
    )
    # no --budget: the tests are never cut to fit one; the engine is opened only when needed
    tests.set_defaults(run=run_tests, budget=None, engine_free=True)


def _base_and_head(engine: Engine, args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The base and head refs: the positional range's commits, else ``--base`` and ``--head``."""
    if not args.range:
        return args.base, args.head
    if args.base or args.head or args.staged or args.worktree:
        raise MnemoError("give the commits as a range or with --base/--head/--staged/--worktree, not both")
    return engine.commits(args.range)


def run_pr(args: argparse.Namespace) -> int:
    engine = open_engine(args)
    base, head = _base_and_head(engine, args)
    pack = engine.pr(
        base,
        head,
        args.staged,
        args.worktree,
        args.depth,
        args.budget,
        coverage=args.coverage,
        coverage_commit=args.coverage_commit,
    )
    if args.format == "markdown":  # the pull-request comment mnemo-ci posts, for any CI
        from mnemo_core.render_review import Links, comment_markdown

        print(comment_markdown(pack, Links(args.links) if args.links else None), end="")
    else:
        print(render_pack(args.format, pack))
    return 0


def run_files(args: argparse.Namespace) -> int:
    pack = open_engine(args).files(
        args.paths,
        depth=args.depth,
        budget=args.budget,
        coverage=args.coverage,
        coverage_commit=args.coverage_commit,
    )
    print(render_pack(args.format, pack))
    return 0


def run_tests(args: argparse.Namespace) -> int:
    """``mnemo tests``: from the coverage map alone when it vouches for the change (``covmap.fast``),
    else the full change analysis (on an index rebuilt once if it turns out damaged)."""
    if _fast_path_applies(args):
        from mnemo_core.covmap.fast import NO_MAP, fast_change

        answer = fast_change(Path(args.repo), args.range, args.base, args.head)
        if answer.ids is not None:
            print(f"mnemo: {answer.note}", file=sys.stderr)
            return _print_selection(list(answer.ids), args.output)
        if answer.note != NO_MAP:
            note = f"not from the coverage map alone ({answer.note}): the full analysis"
            print(f"mnemo: {note}", file=sys.stderr)
    from mnemo_core.engine import recovering

    return recovering(args.repo, lambda: _full_tests(args))


def _fast_path_applies(args: argparse.Namespace) -> bool:
    """Whether ``mnemo tests`` asks for what the fast path answers: commits (no snapshot), pytest
    ids, no coverage data or depth of its own."""
    if args.range and (args.base or args.head):
        return False  # the full path says why not
    return not (
        args.staged
        or args.worktree
        or args.depth
        or args.coverage
        or args.coverage_commit
        or args.format not in (None, "pytest")
    )


def _full_tests(args: argparse.Namespace) -> int:
    from mnemo_core.render import go_test_args, test_ids, tests_answer_json, tests_format

    engine = open_engine(args)
    base, head = _base_and_head(engine, args)
    tests, notes = engine.test_selection(
        base,
        head,
        args.staged,
        args.worktree,
        args.depth,
        args.sure_only,
        coverage=args.coverage,
        coverage_commit=args.coverage_commit,
    )
    for note in notes:  # the ids go to a command line: where they came from goes beside it
        if "coverage map" in note:
            print(f"mnemo: {note}", file=sys.stderr)
    form = args.format or tests_format(tests)
    if form == "json":
        print(json.dumps(tests_answer_json(tests), indent=2))
        return 0
    if form in ("list", "text"):
        for t in tests:
            print(f"{t.symbol.path}:{t.symbol.start_line}  {t.symbol.name}")
        return 0
    if form == "go":
        go = go_test_args(tests)
        if tests and go is None:
            raise MnemoError(
                "--format go: these tests are not all top-level Go test functions; try --format files"
            )
        words = go.split() if go else []
    else:
        words = list(dict.fromkeys(t.symbol.path for t in tests)) if form == "files" else test_ids(tests)
    return _print_selection(words, args.output)


def _print_selection(words: list[str], output: str | None) -> int:
    """Print the arguments for ``runner $(mnemo tests)``, or instead write them one a line to ``output``
    (``pytest @FILE``). Words a shell would split, expand or take for an option are refused on the
    command line; nothing selected is said on stderr with its own exit code, since an empty
    ``$(...)`` would run the whole suite."""
    if output is not None:
        Path(output).write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    if not words:
        print("mnemo: no test is impacted by this change; nothing to run", file=sys.stderr)
        return EXIT_NOTHING_SELECTED
    if output is None:
        unsafe = [w for w in words if _SHELL_UNSAFE.search(w) or (w.startswith("-") and w != GO_RUN_FLAG)]
        if unsafe:
            raise MnemoError(
                f"the selected test {unsafe[0]!r} would not survive `$(mnemo tests)` (a space, a shell "
                "pattern or a leading '-'); write the selection to a file: "
                "`mnemo tests ... --output FILE` then `pytest @FILE`"
            )
        print(" ".join(words))
    return 0
