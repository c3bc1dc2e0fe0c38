"""The indexer: incremental updates, stable ids, and every bad input with one clear outcome."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import commit, indexed_edges, indexed_symbols, make_repo, write_files

from mnemo_core.errors import MnemoError
from mnemo_core.index import files as files_module
from mnemo_core.index import indexer, lock
from mnemo_core.index.indexer import index_repo, resolve_root
from mnemo_core.index.store import ANALYSIS_META, ANALYSIS_VERSION, Store, index_path

BASE = {
    "app/models.py": "class User:\n    def save(self):\n        return 1\n",
    "app/service.py": "from app.models import User\n\ndef register():\n    return User().save()\n",
    "app/util.py": "def slug(x):\n    return x\n",
}


def symbol_ids(root: Path) -> dict[str, int]:
    store = Store.open(root)
    try:
        return {
            f"{p}:{n}": i
            for i, p, n in store.conn.execute(
                "SELECT s.id, f.path, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
            )
        }
    finally:
        store.close()


def test_cold_then_noop_then_one_file(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    first = index_repo(tmp_path)
    assert (first.files, first.parsed, first.walked) == (3, 3, False)
    assert index_repo(tmp_path).parsed == 0
    (tmp_path / "app/util.py").write_text("def slug(x):\n    return x.lower()\n")
    assert index_repo(tmp_path).parsed == 1


def test_touching_without_changing_content_does_not_reparse(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    os.utime(tmp_path / "app/util.py", ns=(1, 1))
    assert index_repo(tmp_path).parsed == 0


def test_symbol_ids_are_stable_and_edges_from_other_files_survive(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    before = symbol_ids(tmp_path)
    (tmp_path / "app/models.py").write_text(
        "# moved down\nclass User:\n    def save(self):\n        return 2\n"
    )
    index_repo(tmp_path)
    assert symbol_ids(tmp_path) == before
    assert ("app/service.py:register", "app/models.py:User.save", "import") in indexed_edges(
        tmp_path, "calls"
    )


def test_removing_a_definition_removes_its_edges_and_adding_one_links_it(tmp_path: Path) -> None:
    make_repo(tmp_path, {**BASE, "app/jobs.py": "def nightly():\n    return cleanup()\n"})
    index_repo(tmp_path)
    assert not any(s == "app/jobs.py:nightly" for s, _, _ in indexed_edges(tmp_path, "calls"))
    (tmp_path / "app/util.py").write_text("def slug(x):\n    return x\n\ndef cleanup():\n    return 0\n")
    index_repo(tmp_path)
    assert ("app/jobs.py:nightly", "app/util.py:cleanup", "name") in indexed_edges(tmp_path, "calls")
    (tmp_path / "app/models.py").write_text("class Member:\n    def save(self):\n        return 1\n")
    index_repo(tmp_path)
    symbols = indexed_symbols(tmp_path)
    assert "app/models.py:User" not in symbols and "app/models.py:Member" in symbols
    assert not any(d.startswith("app/models.py:User") for _, d, _ in indexed_edges(tmp_path))


def test_deleted_files_leave_nothing_behind(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    (tmp_path / "app/models.py").unlink()
    stats = index_repo(tmp_path)
    assert stats.removed == 1
    assert not any(k.startswith("app/models.py") for k in indexed_symbols(tmp_path))
    assert not any("app/models.py" in s + d for s, d, _ in indexed_edges(tmp_path))


def test_changing_a_base_class_updates_overrides_in_other_files(tmp_path: Path) -> None:
    make_repo(
        tmp_path,
        {
            "a/base.py": "class Base:\n    def run(self):\n        pass\n",
            "a/impl.py": (
                "from a.base import Base\n\nclass Impl(Base):\n    def run(self):\n        pass\n"
                "    def stop(self):\n        pass\n"
            ),
        },
    )
    index_repo(tmp_path)
    assert ("a/impl.py:Impl.run", "a/base.py:Base.run", "derived") in indexed_edges(tmp_path, "overrides")
    (tmp_path / "a/base.py").write_text(
        "class Base:\n    def run(self):\n        pass\n    def stop(self):\n        pass\n"
    )
    index_repo(tmp_path)
    assert ("a/impl.py:Impl.stop", "a/base.py:Base.stop", "derived") in indexed_edges(tmp_path, "overrides")


def test_only_reindexes_given_paths(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    (tmp_path / "app/util.py").write_text("def slug(x):\n    return x\n\ndef other():\n    pass\n")
    (tmp_path / "app/new.py").write_text("def fresh():\n    pass\n")
    stats = index_repo(tmp_path, only=["app/new.py"])
    assert stats.parsed == 1
    symbols = indexed_symbols(tmp_path)
    assert "app/new.py:fresh" in symbols and "app/util.py:other" not in symbols


def test_full_rebuild_reparses_everything(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    assert index_repo(tmp_path, full=True).parsed == 3


def test_index_dir_is_ignored_by_git(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    assert (tmp_path / ".mnemo/.gitignore").read_text() == "*\n"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True)
    assert ".mnemo" not in status.stdout


def test_untracked_files_are_indexed_and_ignored_ones_are_not(tmp_path: Path) -> None:
    make_repo(tmp_path, {**BASE, ".gitignore": "generated/\n"})
    write_files(
        tmp_path, {"app/draft.py": "def draft():\n    pass\n", "generated/out.py": "def gen():\n    pass\n"}
    )
    index_repo(tmp_path)
    symbols = indexed_symbols(tmp_path)
    assert "app/draft.py:draft" in symbols
    assert "generated/out.py:gen" not in symbols


# -- bad input ------------------------------------------------------------------------------


def test_missing_path_and_file_path_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(MnemoError, match="no such directory"):
        resolve_root(tmp_path / "nope")
    (tmp_path / "f.py").write_text("x = 1\n")
    with pytest.raises(MnemoError, match="not a directory"):
        resolve_root(tmp_path / "f.py")


def test_a_directory_that_is_not_a_repository_is_walked(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "a.py": "def a():\n    pass\n",
            "node_modules/x.js": "function x() {}\n",
            ".hidden/h.py": "def h():\n    pass\n",
            "build/b.py": "def b():\n    pass\n",
        },
    )
    stats = index_repo(tmp_path)
    assert stats.walked
    assert set(indexed_symbols(tmp_path)) == {"a.py:a"}


def test_an_empty_repository_indexes_to_nothing(tmp_path: Path) -> None:
    make_repo(tmp_path)
    stats = index_repo(tmp_path)
    assert (stats.files, stats.symbols, stats.walked) == (0, 0, False)


def test_binary_large_and_generated_files_are_skipped_and_counted(tmp_path: Path) -> None:
    make_repo(
        tmp_path,
        {
            "ok.py": "def ok():\n    pass\n",
            "bin.py": b"\x00\x01\x02def x(): pass\n",
            "big.py": "x = 1\n" * (files_module.MAX_FILE_BYTES // 6 + 10),
            "gen.py": "# Code generated by protoc. DO NOT EDIT.\ndef g():\n    pass\n",
        },
    )
    stats = index_repo(tmp_path)
    assert stats.skipped == {"binary": 1, "too large": 1, "generated or minified": 1}
    assert {k.split(":")[0] for k in indexed_symbols(tmp_path)} == {"ok.py"}


def test_non_utf8_and_syntax_errors_index_what_parses(tmp_path: Path) -> None:
    make_repo(
        tmp_path,
        {
            "latin.py": "def caf\u00e9():\n    return '\u00e9t\u00e9'\n".encode("latin-1"),
            "broken.py": "def good():\n    pass\n\ndef bad(:\n\nclass Still:\n    pass\n",
        },
    )
    index_repo(tmp_path)
    symbols = indexed_symbols(tmp_path)
    assert "broken.py:good" in symbols and "broken.py:Still" in symbols
    assert any(k.startswith("latin.py:caf") for k in symbols)


def test_symlink_loops_do_not_trap_the_walk(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/a.py": "def a():\n    pass\n"})
    (tmp_path / "pkg/loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "self.py").symlink_to(tmp_path / "self.py")
    stats = index_repo(tmp_path)
    assert "pkg/a.py:a" in indexed_symbols(tmp_path)
    assert stats.files == 1


def test_a_file_deleted_between_listing_and_reading_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path, BASE)
    real = indexer.list_files

    def stale_listing(root: Path) -> files_module.Listing:
        listing = real(root)
        return files_module.Listing((*listing.paths, "app/ghost.py"), listing.walked)

    monkeypatch.setattr(indexer, "list_files", stale_listing)
    stats = index_repo(tmp_path)
    assert stats.skipped == {"vanished": 1}
    assert stats.files == 3


def test_a_corrupt_index_is_rebuilt_with_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    index_path(tmp_path).write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{index_path(tmp_path)}{suffix}").unlink(missing_ok=True)
    stats = index_repo(tmp_path)
    assert stats.parsed == 3
    assert any("rebuilding" in r.getMessage() for r in caplog.records)


def test_an_old_schema_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    store = Store.open(tmp_path)
    store.conn.execute("UPDATE meta SET value='0' WHERE key='schema'")
    store.close()
    assert index_repo(tmp_path).parsed == 3
    assert any("schema 0" in r.getMessage() for r in caplog.records)


def test_another_analysis_version_resolves_again_without_parsing(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    edges = indexed_edges(tmp_path)
    store = Store.open(tmp_path)
    store.conn.execute("UPDATE meta SET value='0' WHERE key=?", (ANALYSIS_META,))
    store.conn.execute("DELETE FROM edges")
    generation = store.generation()
    store.close()
    assert index_repo(tmp_path).parsed == 0
    assert indexed_edges(tmp_path) == edges
    store = Store.open(tmp_path)
    assert (store.meta(ANALYSIS_META), store.generation()) == (str(ANALYSIS_VERSION), generation + 1)
    store.close()
    assert index_repo(tmp_path).parsed == 0
    store = Store.open(tmp_path)
    assert store.generation() == generation + 1  # once only: the next run finds nothing to do
    store.close()


def test_a_held_lock_waits_then_names_the_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    monkeypatch.setattr(lock, "LOCK_WAIT_S", 0.2)
    with open(tmp_path / ".mnemo/index.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write("pid 4242 (mnemo index)")
        handle.flush()
        with pytest.raises(MnemoError, match="pid 4242"):
            index_repo(tmp_path)
    assert index_repo(tmp_path).parsed == 0


def test_a_failure_mid_write_leaves_the_previous_index_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    before = indexed_symbols(tmp_path)
    (tmp_path / "app/util.py").write_text("def renamed(x):\n    return x\n")

    def explode(*args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(indexer, "_resolve", explode)
    with pytest.raises(RuntimeError):
        index_repo(tmp_path)
    assert indexed_symbols(tmp_path) == before
    monkeypatch.undo()
    index_repo(tmp_path)
    assert "app/util.py:renamed" in indexed_symbols(tmp_path)


def test_two_indexers_at_once_both_succeed(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return f{(i + 1) % 60}()\n" for i in range(60)}
    make_repo(tmp_path, files)
    cmd = [sys.executable, "-m", "mnemo_core.cli", "index", str(tmp_path)]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert len([k for k in indexed_symbols(tmp_path) if ":f" in k]) == 60
    assert len(indexed_edges(tmp_path, "calls")) == 60


def test_a_commit_is_recorded(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    sha = commit(tmp_path, {"app/x.py": "def x():\n    pass\n"}, "add x")
    index_repo(tmp_path)
    store = Store.open(tmp_path)
    assert store.meta("commit") == sha
    store.close()


def test_a_renamed_file_keeps_its_edges(tmp_path: Path) -> None:
    make_repo(tmp_path, BASE)
    index_repo(tmp_path)
    (tmp_path / "app/service.py").rename(tmp_path / "app/signup.py")
    index_repo(tmp_path)
    assert ("app/signup.py:register", "app/models.py:User.save", "import") in indexed_edges(tmp_path, "calls")


def test_reads_remembered_within_a_block_answer_as_sqlite_does(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write_files(root, BASE)
    index_repo(root)
    store = Store.open(root)
    try:
        ids = [i for (i,) in store.conn.execute("SELECT id FROM symbols ORDER BY id")] + [10**9]
        plain = (store.symbols_by_ids(ids), store.edges_touching(ids, "in"), store.edges_touching(ids, "out"))
        with store.remembering():
            first = (
                store.symbols_by_ids(ids),
                store.edges_touching(ids, "in"),
                store.edges_touching(ids, "out"),
            )
            store.conn.execute("DELETE FROM edges")  # what is remembered no longer asks SQLite
            with store.remembering():  # a nested block shares the outer memory
                again = (store.symbols_by_ids(ids), store.edges_touching(ids, "in"))
            assert store.symbols_by_ids(ids[:1]) == {ids[0]: plain[0][ids[0]]}
        assert first == plain and again == plain[:2]
        assert plain[1] and plain[2]  # the repository has edges both ways to compare
        assert store.edges_touching(ids, "in") == []  # outside the block: SQLite again
    finally:
        store.close()
