"""``mnemo pr``, ``mnemo files`` and ``mnemo tests``: the blast radius of a change."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mnemo_core.change.coverage import coverage_source
from mnemo_core.commands.common import (
    BUDGET_HELP,
    add_coverage_arguments,
    add_format_argument,
    add_repo_argument,
    positive_int,
    settings,
)
from mnemo_core.model import ContextPack
from mnemo_core.pipelines import DEFAULT_DEPTH, DEFAULT_FILES_DEPTH, for_files, for_pr
from mnemo_core.render import selected_tests, test_ids, tests_json, to_json, to_markdown, to_text
from mnemo_core.render_review import Links, comment_markdown
from mnemo_core.repository import Repository

RENDERERS = {"text": to_text, "markdown": to_markdown, "json": to_json}


def _selectors(parser: argparse.ArgumentParser) -> None:
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
    files.set_defaults(run=run_files)

    tests = sub.add_parser("tests", help="the tests a change reaches, e.g. as pytest node ids")
    _selectors(tests)
    tests.add_argument("--format", choices=("pytest", "list", "json"), default="pytest", help="output format")
    tests.add_argument(
        "--sure-only",
        action="store_true",
        help="leave out the tests reached only through a name guess (listed by default, marked in JSON)",
    )
    tests.set_defaults(run=run_tests, budget=None)  # no --budget: the tests are never cut to fit one


def _pr(args: argparse.Namespace) -> ContextPack:
    """The change's pack; depth and budget from the options, else the project's settings."""
    repo = Repository.open(args.repo)
    config = settings(repo, depth=args.depth, budget=args.budget)
    return for_pr(
        repo,
        base=args.base,
        head=args.head,
        staged=args.staged,
        worktree=args.worktree,
        depth=config.depth,
        budget=config.budget,
        coverage=coverage_source(repo.root, config, args.coverage, args.coverage_commit),
    )


def run_pr(args: argparse.Namespace) -> int:
    pack = _pr(args)
    if args.format == "markdown":  # the pull-request comment mnemo-ci posts, for any CI
        print(comment_markdown(pack, Links(args.links) if args.links else None), end="")
    else:
        print(RENDERERS[args.format](pack))
    return 0


def run_files(args: argparse.Namespace) -> int:
    repo = Repository.open(args.repo)
    config = settings(repo, budget=args.budget)
    coverage = coverage_source(repo.root, config, args.coverage, args.coverage_commit)
    pack = for_files(repo, args.paths, depth=args.depth, budget=config.budget, coverage=coverage)
    print(RENDERERS[args.format](pack))
    return 0


def run_tests(args: argparse.Namespace) -> int:
    pack = _pr(args)
    tests = selected_tests(pack.impact, args.sure_only)
    if args.format == "json":
        print(json.dumps(tests_json(tests), indent=2))
    elif args.format == "list":
        for t in tests:
            print(f"{t.symbol.path}:{t.symbol.start_line}  {t.symbol.name}")
    else:
        print(" ".join(test_ids(tests)))
    return 0
