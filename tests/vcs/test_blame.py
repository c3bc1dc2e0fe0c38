"""Tests for mnemo_core/vcs/blame.py: the incremental parser on captured output, then real blames."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.vcs.blame import (
    NOT_COMMITTED_AUTHOR,
    Blame,
    blame_files,
    blame_lines,
    churn_in_ranges,
    clear_blame_cache,
    newest_commit_in_ranges,
    parse_incremental,
)
from mnemo_core.vcs.cache import TwoLevelCache
from mnemo_core.vcs.git import GitError
from mnemo_core.vcs.history import UNCOMMITTED_SHA

# `git blame --incremental HEAD -- 'new "name".py'` of a real repository: Bob renamed the file and
# rewrote line 3; Ada's first commit owns lines 1-2 and 4-5. Ada's headers come once, with lines
# 1-2; her second group (lines 4-5) carries only the sha line and `filename`.
CAPTURED = (
    b"4b42fdcd50684982678aa2cdaad432859314b373 3 3 1\n"
    b"author Bob\n"
    b"author-mail <bob@example.com>\n"
    b"author-time 1769904000\n"
    b"author-tz +0000\n"
    b"committer Ada\n"
    b"committer-mail <ada@example.com>\n"
    b"committer-time 1769904000\n"
    b"committer-tz +0000\n"
    b"summary rename, edit line 3\n"
    b"previous 26bece83bdd1a6d4d82388664ad466b0fe4fa4a9 old name.py\n"
    b'filename "new \\"name\\".py"\n'
    b"26bece83bdd1a6d4d82388664ad466b0fe4fa4a9 1 1 2\n"
    b"author Ada\n"
    b"author-mail <ada@example.com>\n"
    b"author-time 1767225600\n"
    b"author-tz +0000\n"
    b"committer Ada\n"
    b"committer-mail <ada@example.com>\n"
    b"committer-time 1767225600\n"
    b"committer-tz +0000\n"
    b"summary first\n"
    b"boundary\n"
    b"filename old name.py\n"
    b"26bece83bdd1a6d4d82388664ad466b0fe4fa4a9 4 4 2\n"
    b"filename old name.py\n"
)
BOB_SHA = "4b42fdcd50684982678aa2cdaad432859314b373"
ADA_SHA = "26bece83bdd1a6d4d82388664ad466b0fe4fa4a9"


def test_parse_captured_blame_reuses_headers_seen_once() -> None:
    blame = parse_incremental(CAPTURED)
    assert [line.commit.sha for line in blame] == [ADA_SHA, ADA_SHA, BOB_SHA, ADA_SHA, ADA_SHA]
    first, third, fourth = blame[0], blame[2], blame[3]
    assert fourth.commit is first.commit  # the later group has no headers of its own
    assert (fourth.commit.author, fourth.commit.author_email, fourth.commit.time, fourth.commit.summary) == (
        "Ada",
        "ada@example.com",
        1767225600,
        "first",
    )
    assert fourth.boundary and fourth.path == "old name.py" and fourth.previous is None
    assert (third.commit.author, third.path, third.previous, third.boundary) == (
        "Bob",
        'new "name".py',
        ADA_SHA,
        False,
    )


@pytest.mark.parametrize(
    "broken",
    [
        CAPTURED.replace(f"{ADA_SHA} 1 1 2".encode(), f"{ADA_SHA} 1 1 1".encode()),  # line 2 unattributed
        b"26bece83bdd1a6d4d82388664ad466b0fe4fa4a9 1 1 2\nfilename x.py\n",  # a sha never described
        b"not a group header\nfilename x.py\n",
    ],
)
def test_malformed_blame_output_is_a_clear_error(broken: bytes) -> None:
    with pytest.raises(GitError, match="unexpected output from git blame --incremental"):
        parse_incremental(broken)


def test_empty_file_has_no_lines() -> None:
    assert parse_incremental(b"") == ()


NOW = datetime.fromisoformat("2026-04-01T00:00:00+00:00").timestamp()  # 90-day window from 2026-01-01
ADA = ("Ada Tester", "ada@example.com")
BOB = ("Bob Builder", "bob@example.com")
CY = ("C\u00e9line Yu", "cy@example.com")
PATH = "pkg/mod \u00e9.py"


@pytest.fixture(autouse=True)
def _fresh_memory_cache() -> Iterator[None]:
    """Identical test repositories have identical shas: keep one test's blames from serving another."""
    clear_blame_cache()
    yield
    clear_blame_cache()


def _lines(**changes: str) -> str:
    text = {n: f"line {n}" for n in range(1, 9)}
    text.update({int(k[1:]): v for k, v in changes.items()})
    return "".join(f"{text[n]}\n" for n in range(1, 9))


def _blame_repo(repo: Path) -> dict[str, str]:
    """Eight lines: c1 writes them all, c2 rewrites 2 and 6, c3 rewrites 3, c4 rewrites 6 again."""
    make_repo(repo)
    return {
        "c1": commit(repo, {PATH: _lines()}, "c1", date="2025-06-01T00:00:00Z", author=ADA),
        "c2": commit(repo, {PATH: _lines(l2="two", l6="six")}, "c2", date="2026-01-20T00:00:00Z", author=BOB),
        "c3": commit(
            repo, {PATH: _lines(l2="two", l3="three", l6="six")}, "c3", date="2026-03-01T00:00:00Z", author=CY
        ),
        "c4": commit(
            repo,
            {PATH: _lines(l2="two", l3="three", l6="SIX")},
            "c4",
            date="2026-03-15T00:00:00Z",
            author=ADA,
        ),
    }


def _owners(blame: Blame, shas: dict[str, str]) -> list[str]:
    """The test's name for the commit of each line."""
    names = {sha: name for name, sha in shas.items()}
    return [names.get(line.commit.sha, line.commit.sha) for line in blame]


def test_blame_at_head(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    blame = blame_lines(tmp_path, PATH, "HEAD")
    assert _owners(blame, shas) == ["c1", "c2", "c3", "c1", "c1", "c4", "c1", "c1"]
    assert blame[1].commit.author == BOB[0] and blame[2].commit.author == CY[0]
    assert blame[0].path == PATH


def test_newest_commit_over_any_line_of_the_ranges(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    blame = blame_lines(tmp_path, PATH, "HEAD")
    assert newest_commit_in_ranges(blame, [(1, 8)]).sha == shas["c4"]  # type: ignore[union-attr]
    assert newest_commit_in_ranges(blame, [(1, 5)]).sha == shas["c3"]  # type: ignore[union-attr]
    assert newest_commit_in_ranges(blame, [(1, 1)]).sha == shas["c1"]  # type: ignore[union-attr]
    # the first line is c1's, but a later line of the span is c2's: the span's recency is c2
    assert newest_commit_in_ranges(blame, [(1, 2), (7, 8)]).sha == shas["c2"]  # type: ignore[union-attr]
    assert newest_commit_in_ranges(blame, [(7, 40)]).sha == shas["c1"]  # type: ignore[union-attr]
    assert newest_commit_in_ranges(blame, [(20, 30)]) is None


def test_churn_counts_distinct_commits_inside_the_window(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    blame = blame_lines(tmp_path, PATH, "HEAD")
    assert churn_in_ranges(blame, [(1, 8)], now=NOW) == 3  # c2, c3, c4; c1 is older than 90 days
    assert churn_in_ranges(blame, [(2, 3), (6, 6)], now=NOW) == 3
    assert churn_in_ranges(blame, [(2, 2), (6, 6)], now=NOW) == 2
    assert churn_in_ranges(blame, [(4, 5)], now=NOW) == 0
    assert churn_in_ranges(blame, [(1, 8)], now=NOW, window_days=365) == 4
    assert churn_in_ranges(blame, [(1, 8)], now=NOW + 365 * 86400) == 0


def test_blame_at_an_older_revision(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    blame = blame_lines(tmp_path, PATH, shas["c2"])
    assert _owners(blame, shas) == ["c1", "c2", "c1", "c1", "c1", "c2", "c1", "c1"]


def test_working_tree_lines_not_committed_yet(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    (tmp_path / PATH).write_text(
        _lines(l2="two", l3="three", l4="four (edited)", l6="SIX") + "line 9\n", encoding="utf-8"
    )
    blame = blame_lines(tmp_path, PATH)
    assert len(blame) == 9
    assert [n for n, line in enumerate(blame, 1) if line.commit.uncommitted] == [4, 9]
    assert blame[3].commit.sha == UNCOMMITTED_SHA and blame[3].commit.author == NOT_COMMITTED_AUTHOR
    assert blame[5].commit.sha == shas["c4"]
    assert newest_commit_in_ranges(blame, [(3, 5)]).uncommitted  # type: ignore[union-attr]
    assert churn_in_ranges(blame, [(1, 9)], now=NOW) == 3  # uncommitted edits are no commit


def test_untracked_and_empty_repository_files_are_all_uncommitted(tmp_path: Path) -> None:
    _blame_repo(tmp_path / "repo")
    (tmp_path / "repo" / "new.py").write_text("a\nb\n", encoding="utf-8")
    assert [line.commit.uncommitted for line in blame_lines(tmp_path / "repo", "new.py")] == [True, True]
    empty = make_repo(tmp_path / "empty")
    (empty / "x.py").write_text("a\nb\nc", encoding="utf-8")
    blame = blame_lines(empty, "x.py")
    assert len(blame) == 3 and all(line.commit.author == NOT_COMMITTED_AUTHOR for line in blame)


def test_renamed_working_tree_file_not_in_head(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    git(tmp_path, "mv", PATH, "pkg/moved.py")
    assert all(line.commit.uncommitted for line in blame_lines(tmp_path, "pkg/moved.py"))


def test_blame_follows_a_committed_rename(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    git(tmp_path, "mv", PATH, "pkg/moved.py")
    moved = commit(
        tmp_path,
        {"pkg/moved.py": _lines(l2="two", l3="three", l6="SIX", l8="eight")},
        "move",
        date="2026-03-20T00:00:00Z",
        author=BOB,
    )
    blame = blame_lines(tmp_path, "pkg/moved.py", "HEAD")
    assert blame[0].commit.sha == shas["c1"] and blame[0].path == PATH
    assert blame[7].commit.sha == moved and blame[7].path == "pkg/moved.py"


def test_missing_paths_are_clear_errors(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    with pytest.raises(GitError, match=r"'nope\.py' does not exist at HEAD"):
        blame_lines(tmp_path, "nope.py", "HEAD")
    with pytest.raises(GitError, match=r"cannot read 'nope\.py' in the working tree"):
        blame_lines(tmp_path, "nope.py")


def test_an_amended_commit_is_not_served_from_the_cache(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    assert blame_lines(tmp_path, PATH, "HEAD")[5].commit.sha == shas["c4"]
    git(
        tmp_path,
        "commit",
        "-q",
        "--amend",
        "-m",
        "c4 reworded",
        env={"GIT_AUTHOR_DATE": "2026-03-16T00:00:00Z", "GIT_COMMITTER_DATE": "2026-03-16T00:00:00Z"},
    )
    amended = git(tmp_path, "rev-parse", "HEAD").strip()  # same file content, same blob, new commit
    assert amended != shas["c4"]
    assert blame_lines(tmp_path, PATH, "HEAD")[5].commit.sha == amended


def test_committing_the_working_tree_refreshes_its_blame(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    edited = _lines(l1="one", l2="two", l3="three", l6="SIX")
    (tmp_path / PATH).write_text(edited, encoding="utf-8")
    assert blame_lines(tmp_path, PATH)[0].commit.uncommitted
    c5 = commit(tmp_path, {PATH: edited}, "c5", date="2026-03-30T00:00:00Z")
    assert blame_lines(tmp_path, PATH)[0].commit.sha == c5  # same bytes on disk, now committed


def _cache_files(repo: Path) -> list[Path]:
    return sorted((repo / ".mnemo" / "blame").rglob("*.json"))


def test_disk_cache_is_used_when_the_repository_has_a_mnemo_directory(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    blame_lines(tmp_path, PATH, "HEAD")
    assert not (tmp_path / ".mnemo").exists()  # no index here: nothing written
    (tmp_path / ".mnemo").mkdir()
    clear_blame_cache()
    expected = blame_lines(tmp_path, PATH, "HEAD")
    [cached] = _cache_files(tmp_path)
    clear_blame_cache()
    assert blame_lines(tmp_path, PATH, "HEAD") == expected  # the file round-trips
    record = json.loads(cached.read_text(encoding="utf-8"))
    record["value"]["records"][0][1] = "Someone From Disk"
    cached.write_text(json.dumps(record), encoding="utf-8")
    clear_blame_cache()
    from_disk = blame_lines(tmp_path, PATH, "HEAD")
    assert from_disk[0].commit.author == "Someone From Disk"  # it really came from the file
    cached.write_text("{not json", encoding="utf-8")
    clear_blame_cache()
    assert blame_lines(tmp_path, PATH, "HEAD") == expected  # a corrupt file is only a miss


def _last_change_file(repo: Path, sha: str, path: str) -> Path:
    return TwoLevelCache.path_for(f"{sha}:{path}", repo / ".mnemo" / "lastchange")


def test_the_newest_commit_of_a_path_is_read_back_from_disk_by_commit(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    (tmp_path / ".mnemo").mkdir()
    assert _owners(blame_lines(tmp_path, PATH, "HEAD"), shas)[5] == "c4"
    kept = _last_change_file(tmp_path, shas["c4"], PATH)
    record = json.loads(kept.read_text(encoding="utf-8"))
    assert record["value"] == shas["c4"]
    record["value"] = shas["c2"]  # as if c2 were the newest commit of the path at HEAD
    kept.write_text(json.dumps(record), encoding="utf-8")
    for blame in _cache_files(tmp_path):
        blame.unlink()
    clear_blame_cache()  # a later process: what is on disk answers
    assert _owners(blame_lines(tmp_path, PATH, "HEAD"), shas)[5] == "c2"
    (tmp_path / ".git" / "info" / "exclude").write_text(".mnemo/\n", encoding="utf-8")
    c5 = commit(tmp_path, {PATH: _lines(l2="two", l3="three", l6="6")}, "c5", date="2026-03-20T00:00:00Z")
    clear_blame_cache()  # a new HEAD is another key: the path's newest commit is found again
    assert _owners(blame_lines(tmp_path, PATH, "HEAD"), {**shas, "c5": c5})[5] == "c5"
    assert json.loads(_last_change_file(tmp_path, c5, PATH).read_text(encoding="utf-8"))["value"] == c5


def test_a_commit_that_leaves_a_path_as_it_was_takes_its_newest_commit_from_its_parent(
    tmp_path: Path,
) -> None:
    """rev-list passes over a commit of one parent that leaves the path as it was: the parent's
    kept answer is the commit's, so a commit made since the last question walks no history for the
    paths it did not change (the parent's entry swapped for c2 shows it was read), and one that
    changes the path is walked anew."""
    shas = _blame_repo(tmp_path)
    (tmp_path / ".mnemo").mkdir()
    (tmp_path / ".git" / "info" / "exclude").write_text(".mnemo/\n", encoding="utf-8")
    blame_lines(tmp_path, PATH, "HEAD")
    kept = _last_change_file(tmp_path, shas["c4"], PATH)
    record = json.loads(kept.read_text(encoding="utf-8"))
    record["value"] = shas["c2"]
    kept.write_text(json.dumps(record), encoding="utf-8")
    c5 = commit(tmp_path, {"other.py": "x = 1\n"}, "c5", date="2026-03-20T00:00:00Z")
    clear_blame_cache()  # a later process
    assert _owners(blame_lines(tmp_path, PATH, "HEAD"), shas)[5] == "c2"
    inherited = json.loads(_last_change_file(tmp_path, c5, PATH).read_text(encoding="utf-8"))
    assert inherited["value"] == shas["c2"]
    c6 = commit(tmp_path, {PATH: _lines(l2="two", l3="three", l6="6")}, "c6", date="2026-03-21T00:00:00Z")
    clear_blame_cache()
    assert _owners(blame_lines(tmp_path, PATH, "HEAD"), {**shas, "c6": c6})[5] == "c6"


def test_a_shallow_clone_keeps_the_newest_commits_of_paths_in_memory_only(tmp_path: Path) -> None:
    _blame_repo(tmp_path / "origin")
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{tmp_path / 'origin'}", "shallow")
    shallow = tmp_path / "shallow"
    (shallow / ".mnemo").mkdir()
    blame_lines(shallow, PATH, "HEAD")
    assert _cache_files(shallow)  # the blame itself is kept, as before
    assert not (shallow / ".mnemo" / "lastchange").exists()  # deepening the clone would move it


def test_uncommitted_blames_stay_in_memory(tmp_path: Path) -> None:
    _blame_repo(tmp_path)
    (tmp_path / ".mnemo").mkdir()
    blame_lines(tmp_path, PATH)
    assert len(_cache_files(tmp_path)) == 1  # a clean working-tree file is as good as HEAD's
    (tmp_path / PATH).write_text(_lines(l1="edited"), encoding="utf-8")
    blame_lines(tmp_path, PATH)
    blame_lines(tmp_path, PATH, "HEAD", disk_cache=False)
    assert len(_cache_files(tmp_path)) == 1


def test_blame_files_matches_blame_lines_and_skips_what_cannot_be_blamed(tmp_path: Path) -> None:
    shas = _blame_repo(tmp_path)
    commit(tmp_path, {"other.py": "o\n", "third.py": "t\nt\n"}, "more", date="2026-03-31T00:00:00Z")
    together = blame_files(tmp_path, [PATH, "other.py", "nope.py", "third.py"], "HEAD")
    assert set(together) == {PATH, "other.py", "third.py"}
    clear_blame_cache()
    assert together == {path: blame_lines(tmp_path, path, "HEAD") for path in together}
    at_c4 = blame_files(tmp_path, [PATH, "other.py"], shas["c4"])
    assert list(at_c4) == [PATH]
