"""Random walk with restart and HITS on small graphs with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from mnemo_core.retrieve.walk import (
    Csr,
    build_graph,
    hits,
    neighbourhood,
    random_walk,
    transition_steps,
    walk,
)

# 1 -> 2 -> 3 -> 4 (a chain); 10 calls 2 and 3 (a hub); 11 calls 2; 2 and 3 are authorities
EDGES = [
    (1, 2, "calls", 1.0),
    (2, 3, "calls", 1.0),
    (3, 4, "calls", 1.0),
    (10, 2, "calls", 1.0),
    (10, 3, "calls", 1.0),
    (11, 2, "calls", 1.0),
]
GRAPH = build_graph(EDGES)


def ids(dense: dict[int, int]) -> dict[int, int]:
    return {int(GRAPH.ids[n]): d for n, d in dense.items()}


def test_neighbourhood_distances() -> None:
    assert ids(neighbourhood(GRAPH, [1], hops=2)) == {1: 0, 2: 1, 3: 2, 10: 2, 11: 2}


def test_neighbourhood_is_capped() -> None:
    assert len(neighbourhood(GRAPH, [1], hops=3, max_nodes=3)) == 3


def test_each_nodes_steps_sum_to_one() -> None:
    nodes = sorted(GRAPH.index[n] for n in (1, 2, 3, 4))
    assert transition_steps(GRAPH, nodes).sum_by_source() == pytest.approx([1.0, 1.0, 1.0, 1.0])


def test_sparse_rows_add_duplicates_and_cut_to_a_node_set() -> None:
    matrix = Csr.from_entries(
        np.array([0, 0, 2, 1]), np.array([1, 1, 0, 2]), np.array([1.0, 2.0, 5.0, 0.0]), 3
    )
    assert matrix.indptr.tolist() == [0, 1, 1, 2] and matrix.data.tolist() == [3.0, 5.0]
    rows, cols, values = matrix.entries([2, 0])
    assert (rows.tolist(), cols.tolist(), values.tolist()) == ([0], [1], [5.0])
    rows, cols, values = matrix.entries([2, 0, 1])
    assert (rows.tolist(), cols.tolist(), values.tolist()) == ([0, 1], [1, 2], [5.0, 3.0])


def test_walk_mass_decays_along_a_chain() -> None:
    chain = build_graph(EDGES[:3])
    nodes = [chain.index[n] for n in (1, 2, 3, 4)]
    restart = np.array([1.0, 0.0, 0.0, 0.0])
    p, iterations = random_walk(transition_steps(chain, nodes), restart)
    assert p.sum() == pytest.approx(1.0)
    assert p[1] > p[2] > p[3] > 0 and p[0] > p[2]
    assert iterations >= 1


def test_hits_finds_hub_and_authorities() -> None:
    authority, hub = hits(GRAPH.directed, range(len(GRAPH.ids)))
    by_id = {int(GRAPH.ids[i]): (a, h) for i, (a, h) in enumerate(zip(authority, hub, strict=True))}
    assert max(by_id, key=lambda k: by_id[k][1]) == 10
    assert by_id[2][0] == 1.0 and by_id[10][0] == 0.0


def test_walk_end_to_end() -> None:
    result = walk(GRAPH, {1: 1.0})
    assert result.hops[1] == 0 and result.nodes == 5
    assert result.scores[1] > result.scores[3] > 0
    assert result.scores[2] > result.scores[10], "the seed's callee outranks another caller of that callee"
    assert result.authority[2] == 1.0


def test_unknown_seeds_give_an_empty_walk() -> None:
    assert walk(GRAPH, {999: 1.0}).nodes == 0
