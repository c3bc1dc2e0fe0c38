"""Change context through the server: the staged change, and the working tree after a save."""

from __future__ import annotations

import pytest
from helpers import git
from lsp_session import Session

pytestmark = pytest.mark.asyncio


async def test_context_for_the_staged_change(lsp: Session) -> None:
    committed = (lsp.root / "app/core.py").read_text(encoding="utf-8")
    edited = committed.replace("return helper(1) + helper(2)", "return helper(1) + helper(3)")
    await lsp.refreshed(lambda: lsp.save("app/core.py", edited), "the re-index after the save")
    git(lsp.root, "add", "app/core.py")
    answer = await lsp.execute("mnemo.contextForPR", {"staged": True})
    impact = answer["impact"]
    assert [s["name"] for s in impact["changed"]] == ["main"]
    assert {s["name"] for s in impact["callers"]} == {"Box.open"}
    assert {s["name"] for s in impact["tests"]} == {"test_main", "test_box"}
    assert answer["report"].endswith("/.mnemo/reports/pr-staged.md")
    assert lsp.client.shown_documents[-1].uri == answer["report"]
