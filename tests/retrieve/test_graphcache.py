from __future__ import annotations

import logging
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.retrieve import graphcache, graphfile
from mnemo_core.retrieve.walk import build_graph

SOURCE = "def a():\n    b()\n\n\ndef b():\n    c()\n\n\ndef c():\n    return 1\n"


def fresh_graph(root: Path) -> tuple[Store, graphcache.Graph]:
    graphcache._graphs.clear()  # as a new process would start
    store = Store.open(root)
    return store, graphcache.graph_for(store)


def test_the_graph_is_saved_for_the_next_process_and_loads_equal(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    store, built = fresh_graph(tmp_path)
    saved = list((tmp_path / ".mnemo").glob("graph-*.bin"))
    assert [p.name for p in saved] == [f"graph-{store.index_id()}-{store.generation()}.bin"]
    expected = build_graph(store.all_edges())
    store.close()
    store, loaded = fresh_graph(tmp_path)
    store.close()
    for graph in (built, loaded):
        assert graph.ids.tolist() == expected.ids.tolist() and graph.index == expected.index
        assert graph.walk.indices == expected.walk.indices and graph.walk.indptr == expected.walk.indptr
        assert graph.walk.data.tolist() == expected.walk.data.tolist()
        assert graph.directed.indptr == expected.directed.indptr
        assert graph.directed.indices == expected.directed.indices


def test_a_new_generation_replaces_the_file_and_a_damaged_file_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    fresh_graph(tmp_path)[0].close()
    (tmp_path / "m.py").write_text(SOURCE + "\n\ndef d():\n    a()\n", encoding="utf-8")
    index_repo(tmp_path)
    store, _ = fresh_graph(tmp_path)
    current = tmp_path / ".mnemo" / f"graph-{store.index_id()}-{store.generation()}.bin"
    assert list((tmp_path / ".mnemo").glob("graph-*.bin")) == [current]
    current.write_bytes(b"not a zip file")
    graphcache._graphs.clear()
    rebuilt = graphcache.graph_for(store)  # from the index, not from the damaged file
    assert rebuilt.ids.tolist() == build_graph(store.all_edges()).ids.tolist() and len(rebuilt.ids) == 5
    store.close()


def test_a_file_that_is_not_this_generations_graph_or_is_damaged_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file of another generation or index, cut short, or damaged anywhere inside its arrays (a
    value that still passes the header and size checks) is refused with one log line and made
    again: never walked, never a crash."""
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    store, _ = fresh_graph(tmp_path)
    older = (tmp_path / ".mnemo" / f"graph-{store.index_id()}-{store.generation()}.bin").read_bytes()
    store.close()
    (tmp_path / "m.py").write_text(SOURCE + "\n\ndef d():\n    a()\n", encoding="utf-8")
    index_repo(tmp_path)
    store, built = fresh_graph(tmp_path)
    path = tmp_path / ".mnemo" / f"graph-{store.index_id()}-{store.generation()}.bin"
    good = path.read_bytes()
    header = graphfile.HEADER.size
    lengths = graphfile.HEADER.unpack_from(good)[4:]
    last_pointer = header + 8 * (lengths[0] + lengths[1] - 1)  # the walk's row pointers' end
    short_rows = good[:last_pointer] + struct.pack("=q", lengths[2] - 1) + good[last_pointer + 8 :]
    column = header + 8 * (lengths[0] + lengths[1])  # the walk's first column index: 1 -> 2
    other_column = (
        good[:column] + struct.pack("=q", struct.unpack_from("=q", good, column)[0] ^ 3) + good[column + 8 :]
    )
    weight = column + 8 * lengths[2] + 3  # a byte inside the walk's first value
    other_weight = good[:weight] + bytes([good[weight] ^ 0x10]) + good[weight + 1 :]
    foreign = good[:16] + b"0123456789abcdef" + good[32:]
    damaged = {"checksum": (short_rows, other_column, other_weight), "stamp": (older, foreign, good[:-8])}
    for why, files in damaged.items():
        for bad in (*files, *((b"not a graph" + good, b"") if why == "stamp" else ())):
            path.write_bytes(bad)
            graphcache._graphs.clear()
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="mnemo_core.retrieve.graphfile"):
                loaded = graphcache.graph_for(store)
            assert loaded.walk.indices == built.walk.indices and len(loaded.ids) == 5
            assert loaded.walk.data.tolist() == built.walk.data.tolist()
            assert path.read_bytes() == good, "rebuilt and written again"
            lines = [r.getMessage() for r in caplog.records]
            assert len(lines) == 1 and str(path) in lines[0], lines
            assert why != "checksum" or "damaged" in lines[0], lines
    graphcache._graphs.clear()
    loaded = graphcache.graph_for(store)
    assert isinstance(loaded.ids, memoryview), "a good file is read in place"
    assert [loaded.index[sid] for sid in built.ids] == list(range(5)) and 10**9 not in loaded.index
    store.close()


def test_a_task_whose_walk_weights_are_zero_never_imports_numpy(tmp_path: Path) -> None:
    source = (
        "def upload_file(path):\n    return retry_upload(path)\n\n\n"
        "def retry_upload(path):\n    return checksum(path)\n\n\n"
        "def checksum(path):\n    return 1\n"
    )
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    index_repo(tmp_path)
    fresh_graph(tmp_path)[0].close()  # the cache file exists, as after any earlier query
    probe = (
        "import sys\n"
        "from mnemo_core.engine import Engine\n"
        "engine = Engine.open(sys.argv[1])\n"
        "pack = engine.task('upload the file')\n"
        "print([s.symbol.name for s in pack.symbols], 'numpy' in sys.modules)\n"
        "why = engine.explain('upload the file', 'm.py:checksum')\n"
        "print(why.rank, why.walk_rank is not None, why.hops, 'numpy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "['upload_file', 'retry_upload', 'checksum'] False", out
    assert out[1] == "3 True 1 True", "why walks (numpy), and ranks as the task did"


def test_a_rebuild_under_a_new_id_removes_the_old_graph_and_nothing_planted(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    store, _ = fresh_graph(tmp_path)
    directory = tmp_path / ".mnemo"
    old_id = store.index_id()
    store.symbols_containing_each(["abcdef"], 3)  # the name channel's distinct names, saved too
    ours = [*directory.glob(f"graph-{old_id}-*.bin"), *directory.glob(f"names-{old_id}-*.txt")]
    assert len(ours) == 2
    older = directory / f"graph-{old_id}-1.npz"  # what an older mnemo left for the same index
    older.write_bytes(b"PK\x03\x04")
    planted = ["graph-1.npz", "graph-none-1.npz", "graph-0123456789abcdef-3.bin", f"graph-{old_id}-x.bin"]
    planted += ["names-0123456789abcdef-3.txt", f"names-{old_id}-2.txt.bak"]
    for name in planted:
        (directory / name).write_bytes(b"not a graph")
    with store.transaction():
        store.conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")  # built by an old mnemo
    store.close()
    index_repo(tmp_path)  # rebuilt: a new index id
    store, _ = fresh_graph(tmp_path)
    assert store.index_id() != old_id and not any(p.exists() for p in [*ours, older])
    assert sorted(p.name for p in [*directory.glob("graph-*"), *directory.glob("names-*")]) == sorted(
        [*planted, f"graph-{store.index_id()}-{store.generation()}.bin"]
    )
    store.close()


FAN_IN_SOURCE = {
    "a.py": (
        "class Base:\n    def run(self):\n        return helper()\n\n\n"
        "class Child(Base):\n    def run(self):\n        helper()\n        return helper()\n\n\n"
        "def helper():\n    return 1\n\n\n"
        "def recurse(n):\n    return recurse(n - 1)\n\n\n"
        "def alone():\n    return 2\n"
    ),
    "b.py": "from a import helper, recurse\n\n\ndef use():\n    helper()\n    return recurse(3)\n",
}


def test_the_graph_built_a_batch_at_a_time_equals_the_graph_of_every_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo", FAN_IN_SOURCE)
    index_repo(repo)
    store = Store.open(repo)
    expected = build_graph(store.all_edges())
    for batch in (1, 3, graphcache.EDGE_BATCH):
        monkeypatch.setattr(graphcache, "EDGE_BATCH", batch)
        built = graphcache.build(store).graph
        assert built.ids.tolist() == expected.ids.tolist() and dict(built.index) == expected.index
        for mine, theirs in ((built.walk, expected.walk), (built.directed, expected.directed)):
            assert (mine.indptr, mine.indices) == (theirs.indptr, theirs.indices)
            assert mine.data.tolist() == theirs.data.tolist()
    store.close()


def test_the_fan_in_is_the_count_of_distinct_callers_in_the_index_and_is_saved(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FAN_IN_SOURCE)
    index_repo(repo)
    store, _ = fresh_graph(repo)
    every = [sid for (sid,) in store.conn.execute("SELECT id FROM symbols")]
    counted = dict(
        store.conn.execute("SELECT dst, count(DISTINCT src) FROM edges WHERE type='calls' GROUP BY dst")
    )
    names = {s.id: s.name for s in store.symbols_by_ids(every).values()}
    by_name = {names[sid]: n for sid, n in counted.items()}
    assert by_name["helper"] == 3 and by_name["recurse"] == 1, by_name  # Child.run calls helper twice
    assert "alone" not in by_name
    assert graphcache.fan_in_of(store, every) == counted
    store.close()
    store, _ = fresh_graph(repo)  # from the file
    assert isinstance(graphcache._cached(store).fan_in.ids, memoryview)
    assert graphcache.fan_in_of(store, [*every, 10**9]) == counted
    store.close()
