"""The graph of an index, built once per index generation and shared.

Building the graph reads every edge of the index (a tenth of a second on a mid-size repository),
so the arrays are kept twice: in memory for a long-lived process (the language server), and in
``.mnemo/graph-<index id>-<generation>.npz`` for the next short-lived one (each CLI call is a new
process). The index id is random, so a file committed to a repository's ``.mnemo/`` never passes
for ours. The file is written atomically (temporary name, then rename), read with pickling off and
its arrays checked for shape and bounds; any file that does not load is ignored and rebuilt, and
an older generation's file is removed when a new one is written. A read-only ``.mnemo`` just means
every process builds its own.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo_core.index.store import Store
from mnemo_core.retrieve.walk import Csr, Graph, build_graph

if TYPE_CHECKING:
    import numpy as np

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
    prefix = f"{FILE_PREFIX}{store.index_id()}-"  # this index's files, whatever their generation
    path = store.path.parent / f"{prefix}{generation}.npz"
    graph = _load(path)
    if graph is None:
        graph = build_graph(store.all_edges())
        _save(graph, path, prefix)
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
    if not _consistent(arrays):
        log.info("graph cache %s is inconsistent; rebuilding it", path)
        return None
    walk = Csr(arrays["walk_indptr"], arrays["walk_indices"], arrays["walk_data"])
    directed = Csr(
        arrays["directed_indptr"], arrays["directed_indices"], np.ones(len(arrays["directed_indices"]))
    )
    return Graph(ids, {sid: i for i, sid in enumerate(ids.tolist())}, walk, directed)


def _consistent(arrays: dict[str, np.ndarray]) -> bool:
    """Whether the arrays form two sparse matrices over ``ids``: row pointers that start at 0, never
    fall and end at the entry count; column indices inside the matrix."""
    import numpy as np

    size = len(arrays["ids"])
    for kind in ("walk", "directed"):
        indptr, indices = arrays[f"{kind}_indptr"], arrays[f"{kind}_indices"]
        if (
            len(indptr) != size + 1
            or indptr[0] != 0
            or indptr[-1] != len(indices)
            or np.any(np.diff(indptr) < 0)
        ):
            return False
        if len(indices) and (indices.min() < 0 or indices.max() >= size):
            return False
    return len(arrays["walk_data"]) == len(arrays["walk_indices"])


def _save(graph: Graph, path: Path, prefix: str) -> None:
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
    for old in path.parent.glob(f"{prefix}*.npz"):
        if old != path:
            old.unlink(missing_ok=True)
