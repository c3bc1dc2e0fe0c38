"""Shared fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's git config, environment and temporary directory out of every test (a crash
    log that finds no repository goes to the temporary directory)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # mnemo's private state goes under HOME
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ada@example.com")


@pytest.fixture(autouse=True, scope="session")
def _encoder_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One built encoder for the session (each test's own HOME would build it again, a few seconds
    and several hundred MB each time), built before any test measures a process."""
    from mnemo_core.semantic.encoder import CACHE_VARIABLE, available

    os.environ[CACHE_VARIABLE] = str(tmp_path_factory.mktemp("encoders"))
    if available():  # in a process of its own: the build leaves this one's signal handling as it was
        build = (
            "from mnemo_core.semantic.encoder import built_model\n"
            "from mnemo_core.semantic.query import built_arrays\n"
            "built_arrays(built_model())"
        )
        checkout = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([checkout, os.environ.get("PYTHONPATH", "")])}
        subprocess.run([sys.executable, "-c", build], check=True, capture_output=True, env=env)
    yield
    os.environ.pop(CACHE_VARIABLE, None)


@pytest.fixture(scope="session")
def try_repo_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment for ``pre-commit try-repo`` (see ``ci_helpers.try_repo_environment``): one
    pre-commit cache for the session, so mnemo's hook environment is built once."""
    from ci_helpers import try_repo_environment

    return try_repo_environment(tmp_path_factory.mktemp("pre-commit-home"))
