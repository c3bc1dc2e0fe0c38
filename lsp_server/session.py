"""The editor's side of the session memory: files opened and lines edited join the session, so the
next ``mnemo.contextForTask`` ranks what the user is working on higher (hovers join in ``hover``).

Edits arrive on every keystroke; the engine remembers the same symbol again only after a pause
(``mnemo_core.memory.REPEAT_S``), and only once the folder's index can answer (before that, no
symbol can be found at a line). A change without a range (a client sending whole documents) says
nothing about where the user works, and is not remembered.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from lsp_server.server import MnemoServer
from mnemo_core.engine import Noticed


def edited_lines(changes: Sequence[types.TextDocumentContentChangeEvent]) -> list[int]:
    """The 1-based lines where incremental changes start and end (in the document before them)."""
    lines: set[int] = set()
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            lines.update({change.range.start.line + 1, change.range.end.line + 1})
    return sorted(lines)


def notice(ls: MnemoServer, uri: str, kind: Noticed, lines: Sequence[int]) -> None:
    """Tell the engine what the user did in a document of the workspace (nothing outside it, or
    while its folder's index is being built)."""
    path = ls.inside(uri)
    if path is None:
        return
    folder = ls.folder(uri)
    if folder.memory is False or not folder.index.ready:
        return
    folder.engine().noticed(kind, path, lines)


def setup(server: MnemoServer) -> None:
    """Register ``textDocument/didOpen`` and ``textDocument/didChange`` (pygls keeps the documents;
    these remember what happened, and an opened file's hover cards are made ahead)."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: MnemoServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        await ls.quietly("remember the opened file", notice, ls, uri, "opened", (), default=None)
        if ls.inside(uri) is not None:
            await ls.quietly("hover cards of the opened file", ls.warm_cards, ls.folder(uri), default=None)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: MnemoServer, params: types.DidChangeTextDocumentParams) -> None:
        lines = edited_lines(params.content_changes)
        if lines:
            await ls.quietly(
                "remember the edit", notice, ls, params.text_document.uri, "edited", lines, default=None
            )
