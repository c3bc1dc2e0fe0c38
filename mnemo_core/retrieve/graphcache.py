"""The in-memory graph of an index, rebuilt only when the index changed (its generation moved)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from mnemo_core.index.store import Store
from mnemo_core.retrieve.walk import Graph, build_graph

CACHED_GRAPHS = 4  # a language server serves one workspace; a benchmark walks a few repositories
_graphs: OrderedDict[tuple[str, int], Graph] = OrderedDict()
_lock = threading.Lock()


def graph_for(store: Store) -> Graph:
    """The graph of the store's current generation (loaded once, then shared)."""
    key = (str(store.path), store.generation())
    with _lock:
        graph = _graphs.get(key)
        if graph is not None:
            _graphs.move_to_end(key)
            return graph
    graph = build_graph(store.all_edges())
    with _lock:
        _graphs[key] = graph
        while len(_graphs) > CACHED_GRAPHS:
            _graphs.popitem(last=False)
    return graph
