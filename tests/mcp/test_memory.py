"""The agent's side of memory over stdio with the SDK's client: the feedback tool, the session of
the symbols an agent asks about, and ``--no-memory``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import SHOP_FILES, make_repo
from mcp.types import CallToolResult, TextContent
from mcp_session import run, serve

FILES = SHOP_FILES
TASK = "item price in the cart"
SIMILAR = "cart item price rounding"


def _symbols(result: CallToolResult) -> dict[str, dict[str, Any]]:
    assert not result.is_error and result.structured_content is not None
    return {s["name"]: s for s in result.structured_content["symbols"]}


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_feedback_reorders_a_similar_task_and_asked_symbols_join_the_session(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", FILES)

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), errlog=tmp_path / "err") as session:
            before = await session.call_tool("task_context", {"task": SIMILAR})
            assert next(iter(_symbols(before))) != "cart_total"
            given = {"task": TASK, "used": ["cart_total"], "useless": ["price_item"]}
            feedback = await session.call_tool("feedback", given)
            assert not feedback.is_error and feedback.structured_content is not None
            assert feedback.structured_content["schema"] == 1
            assert [s["name"] for s in feedback.structured_content["used"]] == ["cart_total"]
            assert "useful   shop/cart.py:cart_total" in _text(feedback)
            assert not (await session.call_tool("callers", {"symbol": "remove_item"})).is_error
            after = _symbols(await session.call_tool("task_context", {"task": SIMILAR}))
            assert next(iter(after)) == "cart_total"
            assert f'useful for a similar task: "{TASK}"' in after["cart_total"]["reasons"]
            assert after["price_item"]["score"] < _symbols(before)["price_item"]["score"]
            assert "you hovered this just now" in after["remove_item"]["reasons"]

    run(scenario)


def test_no_memory_refuses_feedback_and_writes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", FILES)

    async def scenario() -> None:
        async with serve(tmp_path, "--repo", str(repo), "--no-memory", errlog=tmp_path / "err") as session:
            result = await session.call_tool("feedback", {"task": TASK, "used": ["cart_total"]})
            assert result.is_error and _text(result).startswith("mnemo: error: memory is off")
            answer = _symbols(await session.call_tool("task_context", {"task": SIMILAR}))
            assert all(s["components"].get("session", 0.0) == 0.0 for s in answer.values())  # zeros left out

    run(scenario)
    assert (repo / ".mnemo" / "index.db").exists()
    assert not (repo / ".mnemo" / "memory.db").exists()
