"""Changes git makes outside the editor: the poller, and a server that notices a commit and a
checkout with no help from the editor."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers import commit, git, make_repo
from lsp_session import APP, Session

from lsp_server.gitwatch import watch

HELPER = 3  # def helper, 0-based line in app/core.py
AGAIN = APP + "\n\ndef again():\n    return helper(3)\n"
DATE = "2026-03-09T09:00:00+00:00"


@pytest.mark.asyncio
async def test_the_poller_calls_back_when_git_moves(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    changed = asyncio.Event()
    poller = asyncio.ensure_future(watch(root, changed.set, every=0.01))
    try:
        await asyncio.sleep(0)  # let it take its first fingerprint
        assert not changed.is_set()
        commit(root, {"a.py": "x = 2\n"}, "two", date=DATE)
        await asyncio.wait_for(changed.wait(), 10)
    finally:
        poller.cancel()


@pytest.mark.asyncio
async def test_a_commit_and_a_checkout_outside_the_editor(lsp: Session) -> None:
    await lsp.refreshed(
        lambda: commit(lsp.root, {"app/core.py": AGAIN}, "again", date=DATE),
        "the lens refresh after a commit",
    )
    lenses = await lsp.lenses("app/core.py")
    assert lenses[HELPER].startswith("2 callers · 2 tests · changed ")
    assert lenses[17].startswith("0 callers · 0 tests · changed ")
    card = await lsp.hover("app/core.py", HELPER, 5)
    assert card is not None and "**2 callers**: [`main`]" in card and "[`again`]" in card

    await lsp.refreshed(
        lambda: git(lsp.root, "checkout", "-q", "HEAD~1"), "the lens refresh after a checkout"
    )
    assert (await lsp.lenses("app/core.py"))[HELPER].startswith("1 caller · 2 tests · changed ")


@pytest.mark.asyncio
async def test_committing_a_saved_file_changes_only_its_history(lsp: Session) -> None:
    await lsp.refreshed(lambda: lsp.save("app/core.py", AGAIN), "the lens refresh after a save")
    assert (await lsp.lenses("app/core.py"))[17] == "0 callers · 0 tests · uncommitted changes"
    await lsp.refreshed(lambda: commit(lsp.root, {}, "again", date=DATE), "the lens refresh after a commit")
    assert (await lsp.lenses("app/core.py"))[17].startswith("0 callers · 0 tests · changed ")
