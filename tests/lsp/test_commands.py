"""Every ``mnemo.*`` command end to end over stdio, and what bad arguments get back."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
from lsp_session import Session
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMANDS = {
    "mnemo.contextForTask",
    "mnemo.contextForPR",
    "mnemo.contextForFiles",
    "mnemo.blastRadius",
    "mnemo.explain",
    "mnemo.reindex",
}
HELPER_CALL = {"line": 9, "character": 12}  # ``helper(1)`` inside ``main``


def report_text(answer: dict[str, object]) -> str:
    return Path(urlparse(str(answer["report"])).path).read_text(encoding="utf-8")


async def test_every_command_is_advertised(shared: Session) -> None:
    provider = shared.result.capabilities.execute_command_provider
    assert provider is not None and set(provider.commands) == COMMANDS


async def test_context_for_task_returns_the_pack_and_opens_the_report(shared: Session) -> None:
    answer = await shared.execute(
        "mnemo.contextForTask", {"task": "double a number in helper", "budget": 2000}
    )
    assert (answer["schema"], answer["mode"], answer["budget_tokens"]) == (1, "task", 2000)
    names = [s["name"] for s in answer["symbols"]]
    assert names[0] == "helper"
    assert answer["symbols"][0]["reasons"] and answer["symbols"][0]["components"]
    assert answer["report"].endswith("/.mnemo/reports/task-double-a-number-in-helper.md")
    assert report_text(answer).startswith("# mnemo: double a number in helper")
    assert shared.client.shown_documents[-1].uri == answer["report"]


async def test_context_for_pr_between_two_commits(shared: Session) -> None:
    answer = await shared.execute("mnemo.contextForPR", {"base": "HEAD~1", "head": "HEAD"})
    impact = answer["impact"]
    assert [s["name"] for s in impact["changed"]] == ["helper"]
    assert {s["name"] for s in impact["callers"]} == {"main", "Box.open"}
    assert {s["name"] for s in impact["tests"]} == {"test_main", "test_box"}
    assert "Risk:" in report_text(answer)


async def test_context_for_pr_defaults_to_the_branch_against_main(shared: Session) -> None:
    answer = await shared.execute("mnemo.contextForPR", {})
    assert answer["impact"]["changed"] == [] and any("no changes" in n for n in answer["notes"])


async def test_context_for_files(shared: Session) -> None:
    answer = await shared.execute("mnemo.contextForFiles", {"uris": [shared.uri("tests/test_core.py")]})
    assert answer["mode"] == "files"
    assert {s["name"] for s in answer["impact"]["changed"]} == {"test_main", "test_box"}


async def test_blast_radius_at_a_call(shared: Session) -> None:
    answer = await shared.execute(
        "mnemo.blastRadius", {"uri": shared.uri("app/core.py"), "position": HELPER_CALL}
    )
    assert answer["query"] == "app/core.py:helper"
    assert {s["name"] for s in answer["impact"]["callers"]} == {"main", "Box.open"}
    assert {s["name"] for s in answer["impact"]["tests"]} == {"test_main", "test_box"}
    assert answer["report"].endswith("/blast-app-core-py-helper.md")


async def test_explain_for_a_given_task(shared: Session) -> None:
    answer = await shared.execute(
        "mnemo.explain",
        {"uri": shared.uri("app/core.py"), "position": HELPER_CALL, "task": "double a number"},
    )
    assert answer["symbol"]["name"] == "helper" and answer["rank"] == 1
    assert set(answer["components"]) >= {"lexical", "walk"}
    assert "rank 1 of" in answer["text"] and "helper" in report_text(answer)


async def test_explain_uses_the_active_task(shared: Session) -> None:
    await shared.execute("mnemo.contextForTask", {"task": "open the box"})
    answer = await shared.execute(
        "mnemo.explain", {"uri": shared.uri("app/core.py"), "position": {"line": 14, "character": 8}}
    )
    assert (answer["task"], answer["symbol"]["name"]) == ("open the box", "Box.open")


async def test_reindex_rebuilds_with_progress(shared: Session) -> None:
    answer = await shared.execute("mnemo.reindex", {})
    assert (answer["files"], answer["parsed"]) == (3, 3)  # the empty __init__.py has nothing to index
    titles = [
        r.title
        for reports in shared.client.progress_reports.values()
        for r in reports
        if isinstance(r, types.WorkDoneProgressBegin)
    ]
    assert "mnemo: rebuilding the index" in titles


@pytest.mark.parametrize(
    ("command", "arguments", "message"),
    [
        ("mnemo.nope", [{}], "'mnemo.nope' is not defined"),
        ("mnemo.contextForTask", [], '"task" is required'),
        ("mnemo.contextForTask", ["fix it"], 'expected one object argument like {"task"'),
        ("mnemo.contextForTask", [{"task": 3}], '"task" must be a non-empty string, got 3'),
        ("mnemo.contextForTask", [{"task": "x", "budget": 0}], '"budget" must be a positive integer'),
        ("mnemo.contextForTask", [{"task": "x", "limit": 3}], "unknown field 'limit'"),
        ("mnemo.contextForPR", [{"staged": "yes"}], '"staged" must be true or false'),
        ("mnemo.contextForFiles", [{"uris": []}], '"uris" must be a non-empty list of file URIs'),
        (
            "mnemo.contextForFiles",
            [{"uris": ["file:///etc/hostname"]}],
            "/etc/hostname is outside the workspace",
        ),
        ("mnemo.blastRadius", [{"uri": "file:///x.py"}], '"position" must be {"line": n, "character": n}'),
        (
            "mnemo.blastRadius",
            [{"uri": "file:///x.py", "position": {"line": -1, "character": 0}}],
            '"position" must',
        ),
        ("mnemo.reindex", [{"full": True}], "unknown field 'full'"),
    ],
)
async def test_bad_arguments_are_invalid_params(
    shared: Session, command: str, arguments: list[object], message: str
) -> None:
    with pytest.raises(JsonRpcInvalidParams) as caught:
        await shared.execute(command, *arguments)
    assert message in caught.value.message


async def test_what_the_engine_refuses_is_a_request_failure(shared: Session) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await shared.execute("mnemo.contextForPR", {"base": "no-such-branch"})
    assert caught.value.code == -32803 and "no-such-branch" in caught.value.message
    with pytest.raises(JsonRpcException, match=r"no definition at app/core\.py:2"):
        await shared.execute(
            "mnemo.blastRadius", {"uri": shared.uri("app/core.py"), "position": {"line": 1, "character": 0}}
        )
