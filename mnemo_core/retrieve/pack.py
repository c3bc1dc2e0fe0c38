"""Budget packing: choose what to show, and how much of each symbol, without passing the budget.

Each candidate can be shown whole (its source; for a class, an outline of its members) or as a
header (signature and docstring). Picking is greedy by value density,
``score * proximity / tokens ** DENSITY_EXPONENT``: a square root rather than plain score-per-token,
so a long but central function is not always beaten by three one-liners. ``proximity`` rewards a
symbol whose file or graph neighbour is already in the pack (it reads faster in that context).
The pack is returned in score order, not pick order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DENSITY_EXPONENT = 0.5
MIN_TOKENS = 20  # a tiny symbol still costs its anchor line and the reader's attention
PROXIMITY_BONUS = 0.25


@dataclass(frozen=True, slots=True)
class Piece:
    """A candidate with its two renderings' token costs."""

    symbol_id: int
    score: float
    path: str
    header_tokens: int
    full_tokens: int


@dataclass(frozen=True, slots=True)
class Packed:
    """A chosen symbol: whether its whole body is shown, and the tokens it uses."""

    symbol_id: int
    full: bool
    tokens: int


def pack(pieces: list[Piece], budget: int, neighbours: Mapping[int, set[int]]) -> list[Packed]:
    """Choose pieces within ``budget`` tokens; returned in the order of ``pieces`` (score order)."""
    remaining = budget
    chosen: dict[int, Packed] = {}
    files: set[str] = set()
    pool = {p.symbol_id: p for p in pieces}
    while pool:
        best: tuple[float, int, Packed] | None = None
        for p in pool.values():
            option = _fit(p, remaining)
            if option is None:
                continue
            near = p.path in files or bool(neighbours.get(p.symbol_id, set()) & chosen.keys())
            density = (
                p.score * (1 + PROXIMITY_BONUS * near) / max(option.tokens, MIN_TOKENS) ** DENSITY_EXPONENT
            )
            key = (density, -p.symbol_id)
            if best is None or key > best[:2]:
                best = (density, -p.symbol_id, option)
        if best is None:
            break
        option = best[2]
        chosen[option.symbol_id] = option
        remaining -= option.tokens
        files.add(pool.pop(option.symbol_id).path)
    order = {p.symbol_id: i for i, p in enumerate(pieces)}
    return sorted(chosen.values(), key=lambda c: order[c.symbol_id])


def _fit(piece: Piece, remaining: int) -> Packed | None:
    if piece.full_tokens <= remaining:
        return Packed(piece.symbol_id, True, piece.full_tokens)
    if piece.header_tokens <= remaining:
        return Packed(piece.symbol_id, False, piece.header_tokens)
    return None
