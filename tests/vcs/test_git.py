"""Tests for mnemo_core/vcs/git.py: the environment, the error messages and path unquoting."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.errors import MnemoError
from mnemo_core.vcs.git import (
    NotARepositoryError,
    head_commit,
    repo_toplevel,
    require_toplevel,
    run_git,
    unquote_path,
    untracked_files,
)


@pytest.mark.parametrize(
    ("printed", "path"),
    [
        (b"plain.py", "plain.py"),
        (b"with space.py", "with space.py"),
        ("caf\u00e9.py".encode(), "caf\u00e9.py"),
        (b'"tab\\t\\"x\\".txt"', 'tab\t"x".txt'),
        (b'"back\\\\slash"', "back\\slash"),
        (b'"caf\\303\\251 \\n.py"', "caf\u00e9 \n.py"),
    ],
)
def test_unquote_path_reverses_git_quoting(printed: bytes, path: str) -> None:
    assert unquote_path(printed) == path


def test_outside_a_repository_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError, match="is not inside a git repository") as info:
        run_git(tmp_path, "rev-parse", "HEAD")
    assert isinstance(info.value, MnemoError)


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError, match="does not exist"):
        run_git(tmp_path / "nope", "status")


def test_other_failures_carry_git_first_line_and_stderr(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    with pytest.raises(MnemoError, match="git cat-file failed: fatal: ") as info:
        run_git(repo, "cat-file", "-p", "HEAD:missing")
    assert "missing" in info.value.stderr  # type: ignore[attr-defined]


def test_inherited_git_dir_does_not_redirect_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = make_repo(tmp_path / "ours", {"a.txt": "a\n"})
    ours_head = commit(ours, {"c.txt": "c\n"}, "second")
    other = make_repo(tmp_path / "other", {"b.txt": "b\n"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    assert head_commit(ours) == ours_head


def test_toplevel_from_a_subdirectory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"pkg/mod.py": "x = 1\n"})
    assert require_toplevel(repo / "pkg") == repo.resolve()


def test_untracked_files_skip_ignored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {".gitignore": "*.log\n"})
    (repo / "new file \u00e9.py").write_text("x\n", encoding="utf-8")
    (repo / "debug.log").write_text("noise\n", encoding="utf-8")
    assert untracked_files(repo) == ["new file \u00e9.py"]


def test_lookups_answer_none_outside_a_repository(tmp_path: Path) -> None:
    assert head_commit(tmp_path) is None
    assert repo_toplevel(tmp_path) is None


def test_a_hooks_temporary_index_of_the_same_repository_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git commit -a`` runs the hooks with GIT_INDEX_FILE naming a temporary index: that is the commit."""
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n"})
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    temporary = repo / ".git" / "next-index-1.lock"
    shutil.copy(repo / ".git" / "index", temporary)
    git(repo, "add", "a.txt", env={"GIT_INDEX_FILE": str(temporary)})
    monkeypatch.setenv("GIT_INDEX_FILE", str(temporary))
    assert run_git(repo, "diff", "--cached", "--name-only") == b"a.txt\n"
    monkeypatch.setenv("GIT_INDEX_FILE", ".git/index")
    monkeypatch.chdir(repo)
    assert run_git(repo, "diff", "--cached", "--name-only") == b""


def test_head_read_from_files_agrees_with_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    second = commit(repo, {"a.py": "x = 2\n"}, "second")
    assert head_commit(repo) == second
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists() and head_commit(repo) == second
    git(repo, "checkout", "-q", "HEAD~1")
    assert head_commit(repo) == git(repo, "rev-parse", "HEAD").strip() != second
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    third = commit(tmp_path / "wt", {"b.py": "y = 1\n"}, "third")
    assert head_commit(tmp_path / "wt") == third and head_commit(repo) == second
    assert head_commit(make_repo(tmp_path / "empty")) is None
