"""Call hierarchy from mnemo's graph: ``textDocument/prepareCallHierarchy``, then the incoming and
outgoing calls of the item it returns.

Prepare names the symbol at the cursor as the hover does (the callee of a call on that line, else
the innermost function, method or class around it). Incoming calls are the graph's ``calls`` edges
into the symbol, outgoing calls its edges out; links the resolver only guessed by name (below the
hover's certainty) are left out, so the hierarchy agrees with the hover's caller count. The index
keeps one call line per caller and callee (the first call), so each call's ``fromRanges`` is one
range: the callee's name on that line, in the caller's file (the whole line when the name is not
written there, as with an alias). An item is found again by its id, and by its qualified name and
kind when a re-index since gave it another.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from lsp_server import convert
from lsp_server.server import BadArguments, Folder, MnemoServer
from mnemo_core.engine import LENS_KINDS, Direction, Engine
from mnemo_core.model import Symbol


def prepare(
    ls: MnemoServer, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    """The function, method or class at the cursor (None elsewhere or outside the workspace)."""
    uri = params.text_document.uri
    path = ls.inside(uri)
    if path is None:
        return None
    folder = ls.require_index(uri)
    word = ls.workspace.get_text_document(uri).word_at_position(params.position) or None
    symbol = folder.engine().symbol_at(path, convert.position_line(params.position), word)
    if symbol is None or symbol.kind not in LENS_KINDS:
        return None
    return [_item(ls, folder, symbol)]


def incoming(
    ls: MnemoServer, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall]:
    """The callers of an item, each with where it makes the call."""
    calls = []
    for folder, caller, line in _calls(ls, params.item, "in"):
        item = _item(ls, folder, caller)
        ranges = [_call_range(ls, item.uri, line, params.item.name)] if line else [item.selection_range]
        calls.append(types.CallHierarchyIncomingCall(from_=item, from_ranges=ranges))
    return calls


def outgoing(
    ls: MnemoServer, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall]:
    """What an item calls, each with where in the item the call is."""
    calls = []
    for folder, callee, line in _calls(ls, params.item, "out"):
        item = _item(ls, folder, callee)
        ranges = (
            [_call_range(ls, params.item.uri, line, callee.short_name)]
            if line
            else [params.item.selection_range]
        )
        calls.append(types.CallHierarchyOutgoingCall(to=item, from_ranges=ranges))
    return calls


def _calls(
    ls: MnemoServer, item: types.CallHierarchyItem, direction: Direction
) -> list[tuple[Folder, Symbol, int]]:
    """The symbols one sure call edge away from an item, with the edge's line (0 when unknown)."""
    folder = ls.require_index(item.uri)
    engine = folder.engine()
    symbol = _find_again(engine, ls.relpath(item.uri), item.data)
    return [(folder, hop.symbol, hop.via.line) for hop in engine.calls(symbol, direction)]


def _find_again(engine: Engine, path: str, data: Any) -> Symbol:
    """The symbol an item stands for (its id, else its qualified name and kind in its file)."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise BadArguments("the call hierarchy item has no mnemo data; prepare it again")
    symbol = engine.symbols([data["id"]]).get(data["id"])
    if symbol is not None and symbol.path == path and symbol.name == data.get("name"):
        return symbol
    found = engine.symbol_named(path, str(data.get("name")), str(data.get("kind")))
    if found is None:
        raise BadArguments(f"{data.get('name')} is no longer in {path}; prepare the call hierarchy again")
    return found


def _item(ls: MnemoServer, folder: Folder, symbol: Symbol) -> types.CallHierarchyItem:
    return convert.call_item(
        folder.root, symbol, _line(ls, convert.uri(folder.root, symbol.path), symbol.start_line)
    )


def _call_range(ls: MnemoServer, uri: str, line: int, name: str) -> types.Range:
    return convert.name_range(line, _line(ls, uri, line), name)


def _line(ls: MnemoServer, uri: str, line: int) -> str:
    """The text of a 1-based line (the editor's buffer when open, else the file on disk)."""
    lines = ls.workspace.get_text_document(uri).lines
    return lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""


def setup(server: MnemoServer) -> None:
    """Register the three call-hierarchy requests."""

    @server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    async def on_prepare(
        ls: MnemoServer, params: types.CallHierarchyPrepareParams
    ) -> list[types.CallHierarchyItem] | None:
        return await ls.answer("call hierarchy", prepare, ls, params)

    @server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
    async def on_incoming(
        ls: MnemoServer, params: types.CallHierarchyIncomingCallsParams
    ) -> list[types.CallHierarchyIncomingCall]:
        return await ls.answer("incoming calls", incoming, ls, params)

    @server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
    async def on_outgoing(
        ls: MnemoServer, params: types.CallHierarchyOutgoingCallsParams
    ) -> list[types.CallHierarchyOutgoingCall]:
        return await ls.answer("outgoing calls", outgoing, ls, params)
