"""Helpers of the language-server tests: a pytest-lsp client on ``mnemo-lsp`` over stdio, the
fixture repository, and waiting on what the server sends (never on time)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers import SMALL_APP, SMALL_APP_FILES, commit, make_repo
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER = [sys.executable, "-m", "lsp_server"]
WAIT_S = 30.0  # generous on a loaded 2-core CI machine; a passing test never waits this long
HOVER_AGAIN_S = 0.05  # a user hovering again while the card is being counted
COUNTING = "being counted; hover again"  # a quick card, its walks still running

APP, FILES = SMALL_APP, SMALL_APP_FILES


def capabilities() -> types.ClientCapabilities:
    """An editor that can show progress, documents and Markdown, refresh lenses, watch files and
    answer ``workspace/configuration``."""
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            work_done_progress=True, show_document=types.ShowDocumentClientCapabilities(support=True)
        ),
        workspace=types.WorkspaceClientCapabilities(
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
            configuration=True,
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            code_lens=types.CodeLensClientCapabilities(),
        ),
    )


class Events:
    """What the server asked of the client, and an event set whenever the server sends something."""

    def __init__(self) -> None:
        self.lens_refreshes = 0
        self.registrations: list[types.Registration] = []
        self.changed = asyncio.Event()


def _noticing(handler: Callable[[LanguageClient, Any], Any]) -> Callable[[LanguageClient, Any], Any]:
    """A pytest-lsp default handler that also wakes up ``wait_until``."""

    def noticing(ls: LanguageClient, params: Any) -> Any:
        result = handler(ls, params)
        ls.events.changed.set()  # type: ignore[attr-defined]
        return result

    return noticing


def _refresh(ls: LanguageClient, params: None) -> None:
    ls.events.lens_refreshes += 1  # type: ignore[attr-defined]
    ls.events.changed.set()  # type: ignore[attr-defined]


def _register(ls: LanguageClient, params: types.RegistrationParams) -> None:
    ls.events.registrations.extend(params.registrations)  # type: ignore[attr-defined]
    ls.events.changed.set()  # type: ignore[attr-defined]


def make_client() -> LanguageClient:
    """pytest-lsp's client, also answering lens refreshes and file-watcher registrations, and
    noticing every message so tests can wait for a condition instead of for time."""
    client = LanguageClient(converter_factory=default_converter)
    client.events = Events()  # type: ignore[attr-defined]
    features = {method: _noticing(handler) for method, handler in DEFAULT_CLIENT_FEATURES.items()}
    features[types.WORKSPACE_CODE_LENS_REFRESH] = _refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = _register
    register_lsp_features(client, features)
    return client


async def wait_until(client: LanguageClient, ready: Callable[[], bool], what: str) -> None:
    """Wait until ``ready()``, re-checking each time the server sends the client something."""
    changed: asyncio.Event = client.events.changed  # type: ignore[attr-defined]

    async def loop() -> None:
        while not ready():
            changed.clear()
            await changed.wait()

    try:
        await asyncio.wait_for(loop(), WAIT_S)
    except asyncio.TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def progress_ends(client: LanguageClient) -> int:
    """How many work-done progresses have ended."""
    return sum(
        1
        for reports in client.progress_reports.values()
        for r in reports
        if isinstance(r, types.WorkDoneProgressEnd)
    )


async def wait_for_index(client: LanguageClient, ends: int = 1) -> None:
    """Wait until ``ends`` indexing progresses have ended."""
    await wait_until(client, lambda: progress_ends(client) >= ends, f"{ends} indexing progress end(s)")


@dataclass
class Session:
    """A client with an initialized session on a workspace."""

    client: LanguageClient
    root: Path
    result: types.InitializeResult

    def uri(self, path: str) -> str:
        """The URI of a workspace file."""
        return (self.root / path).as_uri()

    async def execute(self, command: str, *arguments: Any) -> Any:
        """``workspace/executeCommand``."""
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        )

    async def hover(self, path: str, line: int, character: int) -> str | None:
        """The Markdown of a hover (0-based position), or None; hovered again while the card says
        its walks are being counted (as a user would; the first card starts a worker process)."""
        deadline = time.monotonic() + WAIT_S
        while (card := await self.hover_once(path, line, character)) is not None and COUNTING in card:
            assert time.monotonic() < deadline, f"the card of {path}:{line + 1} was still being counted"
            await asyncio.sleep(HOVER_AGAIN_S)
        return card

    async def hover_once(self, path: str, line: int, character: int) -> str | None:
        """The Markdown of one hover (0-based position), or None."""
        found = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path)),
                position=types.Position(line=line, character=character),
            )
        )
        if found is None:
            return None
        assert isinstance(found.contents, types.MarkupContent)
        return found.contents.value

    async def lenses(self, path: str) -> dict[int, str]:
        """Code lens titles by 0-based line."""
        found = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=self.uri(path)))
        )
        return {lens.range.start.line: lens.command.title for lens in found or [] if lens.command}

    def save(self, path: str, text: str) -> None:
        """Write a file as an editor would, and say so (``didSave``)."""
        (self.root / path).write_text(text, encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri(path)))
        )

    async def refreshed(self, action: Callable[[], None], what: str) -> None:
        """Do ``action`` and wait for the lens refresh the re-index that follows ends with."""
        events: Events = self.client.events  # type: ignore[attr-defined]
        before = events.lens_refreshes
        action()
        await wait_until(self.client, lambda: events.lens_refreshes > before, what)


async def start(
    client: LanguageClient, root: Path, *others: Path, options: Any = None, offered: Any = None
) -> Session:
    """Initialize a session on ``root`` (and ``others``: more workspace folders), with
    ``initializationOptions`` and, when given, other client capabilities than ``capabilities()``."""
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=offered or capabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in (root, *others)],
            initialization_options=options,
        )
    )
    return Session(client, root, result)


def git_workspace(root: Path) -> Path:
    """The fixture repository: two commits, the second by another author."""
    make_repo(root, FILES, date="2026-03-01T09:00:00+00:00")
    commit(
        root,
        {"app/core.py": APP.replace("return x * 2", "return x + x")},
        "tweak helper",
        date="2026-03-05T09:00:00+00:00",
        author=("Bo Maker", "bo@example.com"),
    )
    return root


def server_env(home: Path) -> dict[str, str]:
    """The server's environment: this one, with git's user configuration kept out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"})
    return env


async def start_client(home: Path) -> LanguageClient:
    """A running ``mnemo-lsp`` with a client attached (not yet initialized)."""
    config = ClientServerConfig(
        server_command=SERVER, client_factory=make_client, server_env=server_env(home)
    )
    return await config.start()


# -- raw JSON-RPC, for what a well-behaved client library would not send -------------------------


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(stream: Any) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length)) if length else {}


def initialize(root: Path, msg_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "initialize",
        "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
    }


def read_until(stream: Any, predicate: Any) -> dict[str, Any]:
    while message := read_message(stream):
        if predicate(message):
            return message
    raise AssertionError("the server closed the connection first")
