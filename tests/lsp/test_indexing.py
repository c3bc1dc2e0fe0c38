"""The workspace index behind the server: first build with progress, requests while it is built,
another indexer at the same time, a workspace without git, and clients that go away or connect by TCP."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from helpers import commit, write_files
from lsp_session import (
    APP,
    FILES,
    Session,
    server_env,
    start,
    start_client,
    wait_for_index,
    wait_until,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from mnemo_core.cli import main as cli_main
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.lock import index_lock
from mnemo_core.index.store import prepare_index_dir

pytestmark = pytest.mark.asyncio

HELPER = 3


async def test_first_build_reports_progress(lsp: Session) -> None:
    (reports,) = lsp.client.progress_reports.values()
    begin, *steps, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.percentage == 0
    assert begin.title == "mnemo: indexing the workspace"
    percentages = [r.percentage for r in steps if isinstance(r, types.WorkDoneProgressReport)]
    assert percentages and percentages == sorted(percentages) and 0 < percentages[-1] <= 100
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message is not None
    assert end.message.startswith("3 files, 9 symbols")
    assert any(m.message.startswith("index: 3 files") for m in lsp.client.log_messages)


async def test_requests_while_the_first_index_is_built(repo: Path, tmp_path: Path) -> None:
    client = await start_client(tmp_path)
    try:
        with index_lock(prepare_index_dir(repo)):  # another indexer holds the index: the build waits
            session = await start(client, repo)
            where = {"uri": session.uri("app/core.py"), "position": {"line": HELPER, "character": 5}}
            card, answer, blast, lenses = await asyncio.gather(  # each waits for the build a while
                session.hover("app/core.py", HELPER, 5),
                session.execute("mnemo.contextForTask", {"task": "helper"}),  # answers, partial
                session.execute("mnemo.blastRadius", where),  # names a symbol the index lacks yet
                session.lenses("app/core.py"),
                return_exceptions=True,
            )
            assert isinstance(card, str) and "is being built" in card
            assert isinstance(answer, dict) and answer["partial"] is True
            assert answer["notes"][0].startswith("partial: the index is still")
            assert isinstance(blast, JsonRpcException) and "is being built" in str(blast)
            assert lenses == {}
            waited = [m.message for m in client.log_messages if "for the first index build" in m.message]
            assert waited and waited[0].startswith("waiting up to 5 s")
        await wait_for_index(client)
        assert client.events.lens_refreshes == 1  # type: ignore[attr-defined]
        assert (await session.lenses("app/core.py"))[HELPER].startswith("1 caller")
        whole = await session.execute("mnemo.contextForTask", {"task": "helper"})
        assert "partial" not in whole and whole["symbols"][0]["name"] == "helper"
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_requests_wait_for_the_first_check_of_a_complete_index(repo: Path, tmp_path: Path) -> None:
    index_repo(repo)  # complete, then made stale by a commit while no server runs
    commit(repo, {"app/core.py": APP + "\n\ndef again():\n    return helper(3)\n"}, "again")
    client = await start_client(tmp_path)
    try:
        with index_lock(prepare_index_dir(repo)):  # the first freshness check waits for this lock
            session = await start(client, repo)
            hover = asyncio.ensure_future(session.hover("app/core.py", HELPER, 5))
            where = {"uri": session.uri("app/core.py"), "position": {"line": HELPER, "character": 5}}
            command = asyncio.ensure_future(session.execute("mnemo.blastRadius", where))
            await wait_until(
                client, lambda: _waiting(client) == 2, "both requests to wait for the first check"
            )
        card = await hover
        assert card is not None and "**2 callers**" in card  # neither refused nor stale
        assert {s["name"] for s in (await command)["impact"]["callers"]} == {"main", "again", "Box.open"}
    finally:
        await client.shutdown_session()
        await client.stop()


def _waiting(client: LanguageClient) -> int:
    return sum("waiting up to 10 s for the first index check" in m.message for m in client.log_messages)


async def test_the_cli_indexing_at_the_same_time(lsp: Session, tmp_path: Path) -> None:
    edited = APP + "\n\ndef again():\n    return helper(3)\n"
    env = server_env(tmp_path)

    async def both() -> int:
        with index_lock(prepare_index_dir(lsp.root)):
            lsp.save("app/core.py", edited)
            cli = await asyncio.create_subprocess_exec(
                "mnemo", "index", str(lsp.root), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        _, stderr = await cli.communicate()
        assert not stderr, stderr.decode()
        return cli.returncode or 0

    before = lsp.client.events.lens_refreshes  # type: ignore[attr-defined]
    assert await both() == 0
    events = lsp.client.events  # type: ignore[attr-defined]
    await wait_until(lsp.client, lambda: events.lens_refreshes > before, "the re-index after the save")
    assert (await lsp.lenses("app/core.py"))[HELPER].startswith("2 callers")
    stats = subprocess.run(
        ["mnemo", "stats", "--repo", str(lsp.root), "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert sum(json.loads(stats.stdout)["files"].values()) == 3


async def test_a_workspace_that_is_not_a_git_repository(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write_files(root, FILES)
    assert cli_main(["index", "--plain", str(root)]) == 0  # served only once indexed deliberately
    client = await start_client(tmp_path)
    try:
        session = await start(client, root)
        await wait_for_index(client)
        answer = await session.execute("mnemo.contextForTask", {"task": "double a number in helper"})
        assert answer["symbols"][0]["name"] == "helper" and answer["commit"] is None
        card = await session.hover("app/core.py", HELPER, 5)
        assert card is not None and "**1 caller**" in card and "Last change" not in card
        assert await session.hover("app/core.py", HELPER, 5) == card
        assert (await session.lenses("app/core.py"))[HELPER] == "1 caller · 2 tests"
        with pytest.raises(JsonRpcException, match="not inside a git repository"):
            await session.execute("mnemo.contextForPR", {})
        told = [m.message for m in client.messages if "not a git repository" in m.message]
        assert len(told) == 1 and "history (last change, churn, PR context) needs git" in told[0]
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_a_session_without_a_workspace_folder(tmp_path: Path) -> None:
    client = await start_client(tmp_path)
    try:
        await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
        await wait_until(client, lambda: bool(client.messages), "a message about the missing folder")
        assert "needs a workspace folder" in client.messages[0].message
        with pytest.raises(JsonRpcException, match="needs a workspace folder"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="mnemo.contextForTask", arguments=[{"task": "x"}])
            )
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_a_request_during_a_short_first_build_waits_for_it(repo: Path, tmp_path: Path) -> None:
    client = await start_client(tmp_path)
    try:
        session = await start(client, repo)  # the first build starts; the request does not wait for it here
        answer = await session.execute("mnemo.contextForTask", {"task": "double a number"})
        assert "partial" not in answer and answer["symbols"][0]["name"] == "helper"
    finally:
        await client.shutdown_session()
        await client.stop()
