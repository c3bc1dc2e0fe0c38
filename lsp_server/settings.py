"""Settings from the client: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

Both carry the section ``mnemo`` (``{"mnemo": {"budget": 8000}}``; initialization options may also
be the section itself): ``budget`` (the tokens of a context answer when a command names none),
``depth`` (the caller hops of a change's and a symbol's blast radius), ``lens`` and ``hover`` (on or
off). A change that carries no settings (clients that expect the server to pull them) is followed
by a ``workspace/configuration`` request when the client supports it. A bad value or an unknown
name is one warning for the user and the default in its place; a change never stops the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from mnemo_core.pipelines import DEFAULT_BUDGET

if TYPE_CHECKING:
    from lsp_server.server import MnemoServer

SECTION = "mnemo"
MAX_DEPTH = 10  # beyond ten hops a blast radius is most of the graph, and slow to walk


@dataclass(frozen=True)
class Settings:
    """What the client configured (defaults where it said nothing usable)."""

    budget: int = DEFAULT_BUDGET
    depth: int | None = None  # None: each answer's own default (a change 3 hops, files 2)
    lens: bool = True
    hover: bool = True


def _positive(value: Any, most: int | None = None) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value > 0
        and (most is None or value <= most)
    )


CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {  # each setting's test, what it must be
    "budget": (_positive, "a positive integer (tokens)"),
    "depth": (lambda v: v is None or _positive(v, MAX_DEPTH), f"an integer from 1 to {MAX_DEPTH}"),
    "lens": (lambda v: isinstance(v, bool), "true or false"),
    "hover": (lambda v: isinstance(v, bool), "true or false"),
}


def parse(given: Any) -> tuple[Settings, list[str]]:
    """The settings in a client's JSON (the ``mnemo`` section, or the object itself when it has
    none), and one warning per value left at its default because it was unusable."""
    if isinstance(given, dict) and SECTION in given:
        given = given[SECTION]
    if given is None:
        return Settings(), []
    if not isinstance(given, dict):
        return Settings(), [f"mnemo settings must be an object, got {given!r}; using the defaults"]
    known = {f.name for f in fields(Settings)}
    warnings = [f"unknown mnemo setting {name!r} ignored" for name in sorted(set(given) - known)]
    chosen: dict[str, Any] = {}
    for name in sorted(known & set(given)):
        check, expected = CHECKS[name]
        value = given[name]
        if check(value):
            chosen[name] = value
        else:
            default = getattr(Settings(), name)
            warnings.append(f"mnemo.{name} must be {expected}, got {value!r}; using {default!r}")
    return replace(Settings(), **chosen), warnings


def apply(ls: MnemoServer, given: Any) -> None:
    """Take the client's settings; warn about the unusable ones; refresh lenses when they changed."""
    settings, warnings = parse(given)
    for warning in warnings:
        ls.tell(warning, types.MessageType.Warning)
    before, ls.settings = ls.settings, settings
    if before.lens != settings.lens and ls.supports("workspace", "code_lens", "refresh_support"):
        ls.workspace_code_lens_refresh(None)
    ls.log(f"settings: {settings}")  # last: a client that saw it has seen the lens refresh too


def setup(server: MnemoServer) -> None:
    """Read the settings in ``initialize`` and on every ``workspace/didChangeConfiguration``."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: MnemoServer, params: types.InitializeParams) -> None:
        ls.loop = ls.loop or asyncio.get_running_loop()  # warnings may be sent during ``initialize``
        apply(ls, params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: MnemoServer, params: types.DidChangeConfigurationParams) -> None:
        given = params.settings
        if isinstance(given, dict) and SECTION in given:
            apply(ls, given)
        elif ls.supports("workspace", "configuration"):
            await pull(ls)

    async def pull(ls: MnemoServer) -> None:
        request = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        try:
            (section,) = await ls.workspace_configuration_async(request)
        except Exception as exc:
            ls.log(f"the client did not send its settings: {exc}", types.MessageType.Warning)
            return
        apply(ls, section)
