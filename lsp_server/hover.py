"""Hover: a card that says why a symbol matters, on its definition or on a call to it."""

from __future__ import annotations

from lsprotocol import types

from lsp_server import convert
from lsp_server.server import Folder, IndexBeingBuilt, MnemoServer
from mnemo_core.engine import SymbolHistory
from mnemo_core.model import Symbol

HOVER_HISTORY = 10  # commits read for a hover card (it shows the newest few and counts the rest)


def hover(ls: MnemoServer, params: types.HoverParams) -> types.Hover | None:
    """The card of the symbol named under the cursor (None elsewhere, outside the workspace, or
    with hover turned off in the settings)."""
    uri = params.text_document.uri
    path = ls.inside(uri)
    if path is None or not ls.settings.hover:
        return None
    try:
        folder = ls.require_index(uri)
    except IndexBeingBuilt as exc:
        return convert.hover(f"mnemo: {exc}")
    word = ls.workspace.get_text_document(uri).word_at_position(params.position)
    if not word:
        return None
    engine = folder.engine()
    symbol = engine.symbol_at(path, convert.position_line(params.position), word)
    if symbol is None or symbol.kind == "module" or symbol.short_name != word:
        return None
    card = ls.cards.card(folder.root, symbol) or engine.card(symbol, walks=False)
    engine.noticed_symbol("hovered", symbol)  # the session memory (a no-op when it is off)
    task = ls.task
    task_info = (task.text, task.ranks.get(symbol.id), len(task.ranks)) if task is not None else None
    history, pending = None, False
    if card.last_change is not None:  # git knows the file: it has a history to read
        history = engine.known_history(symbol, HOVER_HISTORY)
        pending = history is None
        if pending:
            ls.later(("history", folder.root, symbol.id), "symbol history", _read_history, folder, symbol)
    markdown = convert.card_markdown(
        engine.root,
        card,
        task_info,
        show_history_note=not folder.index.walked,
        history=history,
        history_pending=pending,
    )
    return convert.hover(markdown)


def _read_history(folder: Folder, symbol: Symbol) -> SymbolHistory:
    """Read a symbol's history off the hover path; the next hover finds it remembered."""
    return folder.engine().symbol_history(symbol, HOVER_HISTORY)


def setup(server: MnemoServer) -> None:
    """Register ``textDocument/hover``."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: MnemoServer, params: types.HoverParams) -> types.Hover | None:
        return await ls.quietly("hover", hover, ls, params, default=None)
