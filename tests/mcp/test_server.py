"""``mnemo-mcp`` end to end: the real server as a subprocess, the SDK's stdio client, a real git
repository; answers are compared with what the CLI prints for the same question."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import commit, write_files
from mcp.types import CallToolResult, TextContent
from mcp_session import run, serve

from mcp_server.cli import main as mcp_main
from mcp_server.server import TOOLS
from mnemo_core.cli import main as cli_main
from mnemo_core.engine import Engine

LIVE_S = 5.0  # issue #40: a file written outside the editor is indexed within this long
POLL_S = 0.1  # how often the test looks at the index (the server's watcher pushes, the test polls)


def _text(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    return result.structured_content


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_lists_every_tool_with_a_description_and_read_only_but_feedback(repo: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            tools = (await session.list_tools()).tools
            assert sorted(t.name for t in tools) == sorted(TOOLS)
            for tool in tools:
                assert tool.description and len(tool.description) > 80, tool.name
                assert tool.annotations is not None
                assert tool.annotations.read_only_hint is (tool.name != "feedback"), tool.name
            schema = next(t.input_schema for t in tools if t.name == "task_context")
            assert schema["required"] == ["task"]

    run(scenario)


def test_task_context_ranks_the_function_first(repo: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            result = await session.call_tool("task_context", {"task": "double a number", "limit": 3})
            answer = _answer(result)
            assert answer["schema"] == 1 and answer["mode"] == "task"
            assert answer["symbols"][0]["name"] == "helper"
            assert answer["symbols"][0]["path"] == "app/core.py"
            assert len(answer["symbols"]) <= 3
            assert "app/core.py:4  helper" in _text(result)

    run(scenario)


def test_callers_answers_as_the_cli_does(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers: list[CallToolResult] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            answers.append(await session.call_tool("callers", {"symbol": "helper", "depth": 2}))

    run(scenario)
    answer = _answer(answers[0])
    hops = {(h["name"], h["depth"]) for h in answer["hops"]}
    assert hops == {("main", 1), ("Box.open", 2), ("test_main", 2)}
    code, out, _ = _cli(capsys, "callers", "helper", "--depth", "2", "--repo", str(repo), "--format", "json")
    assert code == 0 and json.loads(out) == answer
    assert (
        _cli(capsys, "callers", "helper", "--depth", "2", "--repo", str(repo))[1] == _text(answers[0]) + "\n"
    )


def test_callers_at_an_older_commit_answer_as_the_cli_does(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    core = (repo / "app" / "core.py").read_text(encoding="utf-8")
    commit(repo, {"app/core.py": core.replace("helper(1) + helper(2)", "3")}, "main no longer calls helper")
    answers: list[CallToolResult] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            answers.append(await session.call_tool("callers", {"symbol": "helper", "at": "HEAD~1"}))
            answers.append(await session.call_tool("callers", {"symbol": "helper"}))

    run(scenario)
    old, now = _answer(answers[0]), _answer(answers[1])
    assert [h["name"] for h in old["hops"]] == ["main"] and now["hops"] == []
    assert old["at"]["ref"] == "HEAD~1" and "at" not in now
    args = ("callers", "helper", "--at", "HEAD~1", "--repo", str(repo))
    code, out, _ = _cli(capsys, *args, "--format", "json")
    assert code == 0 and json.loads(out) == old
    assert _cli(capsys, *args)[1] == _text(answers[0]) + "\n"
    assert (repo / "app" / "core.py").read_text(encoding="utf-8") != core


def test_an_unknown_symbol_is_a_tool_error_with_the_cli_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers: list[CallToolResult] = []

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            answers.append(await session.call_tool("callers", {"symbol": "helpr"}))
            answers.append(await session.call_tool("explain", {"task": "double", "symbol": "nothing_here"}))
            answers.append(await session.call_tool("callers", {"symbol": "helper", "depth": 0}))
            answers.append(await session.call_tool("callees", {"symbol": "main"}))  # still serving

    run(scenario)
    wrong, missing, shallow, fine = answers
    assert wrong.is_error and missing.is_error and shallow.is_error
    assert _text(shallow) == (
        "mnemo: error: bad arguments for callers: depth: input should be greater than or equal to 1 (got 0)"
    )
    line = _text(wrong)
    assert line == "mnemo: error: no symbol named 'helpr' in the index; did you mean helper?"
    assert _cli(capsys, "callers", "helpr", "--repo", str(repo))[2] == line + "\n"
    assert "\n" not in _text(missing) and _text(missing).startswith("mnemo: error: no symbol named")
    assert [h["name"] for h in _answer(fine)["hops"]] == ["helper"]
    assert "Traceback" not in (tmp_path / "err").read_text(encoding="utf-8")


def test_an_edit_in_the_working_tree_reaches_its_tests(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"app/core.py": APP_EDITED})

    async def scenario() -> None:
        async with serve(repo, errlog=tmp_path / "err") as session:  # the working directory is the repo
            change = _answer(await session.call_tool("change_context", {"worktree": True}))
            assert [s["name"] for s in change["impact"]["changed"]] == ["helper"]
            tests = _answer(await session.call_tool("impacted_tests", {"worktree": True}))
            assert {t["id"] for t in tests["tests"]} == {
                "tests/test_core.py::test_main",
                "tests/test_core.py::test_box",
            }

    run(scenario)


def test_the_server_never_imports_the_repository(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    trap = f"open({str(marker)!r}, 'w').close()\n"
    write_files(
        repo, {name: trap for name in ("mcp_server/__init__.py", "mnemo_core.py", "sitecustomize.py")}
    )

    async def scenario() -> None:
        async with serve(repo, errlog=tmp_path / "err") as session:
            _answer(await session.call_tool("files_context", {"paths": ["app/core.py"]}))

    run(scenario)
    assert not marker.exists()


def test_a_repository_that_is_not_there_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mcp_main(["--repo", str(tmp_path / "nowhere")]) == 1
    assert capsys.readouterr().err == f"mnemo-mcp: error: {tmp_path / 'nowhere'}: no such directory\n"


APP_EDITED = '''"""The app."""


def helper(x):
    """Double a number, the long way."""
    return x + x


def main():
    return helper(1) + helper(2)


class Box:
    def open(self):
        return main()
'''


def test_a_file_an_agent_writes_is_indexed_before_the_next_call(repo: Path, tmp_path: Path) -> None:
    indexed: list[float] = []

    def triple_indexed() -> bool:
        with Engine(repo, update_index=False, memory=False) as engine:
            return any(s.name == "triple" for s in engine.find("triple"))

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            _answer(await session.call_tool("callers", {"symbol": "helper"}))  # the index is built
            written = time.monotonic()
            write_files(repo, {"app/extra.py": "def triple(x):\n    return 3 * x\n"})
            while not triple_indexed():  # no call: the server's watcher does it
                assert time.monotonic() - written < LIVE_S, "not indexed in time"
                await anyio.sleep(POLL_S)
            indexed.append(time.monotonic() - written)

    run(scenario)
    assert indexed and indexed[0] < LIVE_S
