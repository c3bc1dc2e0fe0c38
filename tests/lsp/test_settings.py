"""Settings from the client: initialization options, configuration changes (pushed or pulled),
and what a bad value does (a warning and the default, never a dead server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsp_session import Session, start, start_client, wait_for_index, wait_until
from lsprotocol import types

from lsp_server.settings import Settings, parse

HELPER = 3  # def helper, 0-based line in app/core.py


def test_settings_from_the_section_or_the_object_itself() -> None:
    given = {"budget": 500, "depth": 2, "lens": False, "hover": True}
    assert parse({"mnemo": given}) == (Settings(500, 2, False, True), [])
    assert parse(given) == (Settings(500, 2, False, True), [])
    assert parse(None) == (Settings(), [])
    assert parse({}) == (Settings(), [])


@pytest.mark.parametrize(
    ("given", "warning"),
    [
        (
            {"budget": 0},
            "mnemo.budget must be a positive integer (tokens), got 0; using the project's (else 8000)",
        ),
        (
            {"budget": "lots"},
            "mnemo.budget must be a positive integer (tokens), got 'lots'; using the project's (else 8000)",
        ),
        ({"depth": 11}, "mnemo.depth must be an integer from 1 to 10, got 11; using None"),
        ({"depth": True}, "mnemo.depth must be an integer from 1 to 10, got True; using None"),
        ({"lens": "off"}, "mnemo.lens must be true or false, got 'off'; using True"),
        ({"hover": 0}, "mnemo.hover must be true or false, got 0; using True"),
        ({"colour": "blue"}, "unknown mnemo setting 'colour' ignored"),
        ({"mnemo": [1]}, "mnemo settings must be an object, got [1]; using the defaults"),
        ("budget=5", "mnemo settings must be an object, got 'budget=5'; using the defaults"),
    ],
)
def test_a_bad_value_is_a_warning_and_the_default(given: Any, warning: str) -> None:
    settings, warnings = parse(given)
    assert warnings == [warning]
    assert settings == Settings() or settings == Settings(budget=8000)


def _settings_logged(session: Session) -> int:
    return sum(1 for m in session.client.log_messages if m.message.startswith("settings: "))


async def configure(session: Session, settings: Any) -> None:
    """Send ``didChangeConfiguration`` and wait until the server has taken it."""
    before = _settings_logged(session)
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    await wait_until(session.client, lambda: _settings_logged(session) > before, "the settings to be taken")


@pytest.mark.asyncio
async def test_settings_at_start_and_when_they_change(repo: Path, tmp_path: Path) -> None:
    client = await start_client(tmp_path)
    try:
        options = {"mnemo": {"lens": False, "budget": "lots", "colour": "blue"}}
        session = await start(client, repo, options=options)
        await wait_for_index(client)
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert warnings == [
            "unknown mnemo setting 'colour' ignored",
            "mnemo.budget must be a positive integer (tokens), got 'lots'; using the project's (else 8000)",
        ]
        assert await session.lenses("app/core.py") == {}
        assert (await session.execute("mnemo.contextForTask", {"task": "helper"}))["budget_tokens"] == 8000

        refreshes = client.events.lens_refreshes  # type: ignore[attr-defined]
        await configure(session, {"mnemo": {"hover": False, "budget": 300, "depth": 1}})
        assert client.events.lens_refreshes == refreshes + 1  # type: ignore[attr-defined]
        assert (await session.lenses("app/core.py"))[HELPER].startswith("1 caller")
        assert await session.hover("app/core.py", HELPER, 5) is None
        answer = await session.execute("mnemo.contextForTask", {"task": "helper"})
        assert answer["budget_tokens"] == 300
        assert (await session.execute("mnemo.contextForTask", {"task": "helper", "budget": 900}))[
            "budget_tokens"
        ] == 900
        position = {"line": HELPER, "character": 5}
        roomy = {"uri": session.uri("app/core.py"), "position": position, "budget": 4000}  # all callers fit
        blast = await session.execute("mnemo.blastRadius", roomy)
        assert {s["name"] for s in blast["impact"]["callers"]} == {"main"}  # one hop: not Box.open

        client.set_configuration({"mnemo": {"hover": True}})  # pulled: the change carries no settings
        await configure(session, None)
        card = await session.hover("app/core.py", HELPER, 5)
        assert card is not None and card.startswith("**function** `helper`")
        blast = await session.execute(
            "mnemo.blastRadius", {"uri": session.uri("app/core.py"), "position": position}
        )
        assert {s["name"] for s in blast["impact"]["callers"]} == {"main", "Box.open"}
        assert (await session.execute("mnemo.contextForTask", {"task": "helper"}))["budget_tokens"] == 8000
        assert len(client.messages) == 2  # no warnings for good settings
    finally:
        await client.shutdown_session()
        await client.stop()


@pytest.mark.asyncio
async def test_a_budget_the_client_leaves_out_is_the_projects(repo: Path, tmp_path: Path) -> None:
    (repo / "mnemo.toml").write_text("budget = 1200\n", encoding="utf-8")
    client = await start_client(tmp_path)
    try:
        session = await start(client, repo)
        await wait_for_index(client)
        assert (await session.execute("mnemo.contextForTask", {"task": "helper"}))["budget_tokens"] == 1200
        await configure(session, {"mnemo": {"budget": 300}})
        assert (await session.execute("mnemo.contextForTask", {"task": "helper"}))["budget_tokens"] == 300
    finally:
        await client.shutdown_session()
        await client.stop()
