"""Graph propagation: a random walk with restart from the seeds, then HITS on the best nodes.

The whole graph is held as two sparse matrices (loaded once per index generation and cached):
the walk's weighted adjacency, where a walker at a function moves to what it calls and, a little
less readily, to its callers; and the directed call/inheritance adjacency that HITS reads. A query
cuts the seeds' neighbourhood (``NEIGHBOURHOOD_HOPS`` hops, at most ``MAX_NODES`` nodes) out of the
first, and iterates one sparse matrix-vector product per step until the top of the ranking has not
moved for a few steps. HITS over the top ``HITS_NODES`` nodes separates authorities (code the
relevant code relies on) from hubs (code that calls much of it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and scipy load on first use: commands that never walk start faster
    import numpy as np
    import scipy.sparse as sp

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


@dataclass(frozen=True)
class Graph:
    """The symbol graph as sparse matrices over a dense numbering of symbol ids."""

    ids: np.ndarray  # dense index -> symbol id
    index: dict[int, int]  # symbol id -> dense index
    walk: sp.csr_matrix  # walk[i, j]: weight of stepping from i to j
    directed: sp.csr_matrix  # directed[i, j] = 1 when i calls, inherits from or overrides j


@dataclass(frozen=True, slots=True)
class WalkResult:
    """Walk probabilities, hop distances from the seeds, and HITS scores of the top nodes."""

    scores: dict[int, float]
    hops: dict[int, int]
    authority: dict[int, float]
    hub: dict[int, float]
    iterations: int
    nodes: int


def build_graph(edges: Iterable[EdgeRow]) -> Graph:
    """Both matrices from (src, dst, type, confidence) rows."""
    import numpy as np
    import scipy.sparse as sp

    rows = [e for e in edges if e[0] != e[1]]
    ids = np.array(sorted({n for e in rows for n in e[:2]}), dtype=np.int64)
    index = {int(n): i for i, n in enumerate(ids)}
    n = len(ids)
    src = np.array([index[e[0]] for e in rows], dtype=np.int64)
    dst = np.array([index[e[1]] for e in rows], dtype=np.int64)
    weight = np.array([EDGE_WEIGHTS.get(e[2], 0.0) * e[3] for e in rows], dtype=np.float64)
    walk = sp.csr_matrix((np.concatenate([weight, weight * BACKWARD]),
                          (np.concatenate([src, dst]), np.concatenate([dst, src]))), shape=(n, n))
    walk.eliminate_zeros()
    typed = np.array([e[2] in HITS_EDGE_TYPES for e in rows], dtype=bool)
    directed = sp.csr_matrix((np.ones(int(typed.sum())), (src[typed], dst[typed])), shape=(n, n))
    directed.data[:] = 1.0
    return Graph(ids, index, walk, directed)


def neighbourhood(graph: Graph, seeds: Iterable[int], hops: int = NEIGHBOURHOOD_HOPS,
                  max_nodes: int = MAX_NODES) -> dict[int, int]:
    """Dense indices within ``hops`` of the seeds, with their distance (seeds first, then by hop)."""
    distance = {graph.index[s]: 0 for s in seeds if s in graph.index}
    frontier = list(distance)
    indptr, indices = graph.walk.indptr, graph.walk.indices
    for hop in range(1, hops + 1):
        next_frontier: list[int] = []
        for node in frontier:
            for other in indices[indptr[node]:indptr[node + 1]]:
                other = int(other)
                if other not in distance:
                    if len(distance) >= max_nodes:
                        return distance
                    distance[other] = hop
                    next_frontier.append(other)
        frontier = next_frontier
    return distance


def transition_matrix(graph: Graph, nodes: list[int]) -> sp.csc_matrix:
    """Column-stochastic matrix on dense ``nodes``: column j holds where a walker at j steps next."""
    import numpy as np
    import scipy.sparse as sp

    sub = graph.walk[nodes][:, nodes]
    totals = np.asarray(sub.sum(axis=1)).ravel()
    totals[totals == 0] = 1.0
    return sp.csc_matrix(sp.diags(1.0 / totals) @ sub).T.tocsc()


def random_walk(matrix: sp.csc_matrix, restart: np.ndarray) -> tuple[np.ndarray, int]:
    """Random walk with restart; returns the stationary probabilities and the iterations used."""
    import numpy as np

    s = restart / (restart.sum() or 1.0)
    dangling = np.asarray(matrix.sum(axis=0)).ravel() == 0
    p = s.copy()
    stable, last_top = 0, None
    for iteration in range(1, MAX_ITERATIONS + 1):
        nxt = (1 - RESTART) * (matrix @ p) + RESTART * s + (1 - RESTART) * p[dangling].sum() * s
        delta = float(np.abs(nxt - p).sum())
        p = nxt
        top = tuple(np.argsort(-p, kind="stable")[:STABLE_TOP])
        stable = stable + 1 if top == last_top else 0
        last_top = top
        if stable >= STABLE_ROUNDS or delta < TOLERANCE:
            return p, iteration
    return p, MAX_ITERATIONS


def hits(adjacency: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """HITS authority and hub scores (each scaled to a maximum of 1) of a directed adjacency."""
    import numpy as np

    n = adjacency.shape[0]
    hub = np.ones(n)
    authority = np.zeros(n)
    if adjacency.nnz == 0:
        return authority, np.zeros(n)
    for _ in range(HITS_ITERATIONS):
        authority = adjacency.T @ hub
        authority /= authority.max() or 1.0
        hub = adjacency @ authority
        hub /= hub.max() or 1.0
    return authority, hub


def walk(graph: Graph, restart: Mapping[int, float]) -> WalkResult:
    """The whole propagation step: neighbourhood, random walk with restart, HITS on the top nodes."""
    import numpy as np

    distance = neighbourhood(graph, restart)
    if not distance:
        return WalkResult({}, {}, {}, {}, 0, 0)
    nodes = sorted(distance)
    position = {node: i for i, node in enumerate(nodes)}
    s = np.zeros(len(nodes))
    for sid, weight in restart.items():
        if sid in graph.index:
            s[position[graph.index[sid]]] = weight
    probabilities, iterations = random_walk(transition_matrix(graph, nodes), s)
    ids = graph.ids[nodes]
    scores = {int(sid): float(p) for sid, p in zip(ids, probabilities)}
    order = np.lexsort((ids, -probabilities))[:HITS_NODES]
    top = [nodes[i] for i in order]
    authority, hub = hits(graph.directed[top][:, top])
    top_ids = [int(graph.ids[n]) for n in top]
    return WalkResult(
        scores=scores,
        hops={int(graph.ids[n]): d for n, d in distance.items()},
        authority=dict(zip(top_ids, map(float, authority))),
        hub=dict(zip(top_ids, map(float, hub))),
        iterations=iterations,
        nodes=len(nodes),
    )
