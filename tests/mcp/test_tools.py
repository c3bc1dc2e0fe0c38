"""The tools in process (``mcp_server/server.py``): answers and failures as CallToolResults."""

from __future__ import annotations

from pathlib import Path

from mcp.types import TextContent

from mcp_server.server import MnemoTools


def _line(result: object) -> str:
    content = getattr(result, "content", [])
    assert len(content) == 1 and isinstance(content[0], TextContent)
    return content[0].text


def test_a_bug_is_a_crash_log_not_a_traceback(repo: Path) -> None:
    def broken(_repo: object) -> tuple[object, str]:
        raise RuntimeError("a bug")

    result = MnemoTools(repo)._answer("explain", broken)
    line = _line(result)
    assert result.is_error and "\n" not in line
    assert line.startswith("mnemo: internal error; details written to ")
    log = Path(
        line.removeprefix("mnemo: internal error; details written to ").removesuffix(". Please report it.")
    )
    assert "RuntimeError: a bug" in log.read_text(encoding="utf-8")


def test_a_bad_ref_is_the_cli_line(repo: Path) -> None:
    result = MnemoTools(repo).change_context(base="no-such-ref")
    assert result.is_error
    assert _line(result).startswith("mnemo: error: ") and "no-such-ref" in _line(result)


def test_explain_answers_with_the_why_json(repo: Path) -> None:
    result = MnemoTools(repo).explain("double a number", "helper")
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content["symbol"]["name"] == "helper"
    assert result.structured_content["rank"] == 1
    assert _line(result).startswith("app/core.py:helper")


def test_symbol_history_answers_as_mnemo_history(repo: Path) -> None:
    result = MnemoTools(repo).symbol_history("helper")
    assert not result.is_error and result.structured_content is not None
    [history] = result.structured_content["histories"]
    assert [c["subject"] for c in history["commits"]] == ["initial commit"]
    assert _line(result).splitlines()[1].split()[2:] == ["Ada", "Tester", "initial", "commit"]
