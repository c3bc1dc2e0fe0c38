"""A client that watches no files (Neovim on Linux): the server watches the work tree itself, so a
file an agent or a formatter writes outside the editor is in hover and call hierarchy in seconds,
while ignored files stay out of the index."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_session import Session, capabilities, start, start_client, wait_for_index, wait_until
from lsprotocol import types

pytestmark = pytest.mark.asyncio

LIVE_S = 5.0  # issue #40: a new file is in hover and call hierarchy within this long
CALLER = "from app.core import helper\n\n\ndef triple(x):\n    return helper(x) + x\n"
HELPER_LINE = 3  # 0-based, in app/core.py


@pytest_asyncio.fixture
async def unwatched(repo: Path, tmp_path: Path) -> AsyncIterator[Session]:
    """A session whose client cannot register a file watcher."""
    offered = capabilities()
    assert offered.workspace is not None
    offered.workspace.did_change_watched_files = types.DidChangeWatchedFilesClientCapabilities(
        dynamic_registration=False
    )
    client = await start_client(tmp_path)
    session = await start(client, repo, offered=offered)
    await wait_for_index(client)
    yield session
    await client.shutdown_session()
    await client.stop()


async def _callers_of_helper(session: Session) -> set[str]:
    [item] = await session.client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("app/core.py")),
            position=types.Position(line=HELPER_LINE, character=5),
        )
    ) or [None]
    assert item is not None
    calls = await session.client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    return {c.from_.name for c in calls or []}


async def test_a_file_written_outside_the_editor_is_seen_within_seconds(unwatched: Session) -> None:
    assert unwatched.client.events.registrations == []  # type: ignore[attr-defined]
    assert "triple" not in await _callers_of_helper(unwatched)
    (unwatched.root / ".gitignore").write_text("app/generated.py\n", encoding="utf-8")
    (unwatched.root / "app" / "generated.py").write_text("def generated():\n    return 1\n", encoding="utf-8")
    events = unwatched.client.events  # type: ignore[attr-defined]
    seen = events.lens_refreshes
    written = time.monotonic()
    (unwatched.root / "app" / "extra.py").write_text(CALLER, encoding="utf-8")  # untracked, no didSave
    while "triple" not in (found := await _callers_of_helper(unwatched)):
        assert time.monotonic() - written < LIVE_S, found
        await wait_until(unwatched.client, lambda n=seen: events.lens_refreshes > n, "a re-index")
        seen = events.lens_refreshes
    assert time.monotonic() - written < LIVE_S
    card = await unwatched.hover("app/extra.py", 3, 5)
    assert card is not None and "`triple`" in card
    assert await unwatched.hover("app/generated.py", 0, 5) is None  # ignored by git: never indexed
