"""Budget packing: never over budget, bodies when they fit, headers otherwise, score order out."""

from __future__ import annotations

from mnemo_core.retrieve.pack import Piece, pack


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
