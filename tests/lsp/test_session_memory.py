"""The editor's side of the session memory, through a real client: a hover, an opened file and an
edit raise those symbols in the next ``mnemo.contextForTask``; with ``memory: false`` nothing is
written."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from helpers import SHOP_CART, SHOP_FILES, SHOP_PRICING, make_repo
from lsp_session import WAIT_S, Session, start, start_client, wait_for_index
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="function")

FILES = SHOP_FILES
TASK = "item price in the cart"


async def _session(tmp_path: Path, options: Any) -> AsyncIterator[Session]:
    root = make_repo(tmp_path / "ws", FILES)
    client = await start_client(tmp_path)
    session = await start(client, root, options=options)
    await wait_for_index(client)
    yield session
    await client.shutdown_session()
    await client.stop()


@pytest_asyncio.fixture
async def remembering(tmp_path: Path) -> AsyncIterator[Session]:
    async for session in _session(tmp_path, None):
        yield session


@pytest_asyncio.fixture
async def forgetful(tmp_path: Path) -> AsyncIterator[Session]:
    async for session in _session(tmp_path, {"mnemo": {"memory": False}}):
        yield session


def ranked(answer: dict[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    return {s["name"]: (i, s) for i, s in enumerate(answer["symbols"], start=1)}


def remembered(root: Path) -> set[tuple[str, str, str]]:
    """The (kind, path, name) of every event in the memory file."""
    path = root / ".mnemo" / "memory.db"
    if not path.exists():
        return set()
    with sqlite3.connect(path) as conn:
        try:
            return set(conn.execute("SELECT kind, path, name FROM events"))
        except sqlite3.OperationalError:  # the server has created the file, not yet its table
            return set()


async def until_remembered(root: Path, events: set[tuple[str, str, str]]) -> None:
    """Notifications get no answer: wait for their effect in the memory file."""
    for _ in range(int(WAIT_S / 0.05)):
        if events <= remembered(root):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the server never remembered {events - remembered(root)}")


async def test_a_hovered_symbol_rises_in_the_next_task(remembering: Session) -> None:
    before = ranked(await remembering.execute("mnemo.contextForTask", {"task": TASK}))
    card = await remembering.hover("shop/cart.py", 4, 6)  # def remove_item
    assert card is not None and "`remove_item`" in card
    after = ranked(await remembering.execute("mnemo.contextForTask", {"task": TASK}))
    assert after["remove_item"][0] < before["remove_item"][0]
    assert after["remove_item"][1]["components"].get("session", 0.0) > before["remove_item"][1][
        "components"
    ].get("session", 0.0)
    assert "you hovered this just now" in after["remove_item"][1]["reasons"]


async def test_an_opened_file_and_an_edit_join_the_session(remembering: Session) -> None:
    client = remembering.client
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=remembering.uri("shop/pricing.py"), language_id="python", version=1, text=SHOP_PRICING
            )
        )
    )
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=remembering.uri("shop/cart.py"), language_id="python", version=1, text=SHOP_CART
            )
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=remembering.uri("shop/cart.py"), version=2
            ),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(5, 4), end=types.Position(5, 8)), text="cart"
                )
            ],
        )
    )
    await until_remembered(
        remembering.root,
        {
            ("opened", "shop/pricing.py", ""),
            ("opened", "shop/cart.py", ""),
            ("edited", "shop/cart.py", "remove_item"),
        },
    )
    answer = ranked(await remembering.execute("mnemo.contextForTask", {"task": TASK}))
    assert answer["remove_item"][1]["components"].get("session", 0.0) == 1.0  # edited, capped
    assert "you edited this just now" in answer["remove_item"][1]["reasons"]
    assert "you opened its file just now" in answer["price_item"][1]["reasons"]


async def test_with_memory_off_nothing_is_written(forgetful: Session) -> None:
    forgetful.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=forgetful.uri("shop/cart.py"), language_id="python", version=1, text=SHOP_CART
            )
        )
    )
    assert await forgetful.hover("shop/cart.py", 4, 6) is not None
    answer = ranked(await forgetful.execute("mnemo.contextForTask", {"task": TASK}))
    assert all(s["components"].get("session", 0.0) == 0.0 for _, s in answer.values())
    assert not (forgetful.root / ".mnemo" / "memory.db").exists()
