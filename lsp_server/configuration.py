"""The client's settings (``settings``) from ``initializationOptions`` and
``workspace/didChangeConfiguration``.

A change that carries no settings (clients that expect the server to pull them) is followed by a
``workspace/configuration`` request when the client supports it. Unusable values are one warning
each for the user; a change never stops the server. Lenses are refreshed when they are turned on
or off.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from lsp_server.server import MnemoServer
from lsp_server.settings import SECTION, parse


def apply(ls: MnemoServer, given: Any) -> None:
    """Take the client's settings; warn about the unusable ones; refresh lenses when they changed."""
    settings, warnings = parse(given)
    for warning in warnings:
        ls.tell(warning, types.MessageType.Warning)
    before, ls.settings = ls.settings, settings
    for folder in list(ls.folders.values()):
        folder.memory = settings.memory
    if before.lens != settings.lens and ls.supports("workspace", "code_lens", "refresh_support"):
        ls.workspace_code_lens_refresh(None)
    ls.log(f"settings: {settings}")  # last: a client that saw it has seen the lens refresh too


def setup(server: MnemoServer) -> None:
    """Read the settings in ``initialize`` and on every ``workspace/didChangeConfiguration``."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: MnemoServer, params: types.InitializeParams) -> None:
        ls.loop = ls.loop or asyncio.get_running_loop()  # warnings may be sent during ``initialize``
        apply(ls, params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: MnemoServer, params: types.DidChangeConfigurationParams) -> None:
        given = params.settings
        if isinstance(given, dict) and SECTION in given:
            apply(ls, given)
        elif ls.supports("workspace", "configuration"):
            await pull(ls)

    async def pull(ls: MnemoServer) -> None:
        request = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        try:
            (section,) = await ls.workspace_configuration_async(request)
        except Exception as exc:
            ls.log(f"the client did not send its settings: {exc}", types.MessageType.Warning)
            return
        apply(ls, section)
