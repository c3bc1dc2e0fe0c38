"""Starting and stopping ``mnemo-lsp`` from a pygls client, shared by the language-server benches."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient


async def start_server(client: LanguageClient, root: Path, checkout: Path | None) -> None:
    """Start ``mnemo-lsp`` (the code of ``checkout``; None: this interpreter's) and initialize it on
    the workspace ``root``."""
    if checkout is None:
        await client.start_io(sys.executable, "-m", "lsp_server")
    else:  # ``-m`` puts the working directory first on the path: run in the checkout
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        await client.start_io(sys.executable, "-m", "lsp_server", env=env, cwd=checkout)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    client.initialized(types.InitializedParams())


async def stop_server(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
