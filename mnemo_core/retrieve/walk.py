"""Graph propagation: a random walk with restart from the seeds, then HITS on the best nodes.

The walk runs on the seeds' neighbourhood (``NEIGHBOURHOOD_HOPS`` hops, at most ``MAX_NODES``
nodes), over typed edges in both directions: a walker at a function moves to what it calls and,
a little less readily, to its callers. Each step is one sparse matrix-vector product; iteration stops
when the top of the ranking has not moved for a few steps. HITS over the top ``HITS_NODES`` nodes
separates authorities (code many relevant functions rely on) from hubs (code that calls many).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class WalkResult:
    """Walk probabilities, hop distances from the seeds, and HITS scores of the top nodes."""

    scores: dict[int, float]
    hops: dict[int, int]
    authority: dict[int, float]
    hub: dict[int, float]
    iterations: int
    nodes: int


def neighbourhood(seeds: Iterable[int], fetch: Callable[[list[int]], list[EdgeRow]],
                  hops: int = NEIGHBOURHOOD_HOPS, max_nodes: int = MAX_NODES) -> tuple[dict[int, int], list[EdgeRow]]:
    """Nodes within ``hops`` of the seeds (with their distance) and the edges among them."""
    distance = {s: 0 for s in seeds}
    frontier = list(distance)
    edges: dict[tuple[int, int, str], EdgeRow] = {}
    for hop in range(1, hops + 1):
        if not frontier:
            break
        found = fetch(frontier)
        next_frontier: list[int] = []
        for edge in found:
            src, dst = edge[0], edge[1]
            for node in (src, dst):
                if node not in distance and len(distance) < max_nodes:
                    distance[node] = hop
                    next_frontier.append(node)
            if src in distance and dst in distance:
                edges[(src, dst, edge[2])] = edge
        frontier = next_frontier
    if frontier:
        edges.update(((e[0], e[1], e[2]), e) for e in fetch(frontier) if e[0] in distance and e[1] in distance)
    return distance, sorted(edges.values())


def transition_matrix(nodes: list[int], edges: Iterable[EdgeRow]) -> sp.csc_matrix:
    """Column-stochastic matrix: column j holds where a walker at node j steps next."""
    index = {n: i for i, n in enumerate(nodes)}
    rows, cols, vals = [], [], []
    for src, dst, edge_type, confidence in edges:
        weight = EDGE_WEIGHTS.get(edge_type, 0.0) * confidence
        if weight <= 0 or src == dst:
            continue
        i, j = index[src], index[dst]
        rows += [j, i]
        cols += [i, j]
        vals += [weight, weight * BACKWARD]
    n = len(nodes)
    matrix = sp.csc_matrix((vals, (rows, cols)), shape=(n, n), dtype=np.float64)
    totals = np.asarray(matrix.sum(axis=0)).ravel()
    totals[totals == 0] = 1.0
    return sp.csc_matrix(matrix.multiply(1.0 / totals))


def random_walk(nodes: list[int], matrix: sp.csc_matrix, restart: Mapping[int, float]) -> tuple[np.ndarray, int]:
    """Random walk with restart; returns the stationary probabilities and the iterations used."""
    index = {n: i for i, n in enumerate(nodes)}
    s = np.zeros(len(nodes))
    for node, weight in restart.items():
        s[index[node]] = weight
    s /= s.sum() or 1.0
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


def hits(nodes: list[int], edges: Iterable[EdgeRow]) -> tuple[dict[int, float], dict[int, float]]:
    """HITS authority and hub scores (each scaled to a maximum of 1) on the given nodes."""
    index = {n: i for i, n in enumerate(nodes)}
    rows, cols = [], []
    for src, dst, edge_type, _ in edges:
        if edge_type in HITS_EDGE_TYPES and src in index and dst in index and src != dst:
            rows.append(index[src])
            cols.append(index[dst])
    n = len(nodes)
    if not rows:
        return {node: 0.0 for node in nodes}, {node: 0.0 for node in nodes}
    adjacency = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    hub = np.ones(n)
    authority = np.ones(n)
    for _ in range(HITS_ITERATIONS):
        authority = adjacency.T @ hub
        authority /= authority.max() or 1.0
        hub = adjacency @ authority
        hub /= hub.max() or 1.0
    return ({node: float(authority[i]) for node, i in index.items()},
            {node: float(hub[i]) for node, i in index.items()})


def walk(restart: Mapping[int, float], fetch: Callable[[list[int]], list[EdgeRow]]) -> WalkResult:
    """The whole propagation step: neighbourhood, random walk with restart, HITS on the top nodes."""
    distance, edges = neighbourhood(restart, fetch)
    nodes = sorted(distance)
    if not nodes:
        return WalkResult({}, {}, {}, {}, 0, 0)
    probabilities, iterations = random_walk(nodes, transition_matrix(nodes, edges), restart)
    scores = {node: float(probabilities[i]) for i, node in enumerate(nodes)}
    top = sorted(nodes, key=lambda n: (-scores[n], n))[:HITS_NODES]
    authority, hub = hits(top, edges)
    return WalkResult(scores, distance, authority, hub, iterations, len(nodes))
