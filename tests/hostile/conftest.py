"""Fixtures of the hostile-repository tests; the builders live in hostile_repos.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hostile_repos import Hostile, make_hostile


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """A git repository with planted modules, a pull request on ``feature``, and a marker directory."""
    return make_hostile(tmp_path)
