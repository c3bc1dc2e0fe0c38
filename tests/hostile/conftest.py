"""Fixtures of the hostile-repository tests; the builders live in hostile_repos.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "lsp"))  # lsp_session, the language-server helpers

from hostile_repos import Hostile, make_hostile


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """A git repository with planted modules, a pull request on ``feature``, and a marker directory."""
    return make_hostile(tmp_path)
