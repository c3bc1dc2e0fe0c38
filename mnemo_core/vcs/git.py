"""Running git: one place that builds the command line, the environment and the error messages.

Every call uses ``-z`` or porcelain output where git offers it, disables external diff drivers and
colour, and strips inherited ``GIT_*`` variables (a pre-commit hook runs with ``GIT_INDEX_FILE``
and friends set, which would make git read the wrong repository).
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

from mnemo_core.errors import MnemoError

_KEEP_GIT_VARS = frozenset({"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                            "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"})


class GitError(MnemoError):
    """git failed; the message carries git's own first line."""


def git_env() -> dict[str, str]:
    """The environment for git: inherited minus repository-selecting ``GIT_*`` variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP_GIT_VARS}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    return env


def run_git(root: Path, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
    """Run ``git -C root args...`` and return its stdout."""
    cmd = ["git", "-C", str(root), "-c", "core.quotepath=off", "-c", "color.ui=never", *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, env=git_env(), input=input_bytes, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH. Install git and try again.") from exc
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[0] if message else f'exit code {proc.returncode}'}")
    return proc.stdout


@lru_cache(maxsize=64)
def repo_toplevel(root: Path) -> Path | None:
    """The top of the git work tree containing ``root``, or None when it is not in one."""
    try:
        out = run_git(root, "rev-parse", "--show-toplevel", check=False)
    except GitError:
        return None
    text = out.decode("utf-8", "replace").strip()
    return Path(text) if text else None


def head_commit(root: Path) -> str | None:
    """The sha of HEAD, or None (not a repository, or no commits yet)."""
    out = run_git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    sha = out.decode().strip()
    return sha or None


def tracked_and_untracked(root: Path) -> list[str]:
    """Files git knows plus untracked files that are not ignored, relative to ``root``."""
    out = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    return sorted({p for p in out.decode("utf-8", "surrogateescape").split("\0") if p})
