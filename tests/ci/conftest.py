"""Fixtures of the CI and pre-commit tests; the builders live in tests/ci_helpers.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ci_helpers import FakeGitHub


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """A fake GitHub API on 127.0.0.1, serving for the duration of one test."""
    api = FakeGitHub()
    api.start()
    yield api
    api.stop()
