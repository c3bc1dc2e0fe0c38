"""Tests for mnemo_core/vcs/refs.py on real throwaway repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.vcs.git import NotARepositoryError
from mnemo_core.vcs.refs import (
    EmptyRepositoryError,
    NoBaseError,
    ShallowCloneError,
    UnknownRefError,
    default_base,
    head_state,
    merge_base,
    ref_names,
    resolve_range,
    resolve_ref,
)


def _feature_repo(root: Path) -> dict[str, str]:
    """main: A - B; feature (from A): C - D. Returns the shas by letter."""
    make_repo(root)
    shas = {"A": commit(root, {"app.py": "a = 1\n"}, "A", date="2026-01-01T00:00:00+00:00")}
    git(root, "checkout", "-q", "-b", "feature")
    shas["C"] = commit(root, {"feature.py": "c = 1\n"}, "C", date="2026-01-02T00:00:00+00:00")
    shas["D"] = commit(root, {"feature.py": "c = 2\n"}, "D", date="2026-01-03T00:00:00+00:00")
    git(root, "checkout", "-q", "main")
    shas["B"] = commit(root, {"app.py": "a = 2\n"}, "B", date="2026-01-04T00:00:00+00:00")
    git(root, "checkout", "-q", "feature")
    return shas


def test_resolves_branches_tags_shas_and_ancestry(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path)
    git(tmp_path, "tag", "-a", "-m", "release", "v1.0", shas["C"])
    assert resolve_ref(tmp_path, "main") == shas["B"]
    assert resolve_ref(tmp_path, "v1.0") == shas["C"]  # an annotated tag peels to its commit
    assert resolve_ref(tmp_path, shas["D"][:8]) == shas["D"]
    assert resolve_ref(tmp_path, "HEAD~1") == shas["C"]


def test_unknown_ref_suggests_close_branch_names(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path)
    for branch in ("fix/login-form", "fix/logout-form", "release"):
        git(tmp_path, "branch", branch, shas["A"])
    with pytest.raises(UnknownRefError) as info:
        resolve_ref(tmp_path, "fix/login-from")
    message = str(info.value)
    assert message.startswith(
        "unknown ref 'fix/login-from'; close branch names: fix/login-form, fix/logout-form"
    )
    assert "release" not in message


def test_unknown_ref_without_similar_names_says_so(tmp_path: Path) -> None:
    _feature_repo(tmp_path)
    with pytest.raises(UnknownRefError, match="unknown ref 'zzzzqqq'; no branch or tag has a similar name"):
        resolve_ref(tmp_path, "zzzzqqq")


def test_ancestry_past_the_root_is_explained(tmp_path: Path) -> None:
    _feature_repo(tmp_path)
    with pytest.raises(UnknownRefError, match="no such commit"):
        resolve_ref(tmp_path, "HEAD~40")


def test_non_commit_objects_and_option_like_names_are_refused(tmp_path: Path) -> None:
    _feature_repo(tmp_path)
    with pytest.raises(UnknownRefError, match=r"'HEAD:app\.py' names a blob, not a commit"):
        resolve_ref(tmp_path, "HEAD:app.py")
    with pytest.raises(UnknownRefError, match="not a valid ref name"):
        resolve_ref(tmp_path, "--output=/tmp/x")


def test_ref_names_cover_local_remote_and_tags_without_symbolic_heads(tmp_path: Path) -> None:
    _feature_repo(tmp_path / "src")
    git(tmp_path / "src", "checkout", "-q", "main")
    git(tmp_path / "src", "tag", "v2")
    git(tmp_path, "clone", "-q", "file://" + str(tmp_path / "src"), "clone")
    names = ref_names(tmp_path / "clone")
    assert {"main", "origin/main", "origin/feature", "v2"} <= set(names)
    assert "origin/HEAD" not in names and "origin" not in names


def test_empty_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    state = head_state(repo)
    assert state.unborn and not state.detached and state.branch == "main"
    with pytest.raises(EmptyRepositoryError, match="no commits yet"):
        resolve_ref(repo, "HEAD")
    with pytest.raises(EmptyRepositoryError):
        resolve_ref(repo, "main")
    with pytest.raises(EmptyRepositoryError):
        default_base(repo)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError, match="not inside a git repository"):
        resolve_ref(tmp_path, "HEAD")
    with pytest.raises(NotARepositoryError):
        default_base(tmp_path)


def test_detached_head_still_finds_a_base(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path)
    git(tmp_path, "checkout", "-q", "--detach", shas["D"])
    state = head_state(tmp_path)
    assert state.detached and state.branch is None and state.sha == shas["D"]
    assert default_base(tmp_path) == ("main", shas["A"])
    assert resolve_ref(tmp_path, "HEAD") == shas["D"]


def test_default_base_local_main_is_the_fork_point(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path)
    base = default_base(tmp_path)
    assert base.name == "main" and base.merge_base == shas["A"]


def test_default_base_falls_back_to_master(tmp_path: Path) -> None:
    make_repo(tmp_path)
    git(tmp_path, "checkout", "-q", "-b", "master")
    first = commit(tmp_path, {"a": "1\n"}, "one")
    git(tmp_path, "checkout", "-q", "-b", "topic")
    commit(tmp_path, {"a": "2\n"}, "two")
    assert default_base(tmp_path) == ("master", first)


def _clone(tmp_path: Path, *args: str) -> Path:
    git(tmp_path, "clone", "-q", *args, "file://" + str(tmp_path / "src"), "clone")
    return tmp_path / "clone"


def test_default_base_prefers_origin_head(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path / "src")
    git(tmp_path / "src", "checkout", "-q", "main")
    clone = _clone(tmp_path)
    git(clone, "checkout", "-q", "--no-track", "-b", "work", "origin/feature")
    git(clone, "branch", "-q", "-f", "main", "origin/feature")  # a stale local main must not win
    assert default_base(clone) == ("origin/main", shas["A"])


def test_upstream_naming_another_branch_is_the_base(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path / "src")
    git(tmp_path / "src", "checkout", "-q", "main")
    clone = _clone(tmp_path)
    git(clone, "checkout", "-q", "-b", "fix", "origin/feature")
    git(clone, "branch", "-q", "--set-upstream-to=origin/feature")
    commit(clone, {"fix.py": "f = 1\n"}, "fix")
    assert default_base(clone) == ("origin/feature", shas["D"])


def test_the_branch_own_remote_copy_goes_last(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path / "src")  # the source's HEAD is feature, so origin/HEAD is too
    clone = _clone(tmp_path)
    assert head_state(clone).branch == "feature"  # tracking origin/feature: where it is pushed, not merged
    assert default_base(clone) == ("origin/main", shas["A"])


def test_on_main_the_base_is_origin_main(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path / "src")
    git(tmp_path / "src", "checkout", "-q", "main")
    clone = _clone(tmp_path)
    commit(clone, {"app.py": "a = 3\n"}, "unpushed")
    assert default_base(clone) == ("origin/main", shas["B"])  # the unpushed commits


def test_no_base_candidate_is_a_clear_error(tmp_path: Path) -> None:
    make_repo(tmp_path)
    git(tmp_path, "checkout", "-q", "-b", "trunk")
    commit(tmp_path, {"a": "1\n"}, "one")
    with pytest.raises(NoBaseError, match=r"no base branch found.*name the base ref explicitly"):
        default_base(tmp_path)


def test_unrelated_histories_have_no_merge_base(tmp_path: Path) -> None:
    _feature_repo(tmp_path)
    git(tmp_path, "checkout", "-q", "--orphan", "other")
    commit(tmp_path, {"z.txt": "z\n"}, "orphan root")
    with pytest.raises(NoBaseError, match="no common history"):
        merge_base(tmp_path, "main", "other")


def test_shallow_clone_missing_the_base_commit(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path / "src")
    clone = _clone(tmp_path, "--depth", "1")
    with pytest.raises(ShallowCloneError) as info:
        resolve_ref(clone, shas["A"])
    message = str(info.value)
    assert "shallow clone" in message and "git fetch --deepen=N" in message and "fetch-depth: 0" in message
    with pytest.raises(ShallowCloneError, match="shallow clone"):
        resolve_ref(clone, "HEAD~1")


def test_shallow_clone_without_the_merge_base(tmp_path: Path) -> None:
    _feature_repo(tmp_path / "src")
    git(tmp_path / "src", "checkout", "-q", "main")
    clone = _clone(tmp_path, "--depth", "1", "--no-single-branch", "--branch", "feature")
    with pytest.raises(ShallowCloneError, match=r"no common commit in this shallow clone.*fetch-depth: 0"):
        default_base(clone)
    git(clone, "fetch", "-q", "--unshallow")
    assert default_base(clone).name == "origin/main"


def test_shallow_single_branch_clone_explains_missing_branch(tmp_path: Path) -> None:
    _feature_repo(tmp_path / "src")
    clone = _clone(tmp_path, "--depth", "1", "--branch", "feature")
    with pytest.raises(UnknownRefError, match=r"unknown ref 'origin/main'.*git fetch origin main"):
        resolve_ref(clone, "origin/main")


def test_resolve_range_forms(tmp_path: Path) -> None:
    shas = _feature_repo(tmp_path)
    assert resolve_range(tmp_path, "main..feature")[:2] == (shas["B"], shas["D"])
    assert resolve_range(tmp_path, "main...feature")[:2] == (shas["A"], shas["D"])
    assert resolve_range(tmp_path, "main...")[:2] == (shas["A"], shas["D"])
    assert resolve_range(tmp_path, "..main")[:2] == (shas["D"], shas["B"])
    assert resolve_range(tmp_path, "main")[:2] == (shas["A"], shas["D"])
    assert resolve_range(tmp_path, "") == (shas["A"], shas["D"], "main...HEAD")
    with pytest.raises(UnknownRefError, match="close branch names: main"):
        resolve_range(tmp_path, "mian..feature")
