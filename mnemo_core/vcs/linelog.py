"""The commits that changed a range of lines: ``git log -L``, newest first.

git follows the range back through every commit that touched it, across renames of the file. Each
commit comes with its author, author time, subject, the path the lines had then, and the pull
request number its subject names (``Fix x (#123)`` from a squash merge, ``Merge pull request #123
from ...``). The patch git prints for each commit is read only for that path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.defaults import DEFAULT_HISTORY
from mnemo_core.vcs.git import decode_path, run_git

DEFAULT_LIMIT = DEFAULT_HISTORY
_FIELDS = "%x00%H%x1f%an%x1f%ae%x1f%at%x1f%s"
_PR = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)\b")
_NEW_PATH = re.compile(rb"^\+\+\+ b/(.*)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RangeCommit:
    """A commit that changed the lines."""

    sha: str
    author: str
    author_email: str
    time: int  # author time, Unix seconds
    subject: str
    path: str  # where the lines were in that commit
    pull_request: int | None


def range_history(
    root: Path, path: str, start: int, end: int, rev: str = "HEAD", limit: int = DEFAULT_LIMIT
) -> list[RangeCommit]:
    """The commits reachable from ``rev`` that changed lines ``start``-``end`` of ``path`` (as the
    file is at ``rev``), newest first, at most ``limit``."""
    spec = f"-L{start},{end}:{path}"
    out = run_git(
        root, "log", f"--max-count={limit}", "--no-ext-diff", f"--format={_FIELDS}", spec, rev, "--"
    )
    return [c for c in (_commit(record, path) for record in out.split(b"\x00")[1:]) if c is not None]


def pull_request_of(subject: str) -> int | None:
    """The pull request number a commit subject names, if any."""
    match = _PR.search(subject)
    return int(match.group(1) or match.group(2)) if match else None


def _commit(record: bytes, fallback_path: str) -> RangeCommit | None:
    head, _, patch = record.partition(b"\n")
    fields = head.decode("utf-8", "replace").split("\x1f")
    if len(fields) != 5:
        return None
    sha, author, email, time, subject = fields
    paths = _NEW_PATH.findall(patch)
    path = decode_path(paths[0]) if paths else fallback_path
    return RangeCommit(sha, author, email, int(time), subject, path, pull_request_of(subject))
