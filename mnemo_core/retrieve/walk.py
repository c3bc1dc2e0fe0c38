"""Graph propagation: the seeds' neighbourhood, and a random walk with restart and HITS on it.

The whole graph is held as two sparse matrices in compressed-row form (stdlib ``array``s, loaded
once per index generation and cached, so a query that only needs distances never loads numpy):
the walk's weighted adjacency, where a walker at a function moves to what it calls and, a little
less readily, to its callers; and the directed call/inheritance adjacency that HITS reads. Every
query cuts the seeds' neighbourhood (``NEIGHBOURHOOD_HOPS`` hops, at most ``MAX_NODES`` nodes) out
of the first, with each node's distance and the share of the seeds' weight one step of the walk
hands it (``reach``). The walk itself (numpy) runs only when asked: it iterates one sparse
matrix-vector product per step (``numpy.bincount`` over the steps) until the top of the ranking has
not moved for a few steps, and HITS over the top ``HITS_NODES`` nodes separates authorities (code
the relevant code relies on) from hubs (code that calls much of it).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from mnemo_core.blas import one_blas_thread

if TYPE_CHECKING:  # numpy loads on first use: a task whose walk weights are zero never needs it
    import numpy as np

RESTART = 0.2  # probability of jumping back to a seed: keeps the walk near the task
NEIGHBOURHOOD_HOPS = 2
MAX_NODES = 4000
MAX_ITERATIONS = 60
STABLE_TOP = 40  # the walk stops once this many top nodes keep their order ...
STABLE_ROUNDS = 3  # ... for this many iterations
TOLERANCE = 1e-6
HITS_NODES = 200
HITS_ITERATIONS = 30
BACKWARD = 0.7  # walking from a callee to its callers is a little less telling than the reverse
EDGE_WEIGHTS = {
    "calls": 1.0,  # the strongest tie between two pieces of code
    "inherits": 0.8,
    "overrides": 0.8,
    "contains": 0.4,  # a method and its class: related, but a class holds many unrelated methods
    "imports": 0.2,  # module-level: weak evidence about any one symbol
    "tests": 0.0,  # mirrors "calls" from tests; counting it twice would pull tests up
}
HITS_EDGE_TYPES = frozenset({"calls", "inherits", "overrides"})

EdgeRow = tuple[int, int, str, float]
Ints: TypeAlias = "array[int] | memoryview[int]"  # built in memory, or read in place from the cache file
Floats: TypeAlias = "array[float] | memoryview[float]"


def summed_entries(
    rows: np.ndarray, cols: np.ndarray, data: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, column, value) of a sparse matrix from its entries, sorted by row then column:
    duplicates add up in the order given, zero entries are dropped first."""
    import numpy as np

    keep = data != 0
    rows, cols, data = rows[keep], cols[keep], data[keep]
    if len(rows):
        key = rows * size + cols
        unique, inverse = np.unique(key, return_inverse=True)
        data = np.bincount(inverse, weights=data)
        rows, cols = unique // size, unique % size
    return (
        rows.astype(np.int64, copy=False),
        cols.astype(np.int64, copy=False),
        data.astype(np.float64, copy=False),
    )


@dataclass(frozen=True)
class Csr:
    """A square sparse matrix in compressed-row form: row i is ``indices[indptr[i]:indptr[i+1]]``
    (64-bit integers and floats)."""

    indptr: Ints
    indices: Ints
    data: Floats

    @classmethod
    def from_entries(cls, rows: np.ndarray, cols: np.ndarray, data: np.ndarray, size: int) -> Csr:
        """Duplicate entries add up; zero entries are dropped."""
        one_blas_thread()
        import numpy as np

        rows, cols, data = summed_entries(rows, cols, data, size)
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=size), out=indptr[1:])
        return cls(int_array(indptr), int_array(cols), float_array(data))

    def entries(self, nodes: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, column, value) of every entry whose row and column are both in ``nodes``, numbered
        by position in ``nodes``."""
        one_blas_thread()
        import numpy as np

        indptr = np.frombuffer(self.indptr, dtype=np.int64)
        indices = np.frombuffer(self.indices, dtype=np.int64)
        data = np.frombuffer(memoryview(self.data), dtype=np.float64)  # numpy types no float views
        picked = np.asarray(nodes, dtype=np.int64)
        local = np.full(len(indptr) - 1, -1, dtype=np.int64)
        local[picked] = np.arange(len(picked))
        starts, counts = indptr[picked], indptr[picked + 1] - indptr[picked]
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        rows = np.repeat(np.arange(len(picked)), counts)
        cols = local[indices[offsets]]
        inside = cols >= 0
        return rows[inside], cols[inside], data[offsets][inside]


def int_array(values: np.ndarray) -> array[int]:
    """A numpy array as a stdlib array of 64-bit integers."""
    out = array("q")
    out.frombytes(values.astype("<i8").tobytes())
    return out


def float_array(values: np.ndarray) -> array[float]:
    """A numpy array as a stdlib array of 64-bit floats."""
    out = array("d")
    out.frombytes(values.astype("<f8").tobytes())
    return out


@dataclass(frozen=True)
class Graph:
    """The symbol graph as sparse matrices over a dense numbering of symbol ids."""

    ids: Ints  # dense index -> symbol id, ascending
    index: Mapping[int, int]  # symbol id -> dense index
    walk: Csr  # walk[i, j]: weight of stepping from i to j
    directed: Csr  # directed[i, j] = 1 when i calls, inherits from or overrides j


@dataclass(frozen=True)
class Steps:
    """A walk's moves on a set of nodes: from ``src`` to ``dst`` with probability ``p``."""

    src: np.ndarray
    dst: np.ndarray
    p: np.ndarray
    size: int

    def sum_by_source(self) -> np.ndarray:
        """Total probability of leaving each node (0 for a node with nowhere to go)."""
        one_blas_thread()
        import numpy as np

        return np.bincount(self.src, weights=self.p, minlength=self.size)


@dataclass(frozen=True, slots=True)
class Reach:
    """The seeds' neighbourhood: each node's hops from the nearest seed (dense index -> hops), and the
    weight the walk's first step hands each symbol (symbol id -> weight; seeds keep none)."""

    distance: dict[int, int]
    first_step: dict[int, float]


@dataclass(frozen=True, slots=True)
class WalkResult:
    """Walk probabilities, hop distances from the seeds, and HITS scores of the top nodes (the
    probabilities and scores are empty when the walk did not run: ``iterations`` is 0)."""

    scores: dict[int, float]
    hops: dict[int, int]
    authority: dict[int, float]
    hub: dict[int, float]
    iterations: int
    nodes: int


def build_graph(edges: Iterable[EdgeRow]) -> Graph:
    """Both matrices from (src, dst, type, confidence) rows."""
    one_blas_thread()
    import numpy as np

    rows = list(edges)
    src = np.array([e[0] for e in rows], dtype=np.int64)
    dst = np.array([e[1] for e in rows], dtype=np.int64)
    weight = np.array([EDGE_WEIGHTS.get(e[2], 0.0) * e[3] for e in rows], dtype=np.float64)
    typed = np.array([e[2] in HITS_EDGE_TYPES for e in rows], dtype=bool)
    ids, walk, directed = graph_arrays(src, dst, weight, typed)
    return Graph(ids, {int(n): i for i, n in enumerate(ids)}, walk, directed)


def graph_arrays(
    src: np.ndarray, dst: np.ndarray, weight: np.ndarray, typed: np.ndarray
) -> tuple[array[int], Csr, Csr]:
    """The graph's ids and both matrices from its edges as arrays, in the index's order: symbol ids
    at both ends, ``weight`` (``EDGE_WEIGHTS`` of the type times the confidence) and ``typed``
    (a ``HITS_EDGE_TYPES`` edge). An edge from a symbol to itself is left out."""
    one_blas_thread()
    import numpy as np

    apart = src != dst
    if not apart.all():  # the resolver keeps none: no copy of every edge for nothing
        src, dst, weight, typed = src[apart], dst[apart], weight[apart], typed[apart]
    ids = np.unique(np.concatenate([src, dst]))
    n = len(ids)
    src, dst = np.searchsorted(ids, src), np.searchsorted(ids, dst)
    walk = Csr.from_entries(
        np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([weight, weight * BACKWARD]), n
    )
    directed = Csr.from_entries(src[typed], dst[typed], np.ones(int(typed.sum())), n)
    ones = array("d", [1.0]) * len(directed.indices)
    return int_array(ids), walk, Csr(directed.indptr, directed.indices, ones)


def neighbourhood(
    graph: Graph, seeds: Iterable[int], hops: int = NEIGHBOURHOOD_HOPS, max_nodes: int = MAX_NODES
) -> dict[int, int]:
    """Dense indices within ``hops`` of the seeds, with their distance (seeds first, then by hop)."""
    distance = {graph.index[s]: 0 for s in seeds if s in graph.index}
    frontier = list(distance)
    indptr, indices = graph.walk.indptr, graph.walk.indices
    for hop in range(1, hops + 1):
        next_frontier: list[int] = []
        for node in frontier:
            for other in indices[indptr[node] : indptr[node + 1]]:
                other = int(other)
                if other not in distance:
                    if len(distance) >= max_nodes:
                        return distance
                    distance[other] = hop
                    next_frontier.append(other)
        frontier = next_frontier
    return distance


def reach(graph: Graph, restart: Mapping[int, float]) -> Reach:
    """The neighbourhood of the seeds in ``restart`` (symbol id -> weight), and what one step of the
    walk from them hands their neighbours: a seed's weight, split over its edges by their weights."""
    distance = neighbourhood(graph, restart)
    indptr, indices, data, ids = graph.walk.indptr, graph.walk.indices, graph.walk.data, graph.ids
    first: dict[int, float] = {}
    for sid, weight in restart.items():
        node = graph.index.get(sid)
        if node is None:
            continue
        start, end = indptr[node], indptr[node + 1]
        total = sum(data[start:end])
        if total <= 0:
            continue
        for other, edge in zip(indices[start:end], data[start:end], strict=True):
            first[ids[other]] = first.get(ids[other], 0.0) + weight * edge / total
    return Reach(distance, {sid: w for sid, w in first.items() if sid not in restart})


def hops_only(graph: Graph, near: Reach) -> WalkResult:
    """The result of a task whose walk did not run: distances, no probabilities or HITS scores."""
    hops = {graph.ids[n]: d for n, d in near.distance.items()}
    return WalkResult({}, hops, {}, {}, 0, len(near.distance))


def transition_steps(graph: Graph, nodes: Sequence[int]) -> Steps:
    """The walk's moves among dense ``nodes`` (numbered by position): from each node, its edges'
    weights scaled to sum to 1."""
    one_blas_thread()
    import numpy as np

    src, dst, weight = graph.walk.entries(nodes)
    totals = np.bincount(src, weights=weight, minlength=len(nodes))
    totals[totals == 0] = 1.0
    return Steps(src, dst, weight / totals[src], len(nodes))


def random_walk(steps: Steps, restart: np.ndarray) -> tuple[np.ndarray, int]:
    """Random walk with restart; returns the stationary probabilities and the iterations used."""
    one_blas_thread()
    import numpy as np

    s = restart / (restart.sum() or 1.0)
    dangling = steps.sum_by_source() == 0
    p = s.copy()
    stable, last_top = 0, None
    for iteration in range(1, MAX_ITERATIONS + 1):
        moved = np.bincount(steps.dst, weights=steps.p * p[steps.src], minlength=steps.size)
        nxt = (1 - RESTART) * moved + RESTART * s + (1 - RESTART) * p[dangling].sum() * s
        delta = float(np.abs(nxt - p).sum())
        p = nxt
        top = tuple(np.argsort(-p, kind="stable")[:STABLE_TOP])
        stable = stable + 1 if top == last_top else 0
        last_top = top
        if stable >= STABLE_ROUNDS or delta < TOLERANCE:
            return p, iteration
    return p, MAX_ITERATIONS


def hits(adjacency: Csr, nodes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """HITS authority and hub scores (each scaled to a maximum of 1) of the directed adjacency among
    dense ``nodes`` (numbered by position)."""
    one_blas_thread()
    import numpy as np

    n = len(nodes)
    src, dst, _ = adjacency.entries(nodes)
    hub: np.ndarray = np.ones(n)
    authority: np.ndarray = np.zeros(n)
    if not len(src):
        return authority, np.zeros(n)
    for _ in range(HITS_ITERATIONS):
        # weighted counts are floats (numpy's stubs type every bincount as integers)
        authority = np.asarray(np.bincount(dst, weights=hub[src], minlength=n), dtype=np.float64)
        authority /= authority.max() or 1.0
        hub = np.asarray(np.bincount(src, weights=authority[dst], minlength=n), dtype=np.float64)
        hub /= hub.max() or 1.0
    return authority, hub


def walk(graph: Graph, restart: Mapping[int, float], near: Reach | None = None) -> WalkResult:
    """The whole propagation step: neighbourhood (``near``, when already cut), random walk with
    restart, HITS on the top nodes."""
    one_blas_thread()
    import numpy as np

    distance = (near or reach(graph, restart)).distance
    if not distance:
        return WalkResult({}, {}, {}, {}, 0, 0)
    nodes = sorted(distance)
    position = {node: i for i, node in enumerate(nodes)}
    s = np.zeros(len(nodes))
    for sid, weight in restart.items():
        if sid in graph.index:
            s[position[graph.index[sid]]] = weight
    probabilities, iterations = random_walk(transition_steps(graph, nodes), s)
    ids = np.frombuffer(graph.ids, dtype=np.int64)[nodes]
    scores = {int(sid): float(p) for sid, p in zip(ids, probabilities, strict=True)}
    order = np.lexsort((ids, -probabilities))[:HITS_NODES]
    top = [nodes[i] for i in order]
    authority, hub = hits(graph.directed, top)
    top_ids = [int(graph.ids[n]) for n in top]
    return WalkResult(
        scores=scores,
        hops={int(graph.ids[n]): d for n, d in distance.items()},
        authority=dict(zip(top_ids, map(float, authority), strict=True)),
        hub=dict(zip(top_ids, map(float, hub), strict=True)),
        iterations=iterations,
        nodes=len(nodes),
    )
