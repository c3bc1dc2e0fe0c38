"""What GitHub Actions tells the job: the pull request (from ``GITHUB_EVENT_PATH``) and the API.

Each missing or malformed input is a MnemoError that names the variable, so a misconfigured
workflow fails with one line that says what to set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mnemo_core.errors import MnemoError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
PR_EVENTS = ("pull_request", "pull_request_target")
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass(frozen=True, slots=True)
class PullRequest:
    """The pull request a workflow run is about."""

    number: int
    base_sha: str
    head_sha: str
    repository: str  # owner/name of the repository the pull request targets
    from_fork: bool  # the head branch lives in another repository
    event_name: str


@dataclass(frozen=True, slots=True)
class Environment:
    """The workflow's inputs: the pull request, where the API is, and the token (absent in a dry run)."""

    pull_request: PullRequest
    api_url: str
    server_url: str
    token: str | None = field(repr=False)
    summary_path: str | None  # GITHUB_STEP_SUMMARY: the job summary file to append to
    output_path: str | None = None  # GITHUB_OUTPUT: the step outputs file to append to
    in_actions: bool = False  # GITHUB_ACTIONS=true: workflow commands (annotations) are read from stdout


def read_environment(env: Mapping[str, str], need_token: bool) -> Environment:
    """The inputs from the environment; MnemoError naming every missing variable."""
    required = ["GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", *(["GITHUB_TOKEN"] if need_token else [])]
    missing = [name for name in required if not env.get(name)]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise MnemoError(
            f"missing environment variable{plural} {', '.join(missing)}: mnemo-ci runs in a "
            "GitHub Actions job on a pull request (the token is passed with "
            "`env: GITHUB_TOKEN: ${{ github.token }}`); use --dry-run to only print the comment"
        )
    repository = env["GITHUB_REPOSITORY"]
    if not _REPOSITORY.match(repository):
        raise MnemoError(f"GITHUB_REPOSITORY must be OWNER/NAME (got {repository!r})")
    event_name = env.get("GITHUB_EVENT_NAME", "pull_request")
    pull_request = parse_event(_load(env["GITHUB_EVENT_PATH"]), event_name, repository)
    return Environment(
        pull_request,
        env.get("GITHUB_API_URL") or DEFAULT_API_URL,
        env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL,
        env.get("GITHUB_TOKEN") or None,
        env.get("GITHUB_STEP_SUMMARY") or None,
        env.get("GITHUB_OUTPUT") or None,
        env.get("GITHUB_ACTIONS") == "true",
    )


def _load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise MnemoError(f"cannot read the event file GITHUB_EVENT_PATH={path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise MnemoError(f"the event file GITHUB_EVENT_PATH={path} is not JSON: {exc}") from exc


def parse_event(event: Any, event_name: str, repository: str) -> PullRequest:
    """The pull request of a ``pull_request`` or ``pull_request_target`` event payload."""
    pr = event.get("pull_request") if isinstance(event, dict) else None
    if event_name not in PR_EVENTS or not isinstance(pr, dict):
        raise MnemoError(
            f"this is a '{event_name}' event, not a pull request: run mnemo-ci on "
            "`pull_request` events (see docs/ci.md), or `mnemo pr --format markdown` elsewhere"
        )
    try:
        number, base, head = int(pr["number"]), pr["base"], pr["head"]
        base_sha, head_sha = str(base["sha"]), str(head["sha"])
    except (KeyError, TypeError, ValueError) as exc:
        raise MnemoError(f"the pull_request event lacks its number or base and head shas ({exc})") from exc
    for name, sha in (("base", base_sha), ("head", head_sha)):
        if not _SHA.match(sha):
            raise MnemoError(f"the pull_request event's {name} sha is not a commit id: {sha[:80]!r}")
    head_repo = ((head.get("repo") or {}).get("full_name")) if isinstance(head, dict) else None
    base_repo = ((base.get("repo") or {}).get("full_name")) if isinstance(base, dict) else None
    return PullRequest(
        number, base_sha, head_sha, repository, bool(head_repo and head_repo != base_repo), event_name
    )
