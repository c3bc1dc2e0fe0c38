"""Fixtures of the language-server tests: a session on a throwaway git repository."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

sys.path.insert(0, str(Path(__file__).parent))

from lsp_session import git_workspace, start, start_client, wait_for_index


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "ws")


@pytest_asyncio.fixture
async def lsp(repo: Path) -> AsyncIterator[LanguageClient]:
    """A client with a session on ``repo`` whose first index build has finished."""
    client = await start_client()
    await start(client, repo)
    await wait_for_index(client)
    yield client
    await client.shutdown_session()
    await client.stop()


@pytest_asyncio.fixture
async def bare_client() -> AsyncIterator[LanguageClient]:
    """A started server without a session; the test initializes it."""
    client = await start_client()
    yield client
    await client.shutdown_session()
    await client.stop()

