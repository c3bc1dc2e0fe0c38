from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from mnemo_core.fsread import MAX_SOURCE_BYTES
from mnemo_core.vcs.changes import attributes_text, changed_functions, commit_log
from mnemo_core.vcs.git import NotARepositoryError
from tests.helpers import commit, git, make_repo

C_PATH = "dir/c \u00e9.py"  # non-ASCII and a space
PY = (".py",)
CY = ("C\u00e9line Yu", "cy@example.com")


def history(repo: Path) -> dict[str, str]:
    make_repo(repo)
    return {
        "c1": commit(
            repo,
            {"a.py": "a1\n", "b.py": "b1\n", "notes.txt": "n\n"},
            "c1\n\nSigned-off-by: A <a@b>",
            date="2025-06-01T10:00:00Z",
        ),
        "c2": commit(repo, {"notes.txt": "n2\n"}, "only notes", date="2025-07-01T10:00:00Z"),
        "c3": commit(
            repo,
            {"a.py": "a3\n", C_PATH: "c3\n"},
            "c3 subject\n\nthe body",
            date="2026-02-10T10:00:00Z",
            author=CY,
        ),
    }


def test_the_log_lists_newest_first_with_messages_and_source_paths(tmp_path: Path) -> None:
    shas = history(tmp_path)
    log = commit_log(tmp_path, "HEAD", 100, PY)
    assert [c.sha for c in log] == [shas["c3"], shas["c1"]]  # c2 touched no source file
    newest = log[0]
    assert (newest.author, newest.subject, newest.message) == (CY[0], "c3 subject", "c3 subject\n\nthe body")
    assert newest.time == int(datetime.fromisoformat("2026-02-10T10:00:00+00:00").timestamp())
    assert set(newest.paths) == {"a.py", C_PATH}
    assert log[1].message == "c1" and set(log[1].paths) == {"a.py", "b.py"}  # trailers are dropped


def test_the_log_is_bounded_and_takes_ranges(tmp_path: Path) -> None:
    shas = history(tmp_path)
    assert [c.sha for c in commit_log(tmp_path, "HEAD", 1, PY)] == [shas["c3"]]
    assert [c.sha for c in commit_log(tmp_path, f"{shas['c1']}..HEAD", 100, PY)] == [shas["c3"]]


def test_merges_are_skipped_and_deletions_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"base.py": "x\n"}, date="2026-03-01T00:00:00+00:00")
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, {"side.py": "s\n", "base.py": None}, "side work", date="2026-03-02T00:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "merge side",
        "side",
        env={
            "GIT_AUTHOR_DATE": "2026-03-10T00:00:00+00:00",
            "GIT_COMMITTER_DATE": "2026-03-10T00:00:00+00:00",
        },
    )
    log = commit_log(repo, "HEAD", 100, PY)
    assert [c.subject for c in log] == ["side work", "initial commit"]
    assert set(log[0].paths) == {"side.py", "base.py"} and log[0].sha == side


def test_not_a_repository_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NotARepositoryError):
        commit_log(tmp_path, "HEAD", 10, PY)


def test_changed_functions_come_from_hunk_headers_and_changed_definitions(tmp_path: Path) -> None:
    before = (
        "class Client:\n    def upload(self, data):\n        x = 1\n        return data\n\n\n"
        "def parse(t):\n    return t\n"
    )
    repo = make_repo(tmp_path, {"client.py": before})
    edited = before.replace("return data", "return bytes(data)") + "\n\ndef fresh():\n    return 1\n"
    sha = commit(repo, {"client.py": edited}, "edit")
    attributes = tmp_path / "attributes"
    attributes.write_text(attributes_text(), encoding="utf-8")
    targets = changed_functions(repo, [sha], attributes, PY)
    assert set(targets[sha]) == {("client.py", "upload"), ("client.py", "fresh")}


def test_a_file_over_the_size_limit_gives_no_patch_to_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"small.py": "def keep():\n    return 1\n"})
    generated = "".join(f"def gen_{i}(x):\n    return x\n\n\n" for i in range(MAX_SOURCE_BYTES // 28))
    assert len(generated) > MAX_SOURCE_BYTES
    sha = commit(repo, {"small.py": "def keep():\n    return 2\n", "gen.py": generated}, "generated")
    attributes = tmp_path / "attributes"
    attributes.write_text(attributes_text(), encoding="utf-8")
    assert changed_functions(repo, [sha], attributes, PY) == {sha: (("small.py", "keep"),)}
