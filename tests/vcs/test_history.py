"""Tests for mnemo_core/vcs/history.py: the one-pass file history and relative dates."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.vcs.git import NotARepositoryError
from mnemo_core.vcs.history import CommitInfo, file_history, parse_log, relative_date, summarise

NOW = datetime.fromisoformat("2026-04-01T00:00:00+00:00").timestamp()  # window starts 2026-01-01
ADA = ("Ada Tester", "ada@example.com")
BOB = ("Bob Builder", "bob@example.com")
CY = ("C\u00e9line Yu", "cy@example.com")
C_PATH = "dir/c \u00e9.py"  # non-ASCII and a space

# `git log -z --name-only --format=...` of a real repository: an empty commit (no paths), a path
# with a tab and quotes (printed raw under -z), a plain one.
CAPTURED_LOG = (
    b"\x1e6a9f7b22dd174b0e2b3f266440d965200de5fbfa\x1fA\x1fa@b\x1f1795317664\x1fempty one\x00"
    b"\x1e6438bc839aeab9db5b9f71a90ba46f32503a05cd\x1fA\x1fa@b\x1f1795317078\x1ftabfile\x00\n"
    b'tab\t"x".txt\x00'
    b"\x1e531ac1731caab4357eb669044d29186b59cf43ed\x1fA\x1fa@b\x1f1795317063\x1ftc \x1f odd\x00\nf.txt\x00"
)


def test_parse_captured_log() -> None:
    commits = parse_log(CAPTURED_LOG)
    assert [(c.sha[:7], c.summary, paths) for c, paths in commits] == [
        ("6a9f7b2", "empty one", []),
        ("6438bc8", "tabfile", ['tab\t"x".txt']),
        ("531ac17", "tc \x1f odd", ["f.txt"]),  # the subject is last, so it may hold the separator
    ]
    assert commits[1][0] == CommitInfo("6438bc839aeab9db5b9f71a90ba46f32503a05cd", "A", "a@b", 1795317078,
                                       "tabfile")


def test_summarise_keeps_the_newest_by_author_time() -> None:
    old = CommitInfo("1" * 40, "A", "a", 100, "old")
    new = CommitInfo("2" * 40, "B", "b", 200, "new")
    history = summarise([(old, ["x"]), (new, ["x"])], now=250, window_days=0)
    assert history["x"].last == new and history["x"].recent_commits == 0


def _history_repo(repo: Path) -> dict[str, str]:
    make_repo(repo)
    shas = {
        "c1": commit(repo, {"a.py": "a1\n", "b.py": "b1\n"}, "c1", date="2025-06-01T10:00:00Z", author=ADA),
        "c2": commit(repo, {"a.py": "a2\n"}, "c2", date="2026-01-15T10:00:00Z", author=BOB),
        "c3": commit(repo, {"a.py": "a3\n", C_PATH: "c3\n"}, "c3", date="2026-02-10T10:00:00Z", author=CY),
        "c4": commit(repo, {"b.py": "b4\n"}, "c4", date="2026-03-20T10:00:00Z", author=BOB),
    }
    (repo / C_PATH).write_text("c5\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c5 rebased: old author date, newest commit date", env={
        "GIT_AUTHOR_DATE": "2025-12-01T10:00:00+00:00", "GIT_COMMITTER_DATE": "2026-03-25T10:00:00+00:00"})
    shas["c5"] = git(repo, "rev-parse", "HEAD").strip()
    return shas


def test_file_history_newest_commit_and_recent_count(tmp_path: Path) -> None:
    shas = _history_repo(tmp_path)
    history = file_history(tmp_path, now=NOW)
    assert set(history) == {"a.py", "b.py", C_PATH}
    a, b, c = history["a.py"], history["b.py"], history[C_PATH]
    assert (a.last.sha, a.last.author, a.last.summary, a.recent_commits) == (shas["c3"], CY[0], "c3", 2)
    assert a.last.author_email == CY[1]
    assert a.last.time == int(datetime.fromisoformat("2026-02-10T10:00:00+00:00").timestamp())
    assert (b.last.sha, b.recent_commits) == (shas["c4"], 1)  # c1 is older than 90 days
    assert (c.last.sha, c.recent_commits) == (shas["c3"], 1)  # c5 was authored before c3 and the window


def test_window_is_relative_to_now(tmp_path: Path) -> None:
    _history_repo(tmp_path)
    later = file_history(tmp_path, now=NOW + 365 * 86400)
    assert all(entry.recent_commits == 0 for entry in later.values())
    wide = file_history(tmp_path, now=NOW, window_days=3650)
    assert wide["a.py"].recent_commits == 3 and wide[C_PATH].recent_commits == 2


def test_bounded_walks(tmp_path: Path) -> None:
    shas = _history_repo(tmp_path)
    assert set(file_history(tmp_path, max_commits=1, now=NOW)) == {C_PATH}
    since = file_history(tmp_path, since="2026-03-01T00:00:00+00:00", now=NOW)
    assert {path: entry.last.sha for path, entry in since.items()} == {
        "b.py": shas["c4"], C_PATH: shas["c5"]}
    assert set(file_history(tmp_path, rev=shas["c2"], now=NOW)) == {"a.py", "b.py"}


def test_merges_and_deleted_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"base.py": "x\n"}, date="2026-03-01T00:00:00+00:00")
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, {"side.py": "s\n", "base.py": None}, "side work", date="2026-03-02T00:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", env={
        "GIT_AUTHOR_DATE": "2026-03-10T00:00:00+00:00", "GIT_COMMITTER_DATE": "2026-03-10T00:00:00+00:00"})
    history = file_history(repo, now=NOW)
    assert history["side.py"].last.sha == side  # the merge itself lists no paths
    assert history["base.py"].last.sha == side  # a deleted path keeps its last commit: the deletion


def test_empty_repository_has_no_history(tmp_path: Path) -> None:
    assert file_history(make_repo(tmp_path), now=NOW) == {}


DAY = 86400


@pytest.mark.parametrize(("age", "text"), [
    (-5, "in the future"),
    (0, "just now"),
    (59, "just now"),
    (60, "1 minute ago"),
    (45 * 60, "45 minutes ago"),
    (2 * 3600, "2 hours ago"),
    (35 * 3600, "35 hours ago"),
    (3 * DAY, "3 days ago"),
    (13 * DAY, "13 days ago"),
    (15 * DAY, "2 weeks ago"),
    (69 * DAY, "10 weeks ago"),
    (75 * DAY, "3 months ago"),
    (200 * DAY, "7 months ago"),
    (365 * DAY, "1 year ago"),
    (430 * DAY, "1 year, 2 months ago"),
    (2 * 365 * DAY + 31 * DAY, "2 years, 1 month ago"),
    (7 * 365 * DAY + 100 * DAY, "7 years ago"),
])
def test_relative_date(age: int, text: str) -> None:
    assert relative_date(NOW - age, NOW) == text


def test_not_a_repository_is_an_error_not_an_empty_history(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError):
        file_history(tmp_path, now=NOW)
