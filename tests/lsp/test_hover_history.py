"""A symbol's history in its hover card: read off the hover path, shown from the next hover on, and
read again when HEAD moves."""

from __future__ import annotations

import asyncio
import time

import pytest
from helpers import commit, git
from lsp_session import Session

pytestmark = pytest.mark.asyncio


async def _hover_until(session: Session, path: str, line: int, character: int, shows: str) -> str:
    """Hover again until the card shows ``shows`` (the history is read off the hover path)."""
    deadline = time.monotonic() + 20
    while True:
        card = await session.hover(path, line, character)
        assert card is not None
        if shows in card or time.monotonic() > deadline:
            return card
        await asyncio.sleep(0.05)


async def test_the_history_of_a_symbol_comes_with_the_next_hover(lsp: Session) -> None:
    first = await lsp.hover("app/core.py", 3, 5)  # def helper: its first whole card
    assert first is not None
    assert "**History:** being read from git; hover again to see the commits" in first
    card = await _hover_until(lsp, "app/core.py", 3, 5, "**History:** 2 commits")
    tweak, initial = git(lsp.root, "log", "--format=%h", "-n2", "--abbrev=7").split()
    assert "**History:** 2 commits changed these lines, newest first" in card
    assert f"- 2026-03-05 · `{tweak}` · Bo Maker · tweak helper\n- 2026-03-01 · `{initial}`" in card
    assert "being read" not in card

    app = (lsp.root / "app/core.py").read_text()
    fix = commit(
        lsp.root,
        {"app/core.py": app.replace("return x + x", "return 2 * x")},
        "Double with a product (#42)",
        date="2026-03-09T09:00:00+00:00",
    )
    card = await _hover_until(lsp, "app/core.py", 3, 5, "**History:** 3 commits")
    assert f"- 2026-03-09 · `{fix[:7]}` · Ada Tester · Double with a product (\\#42) · #42" in card
    assert "**History:** 3 commits changed these lines" in card
