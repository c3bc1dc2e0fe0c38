"""Helpers of the MCP tests: ``mnemo-mcp`` started as a subprocess and driven over stdio by the SDK's
own client, and the fixture repository."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from helpers import SMALL_APP_FILES
from mcp import ClientSession, StdioServerParameters, stdio_client

CHECKOUT = Path(__file__).resolve().parents[2]  # where mcp_server and mnemo_core are importable from
# -P: python -m would put the working directory (the analysed repository) on sys.path; the console
# script does not, and neither does this.
SERVER = [sys.executable, "-P", "-m", "mcp_server"]
WAIT_S = 60.0  # generous on a loaded 2-core CI machine; a passing test never waits this long

FILES = SMALL_APP_FILES


@asynccontextmanager
async def serve(cwd: Path, *args: str, errlog: Path) -> AsyncIterator[ClientSession]:
    """An initialized client session on ``mnemo-mcp ARGS`` started in ``cwd``; its stderr goes to
    ``errlog``."""
    params = StdioServerParameters(
        command=SERVER[0],
        args=[*SERVER[1:], *args],
        env={"PYTHONPATH": str(CHECKOUT), "HOME": os.environ["HOME"], "GIT_CONFIG_NOSYSTEM": "1"},
        cwd=cwd,
    )
    with errlog.open("a", encoding="utf-8") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    """Run an async scenario to its end, failing it after ``WAIT_S`` seconds."""

    async def bounded() -> None:
        with anyio.fail_after(WAIT_S):
            await scenario()

    anyio.run(bounded)
