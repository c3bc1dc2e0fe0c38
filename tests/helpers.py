"""Builders shared by the tests: throwaway git repositories with pinned authors and dates."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

DEFAULT_DATE = "2026-01-01T12:00:00+00:00"
AUTHOR = ("Ada Tester", "ada@example.com")


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git in ``repo`` with a clean, pinned environment; return stdout."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    full_env.update({
        "GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1],
        "GIT_COMMITTER_NAME": AUTHOR[0], "GIT_COMMITTER_EMAIL": AUTHOR[1],
        "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo),
    })
    full_env.update(env or {})
    result = subprocess.run(["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, check=True)
    return result.stdout


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Write files (text or bytes) under ``root``, creating directories."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def make_repo(root: Path, files: Mapping[str, str | bytes] | None = None, date: str = DEFAULT_DATE) -> Path:
    """A git repository at ``root`` on branch main, with one commit of ``files`` when given."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", AUTHOR[0])
    git(root, "config", "user.email", AUTHOR[1])
    git(root, "config", "commit.gpgsign", "false")
    if files:
        commit(root, files, "initial commit", date=date)
    return root


def commit(repo: Path, files: Mapping[str, str | bytes | None], message: str, date: str = DEFAULT_DATE,
           author: tuple[str, str] = AUTHOR) -> str:
    """Write (or delete, for None) files, commit them at ``date`` and return the new sha."""
    for rel, content in files.items():
        if content is None:
            (repo / rel).unlink()
        else:
            write_files(repo, {rel: content})
    git(repo, "add", "-A")
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]}
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()
