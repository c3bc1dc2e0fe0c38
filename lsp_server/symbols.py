"""``workspace/symbol``: the definitions whose name holds the query, from every folder's index.

Names equal to the query (ignoring case) come first, then names containing it, shortest first,
code before tests; an empty query lists symbols in path order. Each folder answers at most
``SHOWN`` symbols. A folder whose index cannot answer yet is left out (and said so in the log);
when none can, the request fails with the reason.
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server import convert
from lsp_server.server import IndexBeingBuilt, MnemoServer

SHOWN = 100  # per folder: a picker shows a screenful; a longer query narrows it


def workspace_symbols(ls: MnemoServer, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    """The symbols matching a query in every workspace folder."""
    found: list[types.SymbolInformation] = []
    refused: list[IndexBeingBuilt] = []
    for folder in list(ls.folders.values()):
        try:
            engine = ls.require_index(folder.root.as_uri()).engine()
        except IndexBeingBuilt as exc:
            ls.log(f"workspace symbols: {exc}")
            refused.append(exc)
            continue
        matching = engine.search_names(params.query.strip(), SHOWN)
        found += [convert.symbol_information(folder.root, s) for s in matching]
    if refused and len(refused) == len(ls.folders):
        raise refused[0]
    return found


def setup(server: MnemoServer) -> None:
    """Register ``workspace/symbol``."""

    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbol(
        ls: MnemoServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        return await ls.answer("workspace symbols", workspace_symbols, ls, params)
