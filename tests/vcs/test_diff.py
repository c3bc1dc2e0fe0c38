"""Tests for mnemo_core/vcs/diff.py: the parsers on captured git output, then real repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.fsread import MAX_SOURCE_BYTES
from mnemo_core.vcs.diff import (
    ChangeStatus,
    FileChange,
    Hunk,
    LineRange,
    changed_files,
    file_at,
    files_at,
    parse_batch,
    parse_batch_check,
    parse_diff,
    parse_patch,
    skipped_note,
)
from mnemo_core.vcs.refs import Snapshot, UnknownRefError

# `git diff -z --raw -p -U0 -M -C ...` (the options diff.py pins) over four commits of a real
# repository: a binary edit, a file turned symlink (two sections), a symlink added, a rename with an
# edit, a mode-only change and a rename between two names git has to C-quote.
CAPTURED = (
    b":100644 100644 d5d0b8b4c4c9e936890870f6799cfbb5ba984470 4a270318359d8c2a960136495bceeae9eee22424 M\x00"
    b"bin.dat\x00"
    b":100644 120000 de980441c3ab03a8c07dda1ad27b8a11f39deb1e b0d77970570b716849890fcf8cd1fbec17b1aa7f T\x00"
    b"f.txt\x00"
    b":000000 120000 0000000000000000000000000000000000000000 7f66e4fb948e0071a63a15b9a2373e19aa4a40ea A\x00"
    b"link\x00"
    b":100644 100644 f00c965d8307308469e537302baa73048488f162 8c7efe53d47164d965d970252be08511cd6d489e "
    b"R085\x00ren.txt\x00ren2.txt\x00"
    b":100644 100755 ce013625030ba8dba906f756967f9e9ca394464a ce013625030ba8dba906f756967f9e9ca394464a "
    b"M\x00sp ace \xc3\xa9.txt\x00"
    b":100644 100644 bca70f35318f31dd1d1d1d2d2e64c19b880899ff 8a08eba85c872cd83776ed37dd9c6de453c789c2 "
    b"R050\x00"
    b'we"ird\\tname\x00tab\t"x".txt\x00\x00'
    b"diff --git a/bin.dat b/bin.dat\n"
    b"index d5d0b8b..4a27031 100644\n"
    b"Binary files a/bin.dat and b/bin.dat differ\n"
    b"diff --git a/f.txt b/f.txt\n"
    b"deleted file mode 100644\n"
    b"index de98044..0000000\n"
    b"--- a/f.txt\n"
    b"+++ /dev/null\n"
    b"@@ -1,3 +0,0 @@\n"
    b"-a\n"
    b"-b\n"
    b"-c\n"
    b"diff --git a/f.txt b/f.txt\n"
    b"new file mode 120000\n"
    b"index 0000000..b0d7797\n"
    b"--- /dev/null\n"
    b"+++ b/f.txt\n"
    b"@@ -0,0 +1 @@\n"
    b"+ren2.txt\n"
    b"\\ No newline at end of file\n"
    b"diff --git a/link b/link\n"
    b"new file mode 120000\n"
    b"index 0000000..7f66e4f\n"
    b"--- /dev/null\n"
    b"+++ b/link\n"
    b"@@ -0,0 +1 @@\n"
    b"+f.txt\n"
    b"\\ No newline at end of file\n"
    b"diff --git a/ren.txt b/ren2.txt\n"
    b"similarity index 85%\n"
    b"rename from ren.txt\n"
    b"rename to ren2.txt\n"
    b"index f00c965..8c7efe5 100644\n"
    b"--- a/ren.txt\n"
    b"+++ b/ren2.txt\n"
    b"@@ -10 +10 @@\n"
    b"-10\n"
    b"+11\n"
    b"diff --git a/sp ace \xc3\xa9.txt b/sp ace \xc3\xa9.txt\n"
    b"old mode 100644\n"
    b"new mode 100755\n"
    b'diff --git "a/we\\"ird\\\\tname" "b/tab\\t\\"x\\".txt"\n'
    b"similarity index 50%\n"
    b'rename from "we\\"ird\\\\tname"\n'
    b'rename to "tab\\t\\"x\\".txt"\n'
    b"index bca70f3..8a08eba 100644\n"
    b'--- "a/we\\"ird\\\\tname"\n'
    b'+++ "b/tab\\t\\"x\\".txt"\n'
    b"@@ -1,0 +2 @@ q\n"
    b"+r\n"
)


def test_parse_captured_diff() -> None:
    changes = {c.path: c for c in parse_diff(CAPTURED)}
    assert list(changes) == ["bin.dat", "f.txt", "link", "ren2.txt", "sp ace \u00e9.txt", 'tab\t"x".txt']
    assert changes["bin.dat"].binary and changes["bin.dat"].hunks == ()
    assert changes["f.txt"] == FileChange(
        "f.txt",
        ChangeStatus.TYPE_CHANGED,
        "f.txt",
        "100644",
        "120000",
        hunks=(Hunk(1, 3, 0, 0), Hunk(0, 0, 1, 1)),
        old_blob="de980441c3ab03a8c07dda1ad27b8a11f39deb1e",
        new_blob="b0d77970570b716849890fcf8cd1fbec17b1aa7f",
    )
    assert changes["link"] == FileChange(
        "link",
        ChangeStatus.ADDED,
        None,
        "",
        "120000",
        hunks=(Hunk(0, 0, 1, 1),),
        new_blob="7f66e4fb948e0071a63a15b9a2373e19aa4a40ea",
    )  # no old side: no old blob
    renamed = changes["ren2.txt"]
    assert (renamed.status, renamed.old_path, renamed.similarity) == (ChangeStatus.RENAMED, "ren.txt", 85)
    assert renamed.hunks == (Hunk(10, 1, 10, 1),)
    mode_only = changes["sp ace \u00e9.txt"]
    assert mode_only.mode_changed and mode_only.hunks == () and not mode_only.binary
    quoted = changes['tab\t"x".txt']
    assert quoted.old_path == 'we"ird\\tname' and quoted.hunks == (Hunk(1, 0, 2, 1),)


def test_patch_lines_that_look_like_headers_are_content() -> None:
    patch = (
        b"diff --git a/a b/c b/d b/a b/c b/d\n"  # a path with " b/" in it splits at the middle
        b"--- a/a b/c b/d\n+++ b/a b/c b/d\n"
        b"@@ -1,2 +1 @@\n"
        b"--- a/not-a-header\n"
        b"-@@ -9 +9 @@\n"
        b"+diff --git a/x b/x\n"
        b"@@ -5 +4,0 @@\n"
        b"-Binary files a/x and b/x differ\n"
    )
    assert parse_patch(patch) == {"a b/c b/d": (False, (Hunk(1, 2, 1, 1), Hunk(5, 1, 4, 0)))}


def test_parse_nothing() -> None:
    assert parse_diff(b"") == []


def test_parse_batch_output() -> None:
    data = (
        b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 blob 0\n\n"
        b"HEAD:my file missing\n"
        b"8c7efe53d47164d965d970252be08511cd6d489e blob 6\nab\ncd\n\n"
        b"65e2230755977437f1e8848b56be857381825f87 tree 4\nxxxx\n"
    )
    assert parse_batch(data) == [b"", None, b"ab\ncd\n", None]


@pytest.mark.parametrize(
    ("hunk", "old", "new"),
    [
        (Hunk(3, 2, 3, 4), LineRange(3, 4), LineRange(3, 6)),
        (Hunk(5, 0, 6, 2), None, LineRange(6, 7)),  # pure insertion after old line 5
        (Hunk(6, 2, 5, 0), LineRange(6, 7), None),  # pure deletion after new line 5
    ],
)
def test_hunk_sides(hunk: Hunk, old: LineRange | None, new: LineRange | None) -> None:
    assert (hunk.old_lines, hunk.new_lines) == (old, new)


def test_a_deletion_touches_only_the_span_it_falls_inside() -> None:
    deletion = Hunk(6, 2, 5, 0)  # old lines 6-7 removed; on the new side between lines 5 and 6
    assert deletion.touches_new(3, 8)
    assert not deletion.touches_new(1, 5)  # ends right before the gap
    assert not deletion.touches_new(6, 9)  # starts right after it
    assert deletion.touches_old(7, 9) and not deletion.touches_old(8, 9)


TEXT = "".join(f"line {n}\n" for n in range(1, 11))


def test_line_ranges_of_a_modified_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"m.py": TEXT})
    base = git(repo, "rev-parse", "HEAD").strip()
    lines = TEXT.splitlines(keepends=True)
    lines[1] = "line two\n"  # rewrite line 2
    lines[5:5] = ["inserted a\n", "inserted b\n"]  # insert after line 5
    del lines[10]  # delete old line 9
    head = commit(repo, {"m.py": "".join(lines)}, "edit")
    [change] = changed_files(repo, base, head)
    assert change.status is ChangeStatus.MODIFIED and change.old_path == "m.py"
    assert change.hunks == (Hunk(2, 1, 2, 1), Hunk(5, 0, 6, 2), Hunk(9, 1, 10, 0))
    assert change.new_ranges == (LineRange(2, 2), LineRange(6, 7))
    assert change.old_ranges == (LineRange(2, 2), LineRange(9, 9))
    assert change.touches_new(9, 11) and not change.touches_new(3, 5)


def test_missing_newline_at_end_of_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"n.txt": "a\nb"})
    base = git(repo, "rev-parse", "HEAD").strip()
    head = commit(repo, {"n.txt": "a\nb\nc"}, "append")
    [change] = changed_files(repo, base, head)
    assert change.hunks == (Hunk(2, 1, 2, 2),)  # "b" gains its newline, "c" is new


def test_added_deleted_and_root_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    root = commit(repo, {"keep.py": "k = 1\n", "gone.py": "g = 1\ng = 2\n"}, "root")
    assert [(c.path, c.status, c.hunks) for c in changed_files(repo, None, root)] == [
        ("gone.py", ChangeStatus.ADDED, (Hunk(0, 0, 1, 2),)),
        ("keep.py", ChangeStatus.ADDED, (Hunk(0, 0, 1, 1),)),
    ]
    head = commit(repo, {"gone.py": None, "new.py": "n = 1\n"}, "swap")
    changes = {c.path: c for c in changed_files(repo, None, head)}
    assert changes["gone.py"].status is ChangeStatus.DELETED and changes["gone.py"].old_path == "gone.py"
    assert changes["gone.py"].hunks == (Hunk(1, 2, 0, 0),)
    assert changes["new.py"].status is ChangeStatus.ADDED and changes["new.py"].old_path is None
    assert "keep.py" not in changes


BODY = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(12))


def test_renames_with_and_without_edits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"old/pure.py": BODY, "old/edited.py": BODY})
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "mv", "old", "new dir")
    head = commit(repo, {"new dir/edited.py": BODY.replace("return 3", "return 33")}, "move")
    changes = {c.path: c for c in changed_files(repo, base, head)}
    pure, edited = changes["new dir/pure.py"], changes["new dir/edited.py"]
    assert (pure.status, pure.old_path, pure.similarity, pure.hunks) == (
        ChangeStatus.RENAMED,
        "old/pure.py",
        100,
        (),
    )
    assert (edited.status, edited.old_path) == (ChangeStatus.RENAMED, "old/edited.py")
    assert edited.hunks == (Hunk(11, 1, 11, 1),)
    assert set(changes) == {"new dir/pure.py", "new dir/edited.py"}


def test_copies_are_reported(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"orig.py": BODY})
    base = git(repo, "rev-parse", "HEAD").strip()
    head = commit(repo, {"copy.py": BODY, "orig.py": BODY + "def extra():\n    pass\n"}, "copy")
    changes = {c.path: c for c in changed_files(repo, base, head)}
    assert (changes["copy.py"].status, changes["copy.py"].old_path) == (ChangeStatus.COPIED, "orig.py")
    assert changes["orig.py"].status is ChangeStatus.MODIFIED


def test_binary_mode_symlink_and_unicode_paths(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "img.png": b"\x89PNG\0\0\x01",
            "run.sh": "echo hi\n",
            "sp\u00e4ce dir/na\u00efve file.py": "x = 1\n",
            "target.txt": "t\n",
        },
    )
    base = git(repo, "rev-parse", "HEAD").strip()
    os.chmod(repo / "run.sh", 0o755)
    (repo / "target.txt").unlink()
    (repo / "target.txt").symlink_to("run.sh")
    head = commit(
        repo, {"img.png": b"\x89PNG\0\0\x02", "sp\u00e4ce dir/na\u00efve file.py": "x = 2\n"}, "mixed"
    )
    changes = {c.path: c for c in changed_files(repo, base, head)}
    assert changes["img.png"].binary and changes["img.png"].hunks == ()
    script = changes["run.sh"]
    assert script.mode_changed and script.new_mode == "100755" and not script.hunks
    unicode = changes["sp\u00e4ce dir/na\u00efve file.py"]
    assert unicode.status is ChangeStatus.MODIFIED and unicode.hunks == (Hunk(1, 1, 1, 1),)
    link = changes["target.txt"]
    assert link.status is ChangeStatus.TYPE_CHANGED and link.new_mode == "120000"
    assert link.hunks == (Hunk(1, 1, 0, 0), Hunk(0, 0, 1, 1))


def test_submodule_entries_are_flagged_without_hunks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a.txt": "a\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{base},vendor/lib")
    git(repo, "commit", "-q", "-m", "add submodule")
    [change] = changed_files(repo, base, "HEAD")
    assert change.path == "vendor/lib" and change.submodule and change.hunks == () and not change.binary


def test_staged_versus_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    (repo / "a.py").write_text("a = 2\n", encoding="utf-8")
    git(repo, "add", "a.py")
    (repo / "b.py").write_text("b = 1\nb = 2\n", encoding="utf-8")
    (repo / "new \u00e9.py").write_text("n = 1\nn = 2\nn = 3", encoding="utf-8")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    staged = changed_files(repo, None, Snapshot.STAGED)
    assert [(c.path, c.hunks) for c in staged] == [("a.py", (Hunk(1, 1, 1, 1),))]
    worktree = {c.path: c for c in changed_files(repo, None, Snapshot.WORKTREE)}
    assert set(worktree) == {"a.py", "b.py", "new \u00e9.py", "blob.bin"}
    assert worktree["b.py"].hunks == (Hunk(1, 0, 2, 1),)
    untracked = worktree["new \u00e9.py"]
    assert (untracked.status, untracked.hunks, untracked.binary) == (
        ChangeStatus.ADDED,
        (Hunk(0, 0, 1, 3),),
        False,
    )
    assert worktree["blob.bin"].binary and worktree["blob.bin"].hunks == ()


def test_worktree_deletion_and_ignored_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a.py": "a\n", ".gitignore": "*.log\n"})
    (repo / "a.py").unlink()
    (repo / "noise.log").write_text("x\n", encoding="utf-8")
    assert [(c.path, c.status) for c in changed_files(repo, None, Snapshot.WORKTREE)] == [
        ("a.py", ChangeStatus.DELETED)
    ]


def test_empty_repository_compares_with_the_empty_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / "first.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "first.py")
    (repo / "loose.py").write_text("y = 1\n", encoding="utf-8")
    assert [(c.path, c.status) for c in changed_files(repo, None, Snapshot.STAGED)] == [
        ("first.py", ChangeStatus.ADDED)
    ]
    assert [c.path for c in changed_files(repo, None, Snapshot.WORKTREE)] == ["first.py", "loose.py"]


def _merge_repo(repo: Path) -> dict[str, str]:
    """main: base - M1 ----- merge; topic (from base): T1 -/ . Returns shas."""
    make_repo(repo)
    shas = {"base": commit(repo, {"shared.py": "s = 1\n"}, "base")}
    git(repo, "checkout", "-q", "-b", "topic")
    shas["T1"] = commit(repo, {"topic.py": "t = 1\n"}, "topic work")
    git(repo, "checkout", "-q", "main")
    shas["M1"] = commit(repo, {"main.py": "m = 1\n"}, "main work")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    shas["merge"] = git(repo, "rev-parse", "HEAD").strip()
    return shas


def test_merge_commit_diffs_against_its_first_parent(tmp_path: Path) -> None:
    shas = _merge_repo(tmp_path)
    assert [c.path for c in changed_files(tmp_path, None, shas["merge"])] == ["topic.py"]
    assert [c.path for c in changed_files(tmp_path, shas["T1"], shas["merge"])] == ["main.py"]


def test_merge_base_view_shows_what_a_pull_request_would(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"shared.py": "s = 1\n"})
    git(repo, "checkout", "-q", "-b", "topic")
    topic = commit(repo, {"topic.py": "t = 1\n"}, "topic work")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"main.py": "m = 1\n"}, "main moves on")
    git(repo, "checkout", "-q", "topic")
    (repo / "wip.py").write_text("w = 1\n", encoding="utf-8")
    two_dot = changed_files(repo, "main", "HEAD")
    assert [(c.path, c.status) for c in two_dot] == [  # main's own change shows up, reversed
        ("main.py", ChangeStatus.DELETED),
        ("topic.py", ChangeStatus.ADDED),
    ]
    pull_request = changed_files(repo, "main", topic, merge_base_of=True)
    assert [c.path for c in pull_request] == ["topic.py"]
    with_worktree = changed_files(repo, None, Snapshot.WORKTREE, merge_base_of=True)
    assert [c.path for c in with_worktree] == ["topic.py", "wip.py"]


def test_unknown_base_is_reported(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a": "a\n"})
    with pytest.raises(UnknownRefError, match="close branch names: main"):
        changed_files(repo, "mian", "HEAD")


def test_file_at_revisions_index_and_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"dir/my file.py": "v1\n", "gone.py": "g\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"dir/my file.py": "v2\n", "gone.py": None}, "second")
    (repo / "dir/my file.py").write_text("v3\n", encoding="utf-8")
    assert file_at(repo, first, "dir/my file.py") == b"v1\n"
    assert file_at(repo, "HEAD", "dir/my file.py") == b"v2\n"
    assert file_at(repo, Snapshot.STAGED, "dir/my file.py") == b"v2\n"
    assert file_at(repo, Snapshot.WORKTREE, "dir/my file.py") == b"v3\n"
    assert file_at(repo, "HEAD", "gone.py") is None
    assert file_at(repo, first, "gone.py") == b"g\n"
    assert file_at(repo, "HEAD", "dir") is None  # a tree, not a file
    assert file_at(repo, Snapshot.WORKTREE, "dir") is None
    assert files_at(repo, first, ["gone.py", "nope.py", "dir/my file.py"]) == {
        "gone.py": b"g\n",
        "nope.py": None,
        "dir/my file.py": b"v1\n",
    }


def test_file_at_a_path_with_a_newline(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"odd\nname.txt": "odd\n", "empty.txt": ""})
    assert files_at(repo, "HEAD", ["odd\nname.txt", "empty.txt"]) == {
        "odd\nname.txt": b"odd\n",
        "empty.txt": b"",
    }
    assert file_at(repo, "HEAD", "no\nsuch") is None


def test_files_over_the_size_limit_are_listed_by_size_and_never_read(tmp_path: Path) -> None:
    big = "x = 1\n" * (MAX_SOURCE_BYTES // 6 + 10)
    repo = make_repo(tmp_path, {"small.py": "a = 1\n", "gone.py": big})
    base = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"small.py": "a = 2\n", "big.py": big, "gone.py": None}, "a large file in, one out")
    changes = {c.path: c for c in changed_files(repo, base, "HEAD")}
    assert [(p, c.status, c.too_large, c.size) for p, c in changes.items()] == [
        ("big.py", ChangeStatus.ADDED, True, len(big)),
        ("gone.py", ChangeStatus.DELETED, True, len(big)),
        ("small.py", ChangeStatus.MODIFIED, False, 6),
    ]
    assert changes["big.py"].hunks == () and changes["small.py"].hunks == (Hunk(1, 1, 1, 1),)
    assert files_at(repo, "HEAD", ["big.py", "small.py"]) == {"big.py": None, "small.py": b"a = 2\n"}
    assert files_at(repo, base, ["gone.py"]) == {"gone.py": None}
    assert files_at(repo, base, ["gone.py"], limit=len(big)) == {"gone.py": big.encode()}
    (repo / "untracked.py").write_text(big, encoding="utf-8")
    (repo / "small.py").write_text(big, encoding="utf-8")
    git(repo, "add", "small.py")
    staged = {c.path: c for c in changed_files(repo, None, Snapshot.STAGED)}
    assert staged["small.py"].too_large and staged["small.py"].hunks == ()
    worktree = {c.path: c for c in changed_files(repo, None, Snapshot.WORKTREE)}
    assert worktree["untracked.py"].too_large and worktree["untracked.py"].hunks == ()
    assert worktree["small.py"].too_large
    assert file_at(repo, Snapshot.WORKTREE, "untracked.py") is None
    assert skipped_note(list(worktree.values())) == (
        f"skipped small.py ({len(big) / 1e6:.1f} MB), untracked.py ({len(big) / 1e6:.1f} MB): "
        "files over 1 MB are not read"
    )


def test_parse_batch_check_output() -> None:
    data = (
        b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 blob 0\n"
        b"HEAD:my file missing\n"
        b"4b825dc642cb6eb9a060e54bf8d69288fbee4904 tree 0\n"
        b"8a08eba85c872cd83776ed37dd9c6de453c789c2 blob 1234\n"
    )
    assert parse_batch_check(data) == [
        ("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", 0),
        ("", 0),
        ("", 0),
        ("8a08eba85c872cd83776ed37dd9c6de453c789c2", 1234),
    ]


def test_no_files_asked_needs_no_revision(tmp_path: Path) -> None:
    """A first commit adds every file: there is no old side, and no HEAD to resolve for it."""
    assert files_at(make_repo(tmp_path), "HEAD", []) == {}


def test_user_config_cannot_change_what_is_parsed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a b.py": TEXT, "old.py": BODY})
    base = git(repo, "rev-parse", "HEAD").strip()
    for key, value in [
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("color.diff", "always"),
        ("color.ui", "always"),
        ("diff.renames", "false"),
        ("diff.interHunkContext", "10"),
        ("diff.submodule", "log"),
        ("core.quotepath", "true"),
        ("diff.relative", "true"),
        ("diff.external", "false"),
        ("diff.context", "5"),
    ]:
        git(repo, "config", key, value)
    lines = TEXT.splitlines(keepends=True)
    lines[1], lines[4] = "changed 2\n", "changed 5\n"
    git(repo, "mv", "old.py", "n\u00e9w.py")
    head = commit(repo, {"a b.py": "".join(lines)}, "edit")
    changes = {c.path: c for c in changed_files(repo, base, head)}
    assert changes["a b.py"].hunks == (Hunk(2, 1, 2, 1), Hunk(5, 1, 5, 1))
    renamed = changes["n\u00e9w.py"]
    assert (renamed.status, renamed.old_path) == (ChangeStatus.RENAMED, "old.py")
