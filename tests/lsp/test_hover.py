"""Hover cards on definitions and on calls, with history and (once a task runs) the task's ranking."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git
from lsp_session import Session
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_hover_on_a_definition(shared: Session) -> None:
    card = await shared.hover("app/core.py", 3, 5)  # def helper
    assert card is not None
    sha = git(shared.root, "rev-parse", "--short=7", "HEAD").strip()
    assert card.startswith("**function** `helper` · [`app/core.py:4`](")
    assert "```python\ndef helper(x)\n```" in card
    assert f"**1 caller**: [`main`]({shared.uri('app/core.py')}#L9)" in card
    assert "**Blast radius:** 2 symbols depend on it" in card
    assert "**2 tests** reach it: [`test_main`]" in card and "[`test_box`]" in card
    assert f"· `{sha}` · Bo Maker · tweak helper" in card
    assert "**Task**" not in card


async def test_hover_on_a_call_shows_the_callee(shared: Session) -> None:
    on_call = await shared.hover("app/core.py", 9, 26)  # the second helper(2)
    on_definition = await shared.hover("app/core.py", 3, 5)
    assert on_call is not None and on_definition is not None
    assert without_history(on_call) == without_history(on_definition)  # the history may arrive between
    main_card = await shared.hover("app/core.py", 14, 16)  # return main() inside Box.open
    assert main_card is not None and main_card.startswith("**function** `main`")
    assert "**2 callers**" in main_card


def without_history(card: str) -> str:
    """The card without its history paragraph (read off the hover path: it comes with a later hover)."""
    return "\n\n".join(p for p in card.split("\n\n") if not p.startswith("**History"))


async def test_hover_on_a_class_from_another_file(shared: Session) -> None:
    card = await shared.hover("tests/test_core.py", 8, 12)  # Box().open()
    assert card is not None and card.startswith("**class** `Box`")


@pytest.mark.parametrize(
    ("line", "character"),
    [(0, 1), (4, 6), (9, 4), (30, 0)],
    ids=["module docstring", "function docstring", "keyword", "past the end"],
)
async def test_no_card_off_a_symbol_name(shared: Session, line: int, character: int) -> None:
    assert await shared.hover("app/core.py", line, character) is None


async def test_hover_outside_the_workspace_is_empty(shared: Session, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def helper():\n    pass\n")
    found = await shared.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=outside.as_uri()),
            position=types.Position(line=0, character=5),
        )
    )
    assert found is None


async def test_an_active_task_adds_its_ranking(shared: Session) -> None:
    answer = await shared.execute("mnemo.contextForTask", {"task": "open the box"})
    rank = [s["name"] for s in answer["symbols"]].index("Box.open") + 1
    card = await shared.hover("app/core.py", 13, 9)  # def open
    size = len(answer["symbols"])
    assert card is not None and f"**Task** “open the box”: rank {rank} of {size} · score " in card
    assert "lexical" in card
