from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.retrieve import graphcache
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
    saved = list((tmp_path / ".mnemo").glob("graph-*.npz"))
    assert [p.name for p in saved] == [f"graph-{store.index_id()}-{store.generation()}.npz"]
    expected = build_graph(store.all_edges())
    store.close()
    store, loaded = fresh_graph(tmp_path)
    store.close()
    for graph in (built, loaded):
        assert graph.ids.tolist() == expected.ids.tolist() and graph.index == expected.index
        assert np.array_equal(graph.walk.indices, expected.walk.indices)
        assert np.allclose(graph.walk.data, expected.walk.data)
        assert np.array_equal(graph.directed.indptr, expected.directed.indptr)


def test_a_new_generation_replaces_the_file_and_a_damaged_file_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    fresh_graph(tmp_path)[0].close()
    (tmp_path / "m.py").write_text(SOURCE + "\n\ndef d():\n    a()\n", encoding="utf-8")
    index_repo(tmp_path)
    store, _ = fresh_graph(tmp_path)
    current = tmp_path / ".mnemo" / f"graph-{store.index_id()}-{store.generation()}.npz"
    assert list((tmp_path / ".mnemo").glob("graph-*.npz")) == [current]
    current.write_bytes(b"not a zip file")
    graphcache._graphs.clear()
    rebuilt = graphcache.graph_for(store)  # from the index, not from the damaged file
    assert rebuilt.ids.tolist() == build_graph(store.all_edges()).ids.tolist() and len(rebuilt.ids) == 5
    store.close()


def test_arrays_that_do_not_form_the_graph_are_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    index_repo(tmp_path)
    store, built = fresh_graph(tmp_path)
    path = tmp_path / ".mnemo" / f"graph-{store.index_id()}-{store.generation()}.npz"
    np.savez(
        path,
        ids=built.ids,
        walk_indptr=built.walk.indptr,
        walk_indices=built.walk.indices + 100,
        walk_data=built.walk.data,
        directed_indptr=built.directed.indptr,
        directed_indices=built.directed.indices,
    )
    graphcache._graphs.clear()
    assert graphcache.graph_for(store).walk.indices.tolist() == built.walk.indices.tolist()
    store.close()
