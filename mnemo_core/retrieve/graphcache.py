"""The graph of an index, built once per index generation and shared.

Building the graph reads every edge of the index (seconds on a large repository), so the arrays are
kept twice: in memory for a long-lived process (the language server), and in
``.mnemo/graph-<index id>-<generation>.bin`` for the next short-lived one (each CLI call is a new
process). The file is a header (a magic line with the byte order, the index id and generation it
was built from, the arrays' lengths) followed by the arrays as 64-bit numbers in the machine's byte
order, each at a multiple of 8 bytes. A process maps the file and reads the arrays in place
(``memoryview``): a query touches the pages of the rows it walks, not the whole file, and builds no
copy and no dict of it, so loading costs the same on an index of 3,000 symbols and of 760,000.
The standard library alone reads it, so a task that never walks never imports numpy.

The same file holds each symbol's fan-in (how many distinct symbols call it), counted from the same
edges: a query reads the counts of its candidates from it instead of counting their callers' edges
in the index (on ten stdlib copies a candidate has ten times the callers). The build reads the
edges a batch at a time into numpy arrays: no Python object per edge outlives its batch.

The index id is random, so a file committed to a repository's ``.mnemo/`` never passes for ours;
the header's id and generation must be the store's own (a file copied or renamed from another
generation is not read), and its size, lengths and row-pointer ends must agree. The arrays' values
are not scanned (that was most of a load: O(edges)): the file is ours, written whole under a
temporary name and renamed. Any file that does not load is ignored and rebuilt, and an older
generation's file is removed when a new one is written. A read-only ``.mnemo`` just means every
process builds its own.
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
import sys
import tempfile
import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import index
from pathlib import Path
from typing import TYPE_CHECKING, SupportsIndex

from mnemo_core.blas import one_blas_thread
from mnemo_core.index.store import Store
from mnemo_core.index.store.derived import (
    GRAPH_PREFIX,
    GRAPH_SUFFIXES,
    derived_path,
    remove_other_generations,
)
from mnemo_core.retrieve.walk import EDGE_WEIGHTS, HITS_EDGE_TYPES, Csr, Graph, Ints, graph_arrays, int_array

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

CACHED_GRAPHS = 4  # a language server serves one workspace; a benchmark walks a few repositories
FILE_PREFIX = GRAPH_PREFIX
FILE_SUFFIX = GRAPH_SUFFIXES[0]
MAGIC = f"mnemo graph 3 {sys.byteorder[0]}\n".encode()  # 16 bytes; a file of the other byte order is rebuilt
# ids; the walk's indptr, indices, data; the directed matrix's (64-bit ints, data floats); the called
# symbols' ids (ascending) and their fan-in
_ARRAYS = 9
EDGE_BATCH = 100_000  # edges read at a time while building: ~15 MB of rows in flight
_TYPES = tuple(dict.fromkeys([*EDGE_WEIGHTS, *sorted(HITS_EDGE_TYPES), "calls"]))  # an edge's type code
_HEADER = struct.Struct(f"=16s16sq{_ARRAYS}q")  # magic, index id, generation, lengths: 8-byte aligned
_ITEM_BYTES = 8
_graphs: OrderedDict[tuple[str, int], Cached] = OrderedDict()
_lock = threading.Lock()


class DenseIndex(Mapping[int, int]):
    """Symbol id -> dense index over a graph's sorted ``ids``, by binary search: no dict of every
    symbol is built for a query that looks up a few dozen."""

    def __init__(self, ids: Ints) -> None:
        self._ids = ids

    def __getitem__(self, sid: int) -> int:
        at = bisect_left(self._ids, sid)
        if at < len(self._ids) and self._ids[at] == sid:
            return at
        raise KeyError(sid)

    def __contains__(self, sid: object) -> bool:
        if not isinstance(sid, SupportsIndex):  # an int, or a numpy integer
            return False
        at = bisect_left(self._ids, index(sid))
        return at < len(self._ids) and self._ids[at] == sid

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


@dataclass(frozen=True)
class FanIn:
    """Each called symbol's fan-in: ``counts[i]`` distinct symbols call ``ids[i]`` (ascending); a
    symbol nothing calls is not there."""

    ids: Ints
    counts: Ints

    def of(self, sids: Iterable[int]) -> dict[int, int]:
        """The fan-in of each of ``sids`` that something calls."""
        out: dict[int, int] = {}
        for sid in sids:
            at = bisect_left(self.ids, sid)
            if at < len(self.ids) and self.ids[at] == sid:
                out[sid] = int(self.counts[at])
        return out


@dataclass(frozen=True)
class Cached:
    """What the file of one index generation holds."""

    graph: Graph
    fan_in: FanIn


def graph_for(store: Store) -> Graph:
    """The graph of the store's current generation (loaded once, then shared)."""
    return _cached(store).graph


def fan_in_of(store: Store, sids: Iterable[int]) -> dict[int, int]:
    """How many distinct callers each of ``sids`` has (those with none are left out), as
    ``count(DISTINCT src)`` of the ``calls`` edges into it counts them."""
    return _cached(store).fan_in.of(sids)


def _cached(store: Store) -> Cached:
    generation = store.generation()
    key = (str(store.path), generation)
    with _lock:
        cached = _graphs.get(key)
        if cached is not None:
            _graphs.move_to_end(key)
            return cached
    index_id = store.index_id()
    path = derived_path(store.path.parent, FILE_PREFIX, index_id, generation, FILE_SUFFIX)
    stamp = (index_id.encode(), generation)
    cached = _load(path, stamp)
    if cached is None:
        cached = build(store)
        _save(cached, path, stamp)
    with _lock:
        _graphs[key] = cached
        while len(_graphs) > CACHED_GRAPHS:
            _graphs.popitem(last=False)
    return cached


def build(store: Store) -> Cached:
    """The graph and the fan-in of the index's edges, read a batch at a time (``build_graph`` of
    ``store.all_edges()`` gives the same graph)."""
    one_blas_thread()
    import numpy as np

    weights = np.array([EDGE_WEIGHTS.get(t, 0.0) for t in _TYPES] + [0.0])  # code -1: another type
    hits = np.array([t in HITS_EDGE_TYPES for t in _TYPES] + [False])
    calls = _TYPES.index("calls")
    columns: list[list[np.ndarray]] = [[], [], [], [], []]  # src, dst, weight, HITS-typed, a call
    for batch in store.edge_batches(_TYPES, EDGE_BATCH):
        rows = np.array(batch, dtype=np.float64)  # symbol ids are far below 2**53: exact
        codes = rows[:, 2].astype(np.int64)
        columns[0].append(rows[:, 0].astype(np.int64))
        columns[1].append(rows[:, 1].astype(np.int64))
        columns[2].append(weights[codes] * rows[:, 3])
        columns[3].append(hits[codes])
        columns[4].append(codes == calls)
        del rows, codes
    src, dst, weight, typed, called = (
        np.concatenate(c) if c else np.zeros(0, dtype=t)
        for c, t in zip(columns, (np.int64, np.int64, np.float64, bool, bool), strict=True)
    )
    del columns
    counted = _fan_in(src[called], dst[called])
    ids, walk, directed = graph_arrays(src, dst, weight, typed)
    return Cached(Graph(ids, DenseIndex(ids), walk, directed), counted)


def _fan_in(src: np.ndarray, dst: np.ndarray) -> FanIn:
    """Distinct callers per called symbol, from the ``calls`` edges' ends (an edge from a symbol to
    itself counted too, as ``count(DISTINCT src)`` in the index counts it)."""
    one_blas_thread()
    import numpy as np

    order = np.lexsort((src, dst))
    src, dst = src[order], dst[order]
    distinct = np.ones(len(dst), dtype=bool)
    distinct[1:] = (dst[1:] != dst[:-1]) | (src[1:] != src[:-1])
    called, counts = np.unique(dst[distinct], return_counts=True)
    return FanIn(int_array(called), int_array(counts))


def _load(path: Path, stamp: tuple[bytes, int]) -> Cached | None:
    try:
        with path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        log.info("graph cache %s not loaded (%s); rebuilding it", path, exc)
        return None
    parts = _parts(memoryview(mapped), stamp)
    if parts is None:
        log.info("graph cache %s is damaged, inconsistent or another index's; rebuilding it", path)
        return None
    ids = parts[0].cast("q")
    walk = Csr(parts[1].cast("q"), parts[2].cast("q"), parts[3].cast("d"))
    directed = Csr(parts[4].cast("q"), parts[5].cast("q"), parts[6].cast("d"))
    called = FanIn(parts[7].cast("q"), parts[8].cast("q"))
    if not _consistent(ids, walk) or not _consistent(ids, directed) or len(called.ids) != len(called.counts):
        log.info("graph cache %s does not have the graph's shape; rebuilding it", path)
        return None
    return Cached(Graph(ids, DenseIndex(ids), walk, directed), called)


def _parts(view: memoryview[int], stamp: tuple[bytes, int]) -> list[memoryview[int]] | None:
    """The arrays' bytes in a cache file, in file order; None when its header, stamp or size is
    wrong."""
    if len(view) < _HEADER.size:
        return None
    magic, index_id, generation, *lengths = _HEADER.unpack_from(view)
    if magic != MAGIC or (index_id.rstrip(b"\0"), generation) != stamp or min(lengths) < 0:
        return None
    if len(view) != _HEADER.size + _ITEM_BYTES * sum(lengths):
        return None
    parts: list[memoryview[int]] = []
    offset = _HEADER.size
    for length in lengths:
        parts.append(view[offset : offset + _ITEM_BYTES * length])
        offset += _ITEM_BYTES * length
    return parts


def _consistent(ids: Ints, matrix: Csr) -> bool:
    """Whether a matrix has the shape of a sparse matrix over ``ids``: one row pointer per id and
    one more, starting at 0 and ending at the entry count; one value per column index."""
    indptr, indices = matrix.indptr, matrix.indices
    if len(indptr) != len(ids) + 1 or indptr[0] != 0 or indptr[-1] != len(indices):
        return False
    return len(matrix.data) == len(indices)


def _save(cached: Cached, path: Path, stamp: tuple[bytes, int]) -> None:
    graph = cached.graph
    parts = (
        graph.ids,
        graph.walk.indptr,
        graph.walk.indices,
        graph.walk.data,
        graph.directed.indptr,
        graph.directed.indices,
        graph.directed.data,
        cached.fan_in.ids,
        cached.fan_in.counts,
    )
    index_id, generation = stamp
    try:
        handle, temporary = tempfile.mkstemp(prefix=FILE_PREFIX, suffix=".tmp", dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(_HEADER.pack(MAGIC, index_id, generation, *(len(p) for p in parts)))
            for part in parts:
                out.write(part)
        os.replace(temporary, path)
    except OSError as exc:
        log.info("graph cache not written to %s: %s", path.parent, exc)
        return
    remove_other_generations(path, index_id.decode())
