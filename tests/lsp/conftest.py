"""Fixtures of the language-server tests: sessions on throwaway repositories.

``lsp`` is a fresh server per test (for tests that change files); ``shared`` is one server per
test module (for tests that only ask), which keeps the suite fast.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).parent))

from lsp_session import Session, git_workspace, start, start_client, wait_for_index


async def _session(root: Path, home: Path) -> AsyncIterator[Session]:
    client = await start_client(home)
    session = await start(client, root)
    await wait_for_index(client)
    yield session
    await client.shutdown_session()
    await client.stop()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The fixture git repository."""
    return git_workspace(tmp_path / "ws")


@pytest_asyncio.fixture
async def lsp(repo: Path, tmp_path: Path) -> AsyncIterator[Session]:
    """A session on ``repo`` whose first index build has finished."""
    async for session in _session(repo, tmp_path):
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    """One session per test module on its own fixture repository (tests must not change it)."""
    base = tmp_path_factory.mktemp("shared")
    async for session in _session(git_workspace(base / "ws"), base):
        yield session
