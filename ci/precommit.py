"""``mnemo-precommit``: the blast radius of the change being committed (or pushed), as a gate.

pre-commit runs it at the repository root with unstaged edits stashed away, so the staged snapshot
is exactly what will be committed; ``git commit -a`` and ``git commit PATHS`` stage into a temporary
index named by ``GIT_INDEX_FILE``, which the vcs layer honours. In the pre-push stage pre-commit sets
``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF`` and the pushed commits are analysed instead. The
output of a passing change is one summary line, and the command that runs the tests it reaches
(``--full`` shows the table there too); a failing one
gets the compact table, the test command and how to skip; the exit code says whether the policy holds.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from ci.guard import EXIT_PASSED, EXIT_POLICY, guarded
from ci.policy import add_policy_arguments, configured, describe, evaluate
from mnemo_core.commands.common import add_coverage_arguments
from mnemo_core.engine import Engine, recovering
from mnemo_core.model import ContextPack, Impact
from mnemo_core.render import pytest_command
from mnemo_core.render_review import REVIEW_BUDGET, review_text
from mnemo_core.terminal import escaped_output

PROG = "mnemo-precommit"
HOOK_ID = "mnemo-blast-radius"  # the id in .pre-commit-hooks.yaml, for pre-commit's SKIP variable
SHORT_SHA = 10


def build_parser() -> argparse.ArgumentParser:
    """The options of ``mnemo-precommit`` (hook ``args``)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Show the blast radius of the staged change; fail when it breaks the policy."
    )
    add_policy_arguments(parser)
    add_coverage_arguments(parser)
    parser.add_argument("--repo", default=".", help="repository (default: the current directory)")
    parser.add_argument(
        "--full",
        action="store_true",
        help="show the whole report when the change passes too (default: one line)",
    )
    parser.add_argument("filenames", nargs="*", help=argparse.SUPPRESS)  # the change is read from git
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the hook; returns the exit code (see ``ci.guard``). Nothing it prints carries a control
    character (``mnemo_core.terminal``)."""
    with escaped_output():
        args = build_parser().parse_args(argv)
        return guarded(PROG, lambda: recovering(args.repo, lambda: run(args)), args.repo)


def run(args: argparse.Namespace) -> int:
    """Analyse the change, print the table, apply the policy."""
    engine = Engine.open(args.repo)
    config = configured(engine.config, args)
    pushing = bool(os.environ.get("PRE_COMMIT_FROM_REF") and os.environ.get("PRE_COMMIT_TO_REF"))
    pack, title = (analyse_push if pushing else analyse)(
        engine, config.depth, args.coverage, args.coverage_commit
    )
    report = review_text(pack, title)
    outcome = evaluate(pack.impact or Impact(), config)
    if outcome.passed and not args.full:
        print(f"{report[0]} · {describe(outcome, config)}")
        if command := pytest_command((pack.impact or Impact()).tests):
            print(f"mnemo: run the impacted tests: {command}")
        return EXIT_PASSED
    print("\n".join(report))
    print(f"mnemo: {describe(outcome, config)}")
    if not outcome.passed:
        verb = "push" if pushing else "commit"
        print(f"mnemo: to {verb} anyway: SKIP={HOOK_ID} git {verb} ...")
    return EXIT_PASSED if outcome.passed else EXIT_POLICY


def analyse(
    engine: Engine, depth: int, coverage: str | None = None, coverage_commit: str | None = None
) -> tuple[ContextPack, str]:
    """The staged change, with a title for the output (tests from ``coverage`` data, if any)."""
    pack = engine.pr(
        staged=True, depth=depth, budget=REVIEW_BUDGET, coverage=coverage, coverage_commit=coverage_commit
    )
    return pack, "staged change"


def analyse_push(
    engine: Engine, depth: int, coverage: str | None = None, coverage_commit: str | None = None
) -> tuple[ContextPack, str]:
    """The commits pre-commit's pre-push stage names (``PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF``)."""
    from_ref, to_ref = os.environ["PRE_COMMIT_FROM_REF"], os.environ["PRE_COMMIT_TO_REF"]
    pack = engine.pr(
        base=from_ref,
        head=to_ref,
        depth=depth,
        budget=REVIEW_BUDGET,
        coverage=coverage,
        coverage_commit=coverage_commit,
    )
    return pack, f"pushed commits {from_ref[:SHORT_SHA]}..{to_ref[:SHORT_SHA]}"
