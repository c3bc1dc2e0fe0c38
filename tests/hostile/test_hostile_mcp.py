"""``mnemo-mcp`` started inside a hostile repository (planted ``mcp``, ``mcp_server``, ``anyio``,
``pydantic``, ``json``, ...) answers every kind of tool without importing any of it."""

from __future__ import annotations

import sys

import anyio
from hostile_repos import RUN_TIMEOUT_S, Hostile, mnemo_env
from mcp import ClientSession, StdioServerParameters, stdio_client


def test_the_mcp_server_inside_the_repository(hostile: Hostile) -> None:
    # -P: ``python -m mcp_server`` would find the planted mcp_server/ first (the console script would not)
    params = StdioServerParameters(
        command=sys.executable, args=["-P", "-m", "mcp_server"], env=mnemo_env(), cwd=hostile.root
    )
    calls = [
        ("task_context", {"task": "the pipeline step"}),
        ("files_context", {"paths": ["app/mod2.py"]}),
        ("change_context", {"base": hostile.pr.base}),
        ("impacted_tests", {"base": hostile.pr.base}),
        ("callers", {"symbol": "step3", "depth": 2}),
        ("explain", {"task": "the pipeline step", "symbol": "step3"}),
    ]
    errors: list[str] = []

    async def scenario() -> None:
        with anyio.fail_after(RUN_TIMEOUT_S):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for name, arguments in calls:
                    result = await session.call_tool(name, arguments)
                    if result.is_error:
                        errors.append(f"{name}: {result.content}")

    anyio.run(scenario)
    assert errors == []
    assert hostile.ran() == []
