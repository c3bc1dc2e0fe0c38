"""LSP commands keep to their budget as the MCP tools do (``mnemo_core.render_budget``): the answer's
JSON holds at most ``budget`` tokens, counts what it left out, says how to ask for it, and its report
shows the same answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from helpers import FUNCTIONS, commit, make_repo, many_functions
from lsp_session import Session, start, start_client, wait_for_index

from mnemo_core.render_budget import json_tokens

pytestmark = pytest.mark.asyncio
TASK = "parse the upload record"


def _within(answer: Any, budget: int) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(json.dumps(answer))
    assert json_tokens(payload) <= budget, json_tokens(payload)
    assert len(json.dumps(payload)) <= budget * 4
    assert payload["budget_tokens"] == budget
    return payload


def _report(answer: dict[str, Any]) -> str:
    return Path(urlparse(answer["report"]).path).read_text(encoding="utf-8")


async def _session(tmp_path: Path, repo: Path) -> Session:
    client = await start_client(tmp_path)
    session = await start(client, repo)
    await wait_for_index(client)
    return session


async def test_context_for_task_keeps_to_its_budget_and_pages_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    session = await _session(tmp_path, repo)
    try:
        small = _within(await session.execute("mnemo.contextForTask", {"task": TASK, "budget": 800}), 800)
        report = _report(small)  # the next answer to the same task writes over it
        large = _within(await session.execute("mnemo.contextForTask", {"task": TASK, "budget": 3000}), 3000)
        offset = int(small["more"].split('"offset": ')[1].split()[0])
        page = {"task": TASK, "budget": 800, "offset": offset}
        after = _within(await session.execute("mnemo.contextForTask", page), 800)
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
    assert 0 < len(small["symbols"]) < len(large["symbols"]) < FUNCTIONS
    assert small["omitted"]["symbols"] > 0
    shown = {(s["path"], s["name"]) for s in small["symbols"]}
    assert after["symbols"] and not shown & {(s["path"], s["name"]) for s in after["symbols"]}
    assert "left out to keep within 800 tokens" in report and '"offset": ' in report
    assert all(f"`{s['name']}`" in report for s in small["symbols"])


async def test_context_for_pr_keeps_to_its_budget_and_names_narrower_commands(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    commit(repo, many_functions("v2"), "every parser changes")
    session = await _session(tmp_path, repo)
    try:
        cut = _within(await session.execute("mnemo.contextForPR", {"base": "HEAD~1", "budget": 1000}), 1000)
        whole = await session.execute("mnemo.contextForPR", {"base": "HEAD~1", "budget": 50_000})
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
    changed = cut["impact"]["changed"]
    assert 0 < len(changed) < FUNCTIONS and cut["omitted"]["changed"] == FUNCTIONS - len(changed)
    assert "mnemo.blastRadius on one symbol" in cut["more"]
    assert "omitted" not in whole and len(whole["impact"]["changed"]) == FUNCTIONS
