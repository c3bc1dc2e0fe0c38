"""Tests for ci/guard.py: every failure is one line on stderr and its own exit code."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ci.github import GitHubError
from ci.guard import EXIT_GITHUB, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, guarded
from mnemo_core.errors import MnemoError


def raising(error: BaseException) -> Callable[[], int]:
    def body() -> int:
        raise error
    return body


@pytest.mark.parametrize(("error", "code", "line"), [
    (MnemoError("unknown ref 'nope'"), EXIT_INPUT, "tool: error: unknown ref 'nope'"),
    (GitHubError("GitHub answered 404", 404), EXIT_GITHUB, "tool: error: GitHub answered 404"),
    (KeyboardInterrupt(), EXIT_INTERRUPTED, "tool: interrupted"),
])
def test_known_failures(capsys: pytest.CaptureFixture[str], error: BaseException, code: int,
                        line: str) -> None:
    assert guarded("tool", raising(error)) == code
    assert capsys.readouterr().err == line + "\n"


def test_an_unexpected_error_writes_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert guarded("tool", raising(ZeroDivisionError("boom"))) == EXIT_INTERNAL
    [line] = capsys.readouterr().err.splitlines()
    log = Path(line.split("details written to ")[1].split(". Please")[0])
    assert "ZeroDivisionError: boom" in log.read_text(encoding="utf-8")


def test_a_closed_pipe_is_not_a_pass_and_not_a_traceback() -> None:
    code = ("import sys; from ci.guard import guarded\n"
            "def body():\n    raise BrokenPipeError\n"
            "sys.exit(guarded('tool', body))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert (done.returncode, done.stderr) == (141, "")
