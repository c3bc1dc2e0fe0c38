"""Budget packing: choose what to show, and how much of each symbol, without passing the budget.

Each candidate can be shown whole (its source; for a class, an outline of its members) or as a
header (signature and docstring). Picking is greedy by value density,
``score * proximity / tokens ** DENSITY_EXPONENT``: a square root rather than plain score-per-token,
so a long but central function is not always beaten by three one-liners. ``proximity`` rewards a
symbol whose file or graph neighbour is already in the pack (it reads faster in that context).
The pack is returned in score order, not pick order.
"""

from __future__ import annotations

import heapq
import itertools
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
    """Choose pieces within ``budget`` tokens; returned in the order of ``pieces`` (score order).

    Greedy by density, as if every piece were re-rated after each pick; but a pick changes few
    ratings (the pieces of its file and its neighbours become near; the pieces that no longer fit
    whole shrink to a header or drop out), so only those are re-rated, and a heap keeps the best."""
    remaining = budget
    chosen: dict[int, Packed] = {}
    near: set[int] = set()
    by_file: dict[str, list[Piece]] = {}
    by_id = {p.symbol_id: p for p in pieces}
    for piece in by_id.values():
        by_file.setdefault(piece.path, []).append(piece)
    towards: dict[int, list[Piece]] = {}  # a symbol -> the pieces it makes near once chosen
    for sid, others in neighbours.items():
        for other in others if sid in by_id else ():
            towards.setdefault(other, []).append(by_id[sid])
    current: dict[int, Packed] = {}  # each piece still in the running: how it would be shown now
    best: list[tuple[float, int, int, Packed]] = []  # (-density, id, rating, option): to pick from
    largest: list[tuple[int, int, Packed]] = []  # (-tokens, rating, option): what stops fitting first
    ratings = itertools.count()

    def rate(piece: Piece) -> None:
        option = _fit(piece, remaining)
        if option is None:  # the budget only shrinks: it will never fit again
            current.pop(piece.symbol_id, None)
            return
        current[piece.symbol_id] = option
        bonus = 1 + PROXIMITY_BONUS * (piece.symbol_id in near)
        density = piece.score * bonus / max(option.tokens, MIN_TOKENS) ** DENSITY_EXPONENT
        rating = next(ratings)
        heapq.heappush(best, (-density, piece.symbol_id, rating, option))
        heapq.heappush(largest, (-option.tokens, rating, option))

    for piece in by_id.values():
        rate(piece)
    while best:
        _, sid, _, option = heapq.heappop(best)
        if current.get(sid) is not option:  # rated again since, or gone
            continue
        chosen[sid] = option
        del current[sid]
        remaining -= option.tokens
        while largest and -largest[0][0] > remaining:
            _, _, stale = heapq.heappop(largest)
            if current.get(stale.symbol_id) is stale:
                rate(by_id[stale.symbol_id])
        for piece in (*by_file[by_id[sid].path], *towards.get(sid, ())):
            if piece.symbol_id in current and piece.symbol_id not in near:
                near.add(piece.symbol_id)
                rate(piece)
    order = {p.symbol_id: i for i, p in enumerate(pieces)}
    return sorted(chosen.values(), key=lambda c: order[c.symbol_id])


def _fit(piece: Piece, remaining: int) -> Packed | None:
    if piece.full_tokens <= remaining:
        return Packed(piece.symbol_id, True, piece.full_tokens)
    if piece.header_tokens <= remaining:
        return Packed(piece.symbol_id, False, piece.header_tokens)
    return None
