"""Fixtures of the MCP tests: a throwaway repository for the server to answer about."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers import make_repo
from mcp_session import FILES


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The fixture git repository (one commit of ``FILES``)."""
    return make_repo(tmp_path / "repo", FILES)
