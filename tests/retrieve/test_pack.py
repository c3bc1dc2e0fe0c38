"""Budget packing: never over budget, bodies when they fit, headers otherwise, score order out."""

from __future__ import annotations

import random

from mnemo_core.retrieve.pack import DENSITY_EXPONENT, MIN_TOKENS, PROXIMITY_BONUS, Piece, pack


def pieces() -> list[Piece]:
    return [
        Piece(1, 0.9, "a.py", header_tokens=30, full_tokens=400),
        Piece(2, 0.8, "b.py", header_tokens=20, full_tokens=60),
        Piece(3, 0.5, "a.py", header_tokens=25, full_tokens=90),
        Piece(4, 0.1, "c.py", header_tokens=15, full_tokens=2000),
    ]


def test_everything_fits_in_a_large_budget() -> None:
    chosen = pack(pieces(), 10_000, {})
    assert [c.symbol_id for c in chosen] == [1, 2, 3, 4]
    assert all(c.full for c in chosen)


def test_never_over_budget_and_falls_back_to_headers() -> None:
    for budget in (1, 20, 50, 100, 200, 500, 600):
        chosen = pack(pieces(), budget, {})
        assert sum(c.tokens for c in chosen) <= budget
    chosen = {c.symbol_id: c for c in pack(pieces(), 200, {})}
    assert chosen[2].full and chosen[3].full
    assert not chosen[1].full and chosen[1].tokens == 30


def test_output_keeps_score_order() -> None:
    chosen = pack(list(reversed(pieces())), 10_000, {})
    assert [c.symbol_id for c in chosen] == [4, 3, 2, 1]


def test_proximity_prefers_a_neighbour_of_what_is_already_in() -> None:
    near = Piece(5, 0.3, "z.py", 10, 50)
    far = Piece(6, 0.31, "y.py", 10, 50)
    seed = Piece(7, 1.0, "x.py", 10, 50)
    chosen = pack([seed, near, far], 100, {5: {7}})
    assert [c.symbol_id for c in chosen] == [7, 5]


def greedy(pieces: list[Piece], budget: int, neighbours: dict[int, set[int]]) -> list[tuple[int, bool, int]]:
    """The packing rule stated plainly: re-rate every piece after each pick, take the densest."""
    remaining, chosen, files, pool = budget, {}, set(), {p.symbol_id: p for p in pieces}
    while True:
        rated = []
        for p in pool.values():
            tokens = p.full_tokens if p.full_tokens <= remaining else p.header_tokens
            if tokens > remaining:
                continue
            near = p.path in files or bool(neighbours.get(p.symbol_id, set()) & chosen.keys())
            density = p.score * (1 + PROXIMITY_BONUS * near) / max(tokens, MIN_TOKENS) ** DENSITY_EXPONENT
            rated.append((density, -p.symbol_id, tokens == p.full_tokens, tokens))
        if not rated:
            break
        _, negative, full, tokens = max(rated)
        chosen[-negative] = (full, tokens)
        remaining -= tokens
        files.add(pool.pop(-negative).path)
    return [(p.symbol_id, *chosen[p.symbol_id]) for p in pieces if p.symbol_id in chosen]


def test_the_picks_are_those_of_re_rating_every_piece_after_each_pick() -> None:
    rng = random.Random(7)
    for _ in range(200):
        pieces = [
            Piece(
                i,
                rng.choice((0.5, rng.random())),
                rng.choice("abcd"),
                rng.randint(5, 40),
                rng.randint(5, 900),
            )
            for i in range(rng.randint(1, 40))
        ]
        ids = [p.symbol_id for p in pieces]
        neighbours = {i: set(rng.sample(ids, min(len(ids), 3))) - {i} for i in ids if rng.random() < 0.4}
        budget = rng.randint(1, 3000)
        got = [(c.symbol_id, c.full, c.tokens) for c in pack(pieces, budget, neighbours)]
        assert got == greedy(pieces, budget, neighbours)
