"""Tests for ci/guard.py: the gates' own exit codes on top of the shared boundary."""

from __future__ import annotations

import pytest

from ci.github import GitHubError
from ci.guard import EXIT_GITHUB, guarded
from mnemo_core.boundary import EXIT_ERROR
from mnemo_core.errors import MnemoError


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (MnemoError("unknown ref 'nope'"), EXIT_ERROR, "tool: error: unknown ref 'nope'"),
        (GitHubError("GitHub answered 404", 404), EXIT_GITHUB, "tool: error: GitHub answered 404"),
    ],
)
def test_known_failures(capsys: pytest.CaptureFixture[str], error: Exception, code: int, line: str) -> None:
    def body() -> int:
        raise error

    assert guarded("tool", body) == code
    assert capsys.readouterr().err == line + "\n"
