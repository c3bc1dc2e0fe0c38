"""Several workspace folders: one repository and index each, documents routed to theirs, folders
added and removed while the server runs, and two folders of one repository sharing its index."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_repo
from lsp_session import Session, git_workspace, start, start_client, wait_for_index, wait_until
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio

CALC = "def add(a, b):\n    return a + b\n\n\ndef total(xs):\n    return add(xs[0], add(xs[1], xs[2]))\n"
CALC_FILES = {"calc/ops.py": CALC}
ADD = 0  # def add, 0-based line in calc/ops.py


def _served(session: Session) -> list[str]:
    """The roots the server said it serves, in order."""
    return [
        m.message.rsplit(" on ", 1)[1]
        for m in session.client.log_messages
        if m.message.startswith("mnemo-lsp ")
    ]


async def hover_in(session: Session, root: Path, path: str, line: int, character: int) -> str | None:
    found = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=(root / path).as_uri()),
            position=types.Position(line=line, character=character),
        )
    )
    return (
        found.contents.value
        if found is not None and isinstance(found.contents, types.MarkupContent)
        else None
    )


def change_folders(session: Session, added: list[Path], removed: list[Path]) -> None:
    event = types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in added],
        removed=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in removed],
    )
    session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=event))


async def test_every_folder_is_served(repo: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", CALC_FILES, date="2026-02-01T09:00:00+00:00")
    client = await start_client(tmp_path)
    try:
        session = await start(client, repo, other)
        await wait_for_index(client, ends=2)
        assert _served(session) == [str(repo), str(other)]
        card = await hover_in(session, other, "calc/ops.py", ADD, 5)
        assert (
            card is not None and card.startswith("**function** `add`") and "**1 caller**: [`total`]" in card
        )
        card = await hover_in(session, repo, "app/core.py", 3, 5)
        assert card is not None and card.startswith("**function** `helper`")
        assert (await session.lenses("app/core.py"))[3].startswith("1 caller")

        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="a"))
        assert {(s.name, s.location.uri.rsplit("/", 2)[-2]) for s in found or []} >= {
            ("add", "calc"),
            ("main", "app"),
        }

        first = await session.execute("mnemo.contextForTask", {"task": "add numbers"})
        assert first["repo"] == str(repo)
        chosen = await session.execute(
            "mnemo.contextForTask", {"task": "add numbers", "folder": other.as_uri()}
        )
        assert chosen["repo"] == str(other) and chosen["symbols"][0]["name"] == "add"
        where = {"uri": (other / "calc/ops.py").as_uri(), "position": {"line": ADD, "character": 5}}
        blast = await session.execute("mnemo.blastRadius", where)
        assert blast["query"] == "calc/ops.py:add" and blast["repo"] == str(other)
        with pytest.raises(JsonRpcException, match="must all be in one workspace folder"):
            uris = [(repo / "app/core.py").as_uri(), (other / "calc/ops.py").as_uri()]
            await session.execute("mnemo.contextForFiles", {"uris": uris})
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_folders_added_and_removed(repo: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", CALC_FILES, date="2026-02-01T09:00:00+00:00")
    client = await start_client(tmp_path)
    try:
        session = await start(client, repo)
        await wait_for_index(client)
        assert await hover_in(session, other, "calc/ops.py", ADD, 5) is None  # not served yet

        change_folders(session, added=[other], removed=[])
        await wait_for_index(client, ends=2)
        card = await hover_in(session, other, "calc/ops.py", ADD, 5)
        assert card is not None and card.startswith("**function** `add`")

        change_folders(session, added=[], removed=[repo])
        await wait_until(
            client, lambda: any("no longer serves" in m.message for m in client.log_messages), "removal"
        )
        assert await hover_in(session, repo, "app/core.py", 3, 5) is None
        answer = await session.execute("mnemo.contextForTask", {"task": "add numbers"})
        assert answer["repo"] == str(other)  # the first folder now
        with pytest.raises(JsonRpcException, match="is outside the workspace"):
            await session.execute("mnemo.contextForFiles", {"uris": [(repo / "app/core.py").as_uri()]})
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_two_folders_of_one_repository_share_its_index(tmp_path: Path) -> None:
    root = git_workspace(tmp_path / "ws")
    client = await start_client(tmp_path)
    try:
        session = await start(client, root / "app", root / "tests")
        await wait_for_index(client)
        assert _served(session) == [str(root)]
        card = await hover_in(session, root, "tests/test_core.py", 4, 12)  # main() in test_main
        assert card is not None and card.startswith("**function** `main`")
        assert len(client.progress_reports) == 1
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_a_folder_that_cannot_be_served(repo: Path, tmp_path: Path) -> None:
    client = await start_client(tmp_path)
    try:
        session = await start(client, tmp_path / "gone", repo)
        await wait_for_index(client)
        assert [m.message for m in client.messages] == [f"mnemo: {tmp_path / 'gone'}: no such directory"]
        assert _served(session) == [str(repo)]
        card = await hover_in(session, repo, "app/core.py", 3, 5)
        assert card is not None and card.startswith("**function** `helper`")
    finally:
        await client.shutdown_session()
        await client.stop()
