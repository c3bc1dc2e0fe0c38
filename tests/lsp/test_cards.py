"""Hover cards made ahead in a worker process (``lsp_server/cards.py``): the card a hover finds is
the engine's whole card, made by a real worker on the real index."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import CORE_FILES, make_repo

from lsp_server.cards import CardMaker
from mnemo_core.engine import Engine, SymbolCard
from mnemo_core.model import Symbol

HOVER_AGAIN_S = 0.05  # between two hovers of the same symbol
MADE_WITHIN_S = 60.0  # the worker starts a fresh interpreter first; a loaded machine is slow at it


def test_warmed_cards_are_the_engines_whole_cards(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", CORE_FILES)
    with Engine(root) as engine:
        engine.index()
        symbols = [s for s in engine.symbols_in_file("app/core.py") if s.kind != "module"]
        expected = {s: engine.card(s) for s in symbols}
    failures: list[str] = []
    maker = CardMaker(failures.append)
    try:
        maker.warm(root, symbols, changed=False)
        found = {s: _made(maker, root, s) for s in symbols}
    finally:
        maker.close()
    assert found == expected and all(card.walked for card in found.values())
    assert not failures


def _made(maker: CardMaker, root: Path, symbol: Symbol) -> SymbolCard:
    """The card once made, asked for as a user hovers again."""
    deadline = time.monotonic() + MADE_WITHIN_S
    while (card := maker.card(root, symbol)) is None:
        assert time.monotonic() < deadline, f"no card of {symbol.name} after {MADE_WITHIN_S} s"
        time.sleep(HOVER_AGAIN_S)  # leave the core to the worker
    return card
