"""The graph of an index, built once per index generation and shared.

Building the graph reads every edge of the index (a tenth of a second on a mid-size repository),
so the arrays are kept twice: in memory for a long-lived process (the language server), and in
``.mnemo/graph-<index id>-<generation>.bin`` for the next short-lived one (each CLI call is a new
process). The file is a header (a magic line and the six arrays' lengths) followed by the arrays
as little-endian 64-bit numbers, read with the standard library alone, so a task that never walks
never imports numpy. The index id is random, so a file committed to a repository's ``.mnemo/``
never passes for ours. The file is written atomically (temporary name, then rename) and its
arrays are checked for size, shape and bounds; any file that does not load is ignored and
rebuilt, and an older generation's file is removed when a new one is written. A read-only
``.mnemo`` just means every process builds its own.
"""

from __future__ import annotations

import logging
import os
import struct
import sys
import tempfile
import threading
from array import array
from collections import OrderedDict
from itertools import pairwise
from pathlib import Path
from typing import Any

from mnemo_core.index.store import Store
from mnemo_core.retrieve.walk import Csr, Graph, build_graph

log = logging.getLogger(__name__)

CACHED_GRAPHS = 4  # a language server serves one workspace; a benchmark walks a few repositories
FILE_PREFIX = "graph-"
FILE_SUFFIX = ".bin"
MAGIC = b"mnemo graph 1\n"
_ARRAYS = (  # name and stdlib array type, in file order
    ("ids", "q"),
    ("walk_indptr", "q"),
    ("walk_indices", "q"),
    ("walk_data", "d"),
    ("directed_indptr", "q"),
    ("directed_indices", "q"),
)
_LENGTHS = struct.Struct(f"<{len(_ARRAYS)}q")
_ITEM_BYTES = 8
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
    path = store.path.parent / f"{prefix}{generation}{FILE_SUFFIX}"
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
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info("graph cache %s not loaded (%s); rebuilding it", path, exc)
        return None
    arrays = _parse(raw)
    if arrays is None or not _consistent(arrays):
        log.info("graph cache %s is damaged or inconsistent; rebuilding it", path)
        return None
    ids = arrays["ids"]
    walk = Csr(arrays["walk_indptr"], arrays["walk_indices"], arrays["walk_data"])
    ones = array("d", [1.0]) * len(arrays["directed_indices"])
    directed = Csr(arrays["directed_indptr"], arrays["directed_indices"], ones)
    return Graph(ids, {sid: i for i, sid in enumerate(ids)}, walk, directed)


def _parse(raw: bytes) -> dict[str, array[Any]] | None:
    """The arrays of a cache file, or None when its header or size is wrong."""
    body = len(MAGIC) + _LENGTHS.size
    if not raw.startswith(MAGIC) or len(raw) < body:
        return None
    lengths = _LENGTHS.unpack_from(raw, len(MAGIC))
    if min(lengths) < 0 or len(raw) != body + _ITEM_BYTES * sum(lengths):
        return None
    arrays: dict[str, array[Any]] = {}
    offset = body
    for (name, code), length in zip(_ARRAYS, lengths, strict=True):
        values = array(code)
        values.frombytes(raw[offset : offset + _ITEM_BYTES * length])
        if sys.byteorder != "little":
            values.byteswap()
        arrays[name] = values
        offset += _ITEM_BYTES * length
    return arrays


def _consistent(arrays: dict[str, array[Any]]) -> bool:
    """Whether the arrays form two sparse matrices over ``ids``: row pointers that start at 0, never
    fall and end at the entry count; column indices inside the matrix."""
    size = len(arrays["ids"])
    for kind in ("walk", "directed"):
        indptr, indices = arrays[f"{kind}_indptr"], arrays[f"{kind}_indices"]
        if len(indptr) != size + 1 or indptr[0] != 0 or indptr[-1] != len(indices):
            return False
        if not all(a <= b for a, b in pairwise(indptr)):
            return False
        if len(indices) and (min(indices) < 0 or max(indices) >= size):
            return False
    return len(arrays["walk_data"]) == len(arrays["walk_indices"])


def _save(graph: Graph, path: Path, prefix: str) -> None:
    parts = (
        graph.ids,
        graph.walk.indptr,
        graph.walk.indices,
        graph.walk.data,
        graph.directed.indptr,
        graph.directed.indices,
    )
    try:
        handle, temporary = tempfile.mkstemp(prefix=FILE_PREFIX, suffix=".tmp", dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(MAGIC + _LENGTHS.pack(*(len(p) for p in parts)))
            for part in parts:
                if sys.byteorder != "little":
                    part = array(part.typecode, part)
                    part.byteswap()
                out.write(part.tobytes())
        os.replace(temporary, path)
    except OSError as exc:
        log.info("graph cache not written to %s: %s", path.parent, exc)
        return
    for old in path.parent.glob(f"{prefix}*"):
        if old != path and old.suffix in (FILE_SUFFIX, ".npz"):
            old.unlink(missing_ok=True)
