"""``mnemo-ci``: the blast radius of a pull request as one sticky comment, and a check that can fail.

In a GitHub Actions job on a pull request: read the event (number, base and head shas), compute
``for_pr`` from the merge-base of base and head to head, render the comment, append it to the job
summary, create or update the one comment that carries the marker, then exit per the policy. A
pull request from a fork gets a read-only token under ``pull_request``, so there the result goes to
the job summary only. ``--dry-run`` prints the comment instead of posting it. The repository's code
is only read and parsed, never run.

In Actions the step also sets outputs (``risk``, ``changed``, ``impacted``, ``tests``, ``passed``,
``comment-action``, ``comment-url``) and annotates each line that still uses a deleted or renamed
symbol with an ``::error`` workflow command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from ci.event import Environment, read_environment
from ci.github import DEFAULT_BACKOFF_S, DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, GitHub, sticky_comment
from ci.guard import EXIT_PASSED, EXIT_POLICY, guarded
from ci.policy import add_policy_arguments, configured, describe, evaluate
from ci.workflow import annotation_lines, write_outputs
from mnemo_core.commands.common import add_coverage_arguments
from mnemo_core.engine import Engine, recovering
from mnemo_core.errors import MnemoError
from mnemo_core.model import Impact
from mnemo_core.render_review import REVIEW_BUDGET, Links, comment_markdown, sticky_marker
from mnemo_core.terminal import escaped_output

PROG = "mnemo-ci"


def build_parser() -> argparse.ArgumentParser:
    """The options of ``mnemo-ci``."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Comment a pull request's blast radius in GitHub Actions."
    )
    parser.add_argument("--repo", default=".", help="the checked-out repository (default: the current one)")
    parser.add_argument("--dry-run", action="store_true", help="print the comment instead of posting it")
    parser.add_argument(
        "--header",
        default="",
        help="name of this comment: several steps keep one sticky comment each (letters, digits, ._-)",
    )
    parser.add_argument(
        "--skip-without-code",
        action="store_true",
        help="post no comment when no function, method or class changed (an earlier one is still updated)",
    )
    add_policy_arguments(parser)
    add_coverage_arguments(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds to wait for each GitHub answer (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=DEFAULT_RETRIES,
        help=f"retries of a failed GitHub request (default {DEFAULT_RETRIES})",
    )
    parser.add_argument(
        "--backoff",
        type=float,
        default=DEFAULT_BACKOFF_S,
        help=f"seconds before the first retry, doubled for each next one (default {DEFAULT_BACKOFF_S:g})",
    )
    return parser


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run ``mnemo-ci``; returns the exit code (see ``ci.guard``). Nothing it prints to the job's
    log carries a control character (``mnemo_core.terminal``)."""
    with escaped_output():
        args = build_parser().parse_args(argv)
        return guarded(
            PROG,
            lambda: recovering(args.repo, lambda: run(args, os.environ if env is None else env)),
            args.repo,
        )


def run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Analyse, render, publish, judge."""
    marker = sticky_marker(args.header)
    inputs = read_environment(env, need_token=not args.dry_run)
    pr = inputs.pull_request
    engine = Engine.open(args.repo)
    config = configured(engine.config, args)
    pack = engine.pr(
        base=pr.base_sha,
        head=pr.head_sha,
        depth=config.depth,
        budget=REVIEW_BUDGET,
        coverage=args.coverage,
        coverage_commit=args.coverage_commit,
    )
    body = comment_markdown(pack, Links.github(inputs.server_url, pr.repository, pr.head_sha), marker=marker)
    impact = pack.impact or Impact()
    _append_summary(inputs, body)
    published: dict[str, str] = {}
    if args.dry_run:
        print(body, end="")
    else:
        published = _publish(
            inputs, args, body, marker, create=bool(impact.changed) or not args.skip_without_code
        )
    outcome = evaluate(impact, config)
    if inputs.in_actions:
        for line in annotation_lines(impact):
            print(line)
    write_outputs(inputs.output_path, impact, outcome.passed, published)
    print(
        f"{PROG}: #{pr.number}: risk {impact.risk}, {len(impact.changed)} changed, {len(impact.callers)} "
        f"impacted, {len(impact.tests)} tests; {describe(outcome, config)}",
        file=sys.stderr,
    )
    return EXIT_PASSED if outcome.passed else EXIT_POLICY


def _publish(
    inputs: Environment, args: argparse.Namespace, body: str, marker: str, create: bool
) -> dict[str, str]:
    """Post or update the sticky comment; returns the ``comment-action`` and ``comment-url`` outputs."""
    pr = inputs.pull_request
    if pr.from_fork and pr.event_name == "pull_request":
        print(
            f"{PROG}: #{pr.number} comes from a fork, and GitHub gives such runs a read-only token: the "
            "result is in the job summary only (see docs/ci.md for pull_request_target)",
            file=sys.stderr,
        )
        return {"comment-action": "summary-only"}
    client = GitHub(
        inputs.api_url, inputs.token or "", timeout=args.timeout, retries=args.retries, backoff=args.backoff
    )
    action, comment = sticky_comment(client, pr.repository, pr.number, body, marker, create=create)
    if action == "skipped":
        print(f"{PROG}: no code symbol changed and no earlier comment: not commenting", file=sys.stderr)
        return {"comment-action": action}
    url = str(comment.get("html_url") or "")
    print(f"{PROG}: {action} comment {url or comment.get('id')}", file=sys.stderr)
    return {"comment-action": action, "comment-url": url}


def _append_summary(inputs: Environment, body: str) -> None:
    """Append the comment to the job summary (GITHUB_STEP_SUMMARY), when the job has one."""
    if not inputs.summary_path:
        return
    try:
        with open(inputs.summary_path, "a", encoding="utf-8") as summary:
            summary.write(body + "\n")
    except OSError as exc:
        raise MnemoError(
            f"cannot write the job summary GITHUB_STEP_SUMMARY={inputs.summary_path}: {exc.strerror}"
        ) from exc
