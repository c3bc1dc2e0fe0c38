"""Budgets are contracts (``mnemo_core/render_budget.py``): through the SDK's own client, a tool given a
budget answers within it in its text and in its structured content, says what it left out and how
to ask for it; tools declare their output schemas, speak their arguments' names, and report
progress on a long first call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import FUNCTIONS, commit, make_repo, many_functions
from mcp.types import CallToolResult, TextContent
from mcp_session import run, serve

from mnemo_core.render_budget import json_tokens, tokens


def _text(result: CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def _within(result: CallToolResult, budget: int) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    payload = result.structured_content
    assert payload is not None
    assert json_tokens(payload) <= budget, json_tokens(payload)
    assert tokens(_text(result)) <= budget, tokens(_text(result))
    assert len(json.dumps(payload)) <= budget * 4 and len(_text(result)) <= budget * 4
    return payload


def test_task_context_keeps_to_its_budget_and_pages_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    pages: list[dict[str, Any]] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            for budget in (800, 3000):
                result = await session.call_tool(
                    "task_context", {"task": "parse the upload record", "budget": budget}
                )
                pages.append(_within(result, budget))
            offset = int(pages[0]["more"].split("offset=")[1].split()[0])
            result = await session.call_tool(
                "task_context", {"task": "parse the upload record", "budget": 800, "offset": offset}
            )
            pages.append(_within(result, 800))
            assert "left out to keep within 800 tokens" in _text(result)

    run(scenario)
    small, large, after = pages
    assert 0 < len(small["symbols"]) < len(large["symbols"]) < FUNCTIONS
    assert small["omitted"]["symbols"] > 0 and small["budget_tokens"] == 800
    shown = {(s["path"], s["name"]) for s in small["symbols"]}
    assert after["symbols"] and not shown & {(s["path"], s["name"]) for s in after["symbols"]}


def test_change_context_keeps_to_its_budget_and_counts_what_it_left_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    commit(repo, many_functions("v2"), "every parser changes")
    answers: list[CallToolResult] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            answers.append(await session.call_tool("change_context", {"base": "HEAD~1", "budget": 1000}))
            answers.append(await session.call_tool("change_context", {"base": "HEAD~1", "budget": 50_000}))

    run(scenario)
    cut, whole = _within(answers[0], 1000), _within(answers[1], 50_000)
    impact = cut["impact"]
    assert 0 < len(impact["changed"]) < FUNCTIONS and cut["omitted"]["changed"] == FUNCTIONS - len(
        impact["changed"]
    )
    assert cut["stats"]["changed"] == FUNCTIONS and "impacted_tests lists every impacted test" in cut["more"]
    assert "omitted" not in whole and len(whole["impact"]["changed"]) == FUNCTIONS
    reached = next(s for s in whole["impact"]["changed"] if s["name"] == "parse_upload_record_0_1")
    assert reached["reached_by"] == ["tests/test_parse.py::test_other", "tests/test_parse.py::test_parse_all"]
    assert "left out" not in _text(answers[1])


def test_every_tool_declares_the_shape_of_its_answer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert all(t.output_schema for t in tools.values()), [
                n for n, t in tools.items() if not t.output_schema
            ]
            schema = tools["task_context"].output_schema
            assert schema is not None and {"symbols", "omitted", "more"} <= set(schema["properties"])
            assert tools["task_context"].input_schema["properties"]["budget"]["anyOf"][0]["minimum"] == 200

    run(scenario)


def test_errors_speak_the_tools_arguments_and_guess_only_typos(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    lines: list[str] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            for name, arguments in (
                ("change_context", {"staged": True, "worktree": True}),
                ("impacted_tests", {"head": "HEAD", "staged": True}),
                ("callers", {"symbol": "completely_unrelated_thing"}),
                ("callers", {"symbol": "test_othr"}),
            ):
                result = await session.call_tool(name, arguments)
                assert result.is_error
                lines.append(_text(result))

    run(scenario)
    both, head, nonsense, typo = lines
    assert both == "mnemo: error: choose one of staged and worktree"
    assert head == "mnemo: error: head compares commits; it cannot be combined with staged or worktree"
    assert nonsense == "mnemo: error: no symbol named 'completely_unrelated_thing' in the index"
    assert typo.endswith("did you mean test_other?")


def test_a_first_call_on_an_unindexed_repository_reports_progress(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_functions("v1"))
    heard: list[tuple[float, float | None, str | None]] = []

    async def note(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            result = await session.call_tool(
                "task_context", {"task": "parse the upload record"}, progress_callback=note
            )
            assert not result.is_error
            before = len(heard)
            await session.call_tool(
                "task_context", {"task": "parse the upload record"}, progress_callback=note
            )
            assert len(heard) == before  # an index already up to date has nothing to report

    run(scenario)
    assert heard and heard[-1][0] == heard[-1][1] == 5  # the five files, the last notification at the end
    assert all(m is not None and m.startswith("indexing: ") for _, _, m in heard)
