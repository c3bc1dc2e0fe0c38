"""The graph of an index, built once per index generation and shared.

Building the graph reads every edge of the index (a tenth of a second on a mid-size repository),
so the arrays are kept twice: in memory for a long-lived process (the language server), and in
``.mnemo/graph-<generation>.npz`` for the next short-lived one (each CLI call is a new process).
The file is written atomically (temporary name, then rename), read with pickling off, and any
file that does not load is ignored and rebuilt; an older generation's file is removed when a new
one is written. A read-only ``.mnemo`` just means every process builds its own.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from mnemo_core.index.store import Store
from mnemo_core.retrieve.walk import Csr, Graph, build_graph

log = logging.getLogger(__name__)

CACHED_GRAPHS = 4  # a language server serves one workspace; a benchmark walks a few repositories
FILE_PREFIX = "graph-"
_ARRAYS = ("ids", "walk_indptr", "walk_indices", "walk_data", "directed_indptr", "directed_indices")
_graphs: OrderedDict[tuple[str, int], Graph] = OrderedDict()
_lock = threading.Lock()


def graph_for(store: Store) -> Graph:
    """The graph of the store's current generation (loaded once, then shared)."""
    generation = store.generation()
    key = (str(store.path), generation)
    with _lock:
        graph = _graphs.get(key)
        if graph is not None:
            _graphs.move_to_end(key)
            return graph
    path = store.path.parent / f"{FILE_PREFIX}{generation}.npz"
    graph = _load(path)
    if graph is None:
        graph = build_graph(store.all_edges())
        _save(graph, path)
    with _lock:
        _graphs[key] = graph
        while len(_graphs) > CACHED_GRAPHS:
            _graphs.popitem(last=False)
    return graph


def _load(path: Path) -> Graph | None:
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in _ARRAYS}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError) as exc:
        log.info("graph cache %s not loaded (%s); rebuilding it", path, exc)
        return None
    ids = arrays["ids"]
    walk = Csr(arrays["walk_indptr"], arrays["walk_indices"], arrays["walk_data"])
    directed = Csr(
        arrays["directed_indptr"], arrays["directed_indices"], np.ones(len(arrays["directed_indices"]))
    )
    return Graph(ids, {sid: i for i, sid in enumerate(ids.tolist())}, walk, directed)


def _save(graph: Graph, path: Path) -> None:
    import numpy as np

    try:
        handle, temporary = tempfile.mkstemp(prefix=FILE_PREFIX, suffix=".tmp", dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            np.savez(
                out,
                ids=graph.ids,
                walk_indptr=graph.walk.indptr,
                walk_indices=graph.walk.indices,
                walk_data=graph.walk.data,
                directed_indptr=graph.directed.indptr,
                directed_indices=graph.directed.indices,
            )
        os.replace(temporary, path)
    except OSError as exc:
        log.info("graph cache not written to %s: %s", path.parent, exc)
        return
    for old in path.parent.glob(f"{FILE_PREFIX}*.npz"):
        if old != path:
            old.unlink(missing_ok=True)
