"""The graph of an index, one file per index generation, shared by every process.

Building the graph from every edge of the index takes seconds on a large repository (9 s of CPU on
ten stdlib copies: 3.3M edges), so the arrays are kept twice: in memory for a long-lived process
(the language server), and in ``.mnemo/graph-<index id>-<generation>.bin`` for the next short-lived
one (each CLI call is a new process). A process maps the file and reads the arrays in place
(``graphfile``): a query touches the pages of the rows it walks, builds no copy and no dict of it.
The standard library alone reads it, so a task that never walks never imports numpy.

The file of a new generation is made without reading every edge whenever it can be:

- after an update, the indexer has recorded which symbols' edges changed (``store.graphlog``) and
  kept that beside the index; the first query of the generation derives the new file from the
  earlier generation's and the current edges of those symbols (``graphbuild.derive``: the same
  arrays, byte for byte, as a build from every edge): ~0.6 s of CPU on ten stdlib copies
  for a one-file edit, half of it writing the new 115 MB file, against 9 s for a build;
- after a cold index (no earlier file to derive from), ``prepare`` builds the file at the end of
  the index, so the first query only maps it;
- otherwise (the file removed, a record damaged, most of the graph changed) the first query builds
  it from every edge, a batch at a time.

The same file holds each symbol's fan-in (how many distinct symbols call it): a query reads the
counts of its candidates from it instead of counting their callers' edges in the index.

The index id is random, so a file committed to a repository's ``.mnemo/`` never passes for ours;
the header's id and generation must be the store's own, its size must agree with its lengths and its
checksum with its bytes; any file that does not load is ignored (one log line) and made again, and
an older generation's file is removed when a new one is written. A read-only ``.mnemo`` just means
every process builds its own.
"""

from __future__ import annotations

import logging
import threading
import time
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import index
from pathlib import Path
from typing import SupportsIndex

from mnemo_core.blas import one_blas_thread
from mnemo_core.index.store import Store
from mnemo_core.index.store.derived import (
    GRAPH_PREFIX,
    GRAPH_SUFFIXES,
    derived_path,
    remove_other_generations,
)
from mnemo_core.retrieve import graphbuild, graphfile
from mnemo_core.retrieve.graphbuild import CONTAINS, TYPES, GraphArrays, Plan, collect, edge_columns
from mnemo_core.retrieve.graphfile import Stamp
from mnemo_core.retrieve.walk import Csr, Graph, Ints

log = logging.getLogger(__name__)

CACHED_GRAPHS = 4  # a language server serves one workspace; a benchmark walks a few repositories
FILE_PREFIX = GRAPH_PREFIX
FILE_SUFFIX = GRAPH_SUFFIXES[0]
EDGE_BATCH = 100_000  # edges read at a time while building: ~15 MB of rows in flight
# more changed symbols than this share of the graph's: build from every edge (a derivation reads
# the changed symbols' edges through the index's indexes, a build reads the edges in one scan)
DERIVE_MAX_SHARE = 0.25
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
    stamp = Stamp(store.index_id(), generation)
    path = _path(store, stamp.generation)
    cached = _load(path, stamp)
    if cached is None:
        cached = _made(store, path, stamp, _derived(store, stamp) or build_plan(store))
    with _lock:
        _graphs[key] = cached
        while len(_graphs) > CACHED_GRAPHS:
            _graphs.popitem(last=False)
    return cached


def prepare(store: Store) -> None:
    """Write the current generation's file now when the first query would have to build it from
    every edge: after a cold index (or an update with no earlier file to derive from), so that
    query only maps it. Nothing when the file is there or can be derived."""
    stamp = Stamp(store.index_id(), store.generation())
    path = _path(store, stamp.generation)
    if path.is_file() or store.graph_delta(stamp.generation) is not None:
        return
    started = time.perf_counter()
    plan = build_plan(store)
    _made(store, path, stamp, plan, keep=False)
    log.info("wrote the graph file (%d symbols) in %.2fs", plan.lengths[0], time.perf_counter() - started)


def build(store: Store) -> Cached:
    """The graph and the fan-in of every edge of the index, read a batch at a time
    (``walk.build_graph`` of ``store.all_edges()`` gives the same graph)."""
    return _in_memory(collect(build_plan(store)))


def build_plan(store: Store) -> Plan:
    """The file's arrays from every edge of the index, read a batch at a time."""
    return graphbuild.build(edge_columns(store.edge_batches(TYPES, EDGE_BATCH)))


def _derived(store: Store, stamp: Stamp) -> Plan | None:
    """The arrays of ``stamp``'s generation derived from an earlier generation's file and the
    change record the indexer kept, or None when there is no sound pair or most symbols changed."""
    delta = store.graph_delta(stamp.generation)
    if delta is None:
        return None
    parts = graphfile.read(_path(store, delta.base), Stamp(stamp.index_id, delta.base))
    if parts is None:
        return None
    base = _numpy(parts)
    if len(delta.changed) > DERIVE_MAX_SHARE * len(base.ids):
        log.info(
            "graph: %d symbols changed since generation %d; building from every edge",
            len(delta.changed),
            delta.base,
        )
        return None
    one_blas_thread()
    import numpy as np

    changed = list(delta.changed)
    rows = [store.edges_at(changed, TYPES), store.contains_at(changed, CONTAINS)]
    derived = graphbuild.derive(base, np.array(changed, dtype=np.int64), edge_columns(rows))
    if derived is None:
        log.info(
            "graph: the change record since generation %d misses an edge; building from every edge",
            delta.base,
        )
    return derived


def _made(store: Store, path: Path, stamp: Stamp, plan: Plan, keep: bool = True) -> Cached:
    """The arrays of ``plan`` written as the file of ``stamp`` (older generations' files and
    records removed), and mapped from it when ``keep``; held in memory when the file cannot be
    written."""
    if graphfile.write(path, stamp, plan.lengths, (piece.data for piece in plan.pieces())):
        remove_other_generations(path, stamp.index_id)
        store.forget_graph_deltas(stamp.generation)
        loaded = _load(path, stamp, check=False) if keep else None
        if loaded is not None:
            return loaded
    return _in_memory(collect(plan))


def _path(store: Store, generation: int) -> Path:
    return derived_path(store.path.parent, FILE_PREFIX, store.index_id(), generation, FILE_SUFFIX)


def _numpy(parts: list[memoryview[int]]) -> GraphArrays:
    """A file's arrays as numpy arrays over its mapping (no copy)."""
    one_blas_thread()
    import numpy as np

    integer, floating = np.int64, np.float64
    kinds = [integer, integer, integer, floating, integer, integer, floating, integer, integer]  # file order
    return GraphArrays(*(np.frombuffer(part, dtype=kind) for part, kind in zip(parts, kinds, strict=True)))


def _in_memory(arrays: GraphArrays) -> Cached:
    """The graph of arrays held in memory (views: no copy)."""
    return _cached_of([a.data.cast("B") for a in arrays])


def _load(path: Path, stamp: Stamp, check: bool = True) -> Cached | None:
    parts = graphfile.read(path, stamp, check)
    if parts is None:
        return None
    cached = _cached_of(parts)
    graph, fan_in = cached.graph, cached.fan_in
    shaped = _consistent(graph.ids, graph.walk) and _consistent(graph.ids, graph.directed)
    if not shaped or len(fan_in.ids) != len(fan_in.counts):
        log.warning("graph cache %s does not have the graph's shape; rebuilding it", path)
        return None
    return cached


def _cached_of(parts: list[memoryview[int]]) -> Cached:
    """The graph over the bytes of its arrays (in the file's order), read as 64-bit items."""
    ids = parts[0].cast("q")
    walk = Csr(parts[1].cast("q"), parts[2].cast("q"), parts[3].cast("d"))
    directed = Csr(parts[4].cast("q"), parts[5].cast("q"), parts[6].cast("d"))
    return Cached(Graph(ids, DenseIndex(ids), walk, directed), FanIn(parts[7].cast("q"), parts[8].cast("q")))


def _consistent(ids: Ints, matrix: Csr) -> bool:
    """Whether a matrix has the shape of a sparse matrix over ``ids``: one row pointer per id and
    one more, starting at 0 and ending at the entry count; one value per column index."""
    indptr, indices = matrix.indptr, matrix.indices
    if len(indptr) != len(ids) + 1 or indptr[0] != 0 or indptr[-1] != len(indices):
        return False
    return len(matrix.data) == len(indices)
