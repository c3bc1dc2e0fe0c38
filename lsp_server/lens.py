"""Code lenses: ``N callers · M tests · changed 3 days ago`` above every function, method and class."""

from __future__ import annotations

from lsprotocol import types

from lsp_server import convert
from lsp_server.server import IndexBeingBuilt, MnemoServer


def code_lens(ls: MnemoServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    """The lenses of one document; none until the index can answer (the server refreshes them then),
    and none with lenses turned off in the settings."""
    uri = params.text_document.uri
    path = ls.inside(uri)
    if path is None or not ls.settings.lens:
        return []
    try:
        folder = ls.require_index(uri)
    except IndexBeingBuilt:
        return []
    folder.lenses_shown(path)
    engine = folder.engine()
    lines = ls.workspace.get_text_document(uri).lines
    return [convert.code_lens(engine.root, lens, lines) for lens in engine.lenses(path)]


def setup(server: MnemoServer) -> None:
    """Register ``textDocument/codeLens``."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def on_code_lens(ls: MnemoServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        return await ls.quietly("code lens", code_lens, ls, params, default=[])
