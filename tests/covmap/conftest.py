"""The project with a coverage map of a full run, recorded once per module and copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from covmap_helpers import project, run_pytest


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with a coverage map of a full run at its only commit."""
    root = project(tmp_path_factory.mktemp("recorded") / "repo")
    ran = run_pytest(root, "--mnemo-record")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "a full run, the map replaced" in ran.stdout
    return root


@pytest.fixture
def repo(recorded: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded, tmp_path / "repo", symlinks=True))
