"""Tests for mnemo_core/boundary.py: every failure is one line on stderr and its own exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mnemo_core.boundary import EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED, guarded
from mnemo_core.errors import MnemoError


def raising(error: BaseException) -> Callable[[], int]:
    def body() -> int:
        raise error

    return body


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (MnemoError("unknown ref 'nope'"), EXIT_ERROR, "tool: error: unknown ref 'nope'"),
        (KeyboardInterrupt(), EXIT_INTERRUPTED, "tool: interrupted"),
    ],
)
def test_known_failures(
    capsys: pytest.CaptureFixture[str], error: BaseException, code: int, line: str
) -> None:
    assert guarded("tool", raising(error)) == code
    assert capsys.readouterr().err == line + "\n"


def crash_log(err: str) -> Path:
    [line] = err.splitlines()
    return Path(line.split("details written to ")[1].split(". Please")[0])


def test_an_unexpected_error_writes_a_fresh_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert guarded("tool", raising(ZeroDivisionError("boom"))) == EXIT_INTERNAL
    first = crash_log(capsys.readouterr().err)
    guarded("tool", raising(ZeroDivisionError("boom")))
    second = crash_log(capsys.readouterr().err)
    assert first != second and first.name.startswith("mnemo-crash-")
    assert "ZeroDivisionError: boom" in first.read_text(encoding="utf-8")
    first.unlink(), second.unlink()


def test_the_log_goes_to_the_index_directory_and_never_through_a_symlink(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".mnemo").mkdir()
    guarded("tool", raising(ValueError("x")), tmp_path)
    assert crash_log(capsys.readouterr().err).parent == tmp_path / ".mnemo"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    os.symlink(elsewhere, hostile / ".mnemo")
    guarded("tool", raising(ValueError("x")), hostile)
    assert crash_log(capsys.readouterr().err).parent != elsewhere and not list(elsewhere.iterdir())


def test_a_closed_pipe_is_not_a_pass_and_not_a_traceback() -> None:
    code = (
        "import sys; from mnemo_core.boundary import guarded\n"
        "def body():\n    raise BrokenPipeError\n"
        "sys.exit(guarded('tool', body))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert (done.returncode, done.stderr) == (141, "")
