"""Random walk with restart and HITS on small graphs with known answers."""

from __future__ import annotations

import pytest

from mnemo_core.retrieve.walk import hits, neighbourhood, random_walk, transition_matrix, walk

# 1 -> 2 -> 3 -> 4 (a chain), 5 is an island, 10 calls 2 and 3 (a hub), 2 and 3 are authorities
EDGES = [(1, 2, "calls", 1.0), (2, 3, "calls", 1.0), (3, 4, "calls", 1.0), (10, 2, "calls", 1.0),
         (10, 3, "calls", 1.0), (11, 2, "calls", 1.0)]


def fetch(ids: list[int]) -> list[tuple[int, int, str, float]]:
    wanted = set(ids)
    return [e for e in EDGES if e[0] in wanted or e[1] in wanted]


def test_neighbourhood_distances() -> None:
    distance, edges = neighbourhood([1], fetch, hops=2)
    assert distance == {1: 0, 2: 1, 3: 2, 10: 2, 11: 2}
    assert (1, 2, "calls", 1.0) in edges and (2, 3, "calls", 1.0) in edges


def test_neighbourhood_is_capped() -> None:
    distance, _ = neighbourhood([1], fetch, hops=3, max_nodes=3)
    assert len(distance) == 3


def test_columns_are_stochastic() -> None:
    nodes = [1, 2, 3, 4]
    matrix = transition_matrix(nodes, [e for e in EDGES if e[0] in nodes and e[1] in nodes])
    sums = matrix.sum(axis=0).A1
    assert sums == pytest.approx([1.0, 1.0, 1.0, 1.0])


def test_walk_mass_decays_with_distance_from_the_seed() -> None:
    nodes = [1, 2, 3, 4]
    matrix = transition_matrix(nodes, EDGES[:3])
    p, iterations = random_walk(nodes, matrix, {1: 1.0})
    assert p.sum() == pytest.approx(1.0)
    assert p[1] > p[2] > p[3] > 0 and p[0] > p[2]
    assert iterations >= 1


def test_hits_finds_hub_and_authorities() -> None:
    authority, hub = hits([1, 2, 3, 4, 10, 11], EDGES)
    assert max(hub, key=hub.get) == 10
    assert {k for k, v in authority.items() if v == 1.0} <= {2, 3} and authority[2] == 1.0
    assert authority[10] == 0.0


def test_walk_end_to_end() -> None:
    result = walk({1: 1.0}, fetch)
    assert result.hops[1] == 0 and result.nodes == 5
    assert result.scores[1] > result.scores[3] > 0
    assert result.scores[2] > result.scores[10], "the seed's callee outranks another caller of that callee"
