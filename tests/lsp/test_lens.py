"""Code lenses, and how saves and files changed outside the editor keep them fresh."""

from __future__ import annotations

import pytest
from lsp_session import APP, Session
from lsprotocol import types

pytestmark = pytest.mark.asyncio

HELPER, MAIN, BOX, OPEN = 3, 8, 12, 13  # 0-based definition lines in app/core.py
CALLER = "from app.core import helper\n\n\ndef triple(x):\n    return helper(x) + x\n"


def watched(session: Session, *changes: tuple[str, types.FileChangeType]) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(path), type=kind) for path, kind in changes]
        )
    )


async def test_a_lens_above_every_function_method_and_class(lsp: Session) -> None:
    lenses = await lsp.lenses("app/core.py")
    assert set(lenses) == {HELPER, MAIN, BOX, OPEN}
    assert lenses[HELPER].startswith("1 caller · 2 tests · changed ")
    assert lenses[MAIN].startswith("2 callers · 2 tests · changed ")
    assert lenses[OPEN].startswith("1 caller · 1 test · changed ")


async def test_the_lens_command_shows_the_blast_radius(lsp: Session) -> None:
    found = await lsp.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=lsp.uri("app/core.py")))
    )
    command = next(lens.command for lens in found or [] if lens.range.start.line == HELPER and lens.command)
    answer = await lsp.execute(command.command, *(command.arguments or []))
    assert answer["query"] == "app/core.py:helper"
    assert {s["name"] for s in answer["impact"]["callers"]} == {"main", "Box.open"}
    assert lsp.client.shown_documents[-1].uri == answer["report"]


async def test_saving_an_edit_updates_the_lenses(lsp: Session) -> None:
    edited = APP + "\n\ndef again():\n    return helper(3)\n"
    await lsp.refreshed(lambda: lsp.save("app/core.py", edited), "the lens refresh after a save")
    lenses = await lsp.lenses("app/core.py")
    assert lenses[HELPER].startswith("2 callers · 2 tests · ")
    assert lenses[17] == "0 callers · 0 tests · uncommitted changes"


async def test_a_decorated_functions_lens_stands_on_its_def_line(lsp: Session) -> None:
    edited = APP + "\n\ndef deco(f):\n    return f\n\n\n@deco\ndef decorated():\n    return helper(3)\n"
    await lsp.refreshed(lambda: lsp.save("app/core.py", edited), "the lens refresh after a save")
    lenses = await lsp.lenses("app/core.py")
    assert 22 in lenses and 21 not in lenses  # "def decorated", not "@deco"


async def test_files_created_renamed_and_deleted_outside_the_editor(lsp: Session) -> None:
    registered = lsp.client.events.registrations  # type: ignore[attr-defined]
    assert [r.method for r in registered] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = {w["globPattern"] for w in registered[0].register_options["watchers"]}  # type: ignore[index]
    assert {"**/*.py", "**/*.ts", "**/*.go"} <= globs and "**/*" not in globs  # source files only

    def create() -> None:
        (lsp.root / "app/extra.py").write_text(CALLER)
        watched(lsp, ("app/extra.py", types.FileChangeType.Created))

    await lsp.refreshed(create, "the lens refresh after a new file")
    assert (await lsp.lenses("app/core.py"))[HELPER].startswith("2 callers")

    def rename() -> None:
        (lsp.root / "app/extra.py").rename(lsp.root / "app/renamed.py")
        watched(
            lsp,
            ("app/extra.py", types.FileChangeType.Deleted),
            ("app/renamed.py", types.FileChangeType.Created),
        )

    await lsp.refreshed(rename, "the lens refresh after a rename")
    assert (await lsp.lenses("app/renamed.py")) == {3: "0 callers · 0 tests · uncommitted changes"}
    assert (await lsp.lenses("app/core.py"))[HELPER].startswith("2 callers")

    def delete() -> None:
        (lsp.root / "app/renamed.py").unlink()
        watched(lsp, ("app/renamed.py", types.FileChangeType.Deleted))

    await lsp.refreshed(delete, "the lens refresh after a deletion")
    assert (await lsp.lenses("app/core.py"))[HELPER].startswith("1 caller ")
    assert await lsp.lenses("app/renamed.py") == {}


async def test_a_document_with_syntax_errors(lsp: Session) -> None:
    broken = APP + "\n\ndef broken(:\n    return helper(\n\n\ndef fine():\n    return main()\n"
    await lsp.refreshed(lambda: lsp.save("app/core.py", broken), "the lens refresh after saving broken code")
    lenses = await lsp.lenses("app/core.py")
    assert lenses[HELPER].startswith("1 caller") and lenses[MAIN].startswith("3 callers")
    card = await lsp.hover("app/core.py", 8, 5)
    assert card is not None and "**3 callers**" in card
    answer = await lsp.execute("mnemo.contextForTask", {"task": "fine main"})
    assert answer["symbols"]
