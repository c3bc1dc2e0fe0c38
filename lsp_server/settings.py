"""What the client configured: the ``mnemo`` settings and how its JSON is read.

The section ``mnemo`` (``{"mnemo": {"budget": 8000}}``; initialization options may also be the
section itself) holds ``budget`` (the tokens of a context answer when a command names none),
``depth`` (the caller hops of a change's and a symbol's blast radius), ``lens`` and ``hover`` (on
or off), and ``memory`` (the session and task memory: what is opened, hovered and edited ranks the
next task's answer; false: nothing remembered). A budget or depth the client leaves out is the
project's (``[tool.mnemo]`` or ``mnemo.toml``), else each answer's own default. A bad value or an
unknown name is one warning and the default in its place. ``configuration`` takes the settings
from the client's messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from mnemo_core.engine import DEFAULT_BUDGET

SECTION = "mnemo"
MAX_DEPTH = 10  # beyond ten hops a blast radius is most of the graph, and slow to walk


@dataclass(frozen=True)
class Settings:
    """What the client configured (None and the defaults where it said nothing usable)."""

    budget: int | None = None  # None: the project's budget, else 8000
    depth: int | None = None  # None: each answer's own default (a change 3 hops, files 2)
    lens: bool = True
    hover: bool = True
    memory: bool | None = None  # None: the project's ``memory`` setting (on unless it says false)


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
    "memory": (lambda v: isinstance(v, bool), "true or false"),
}
FALLBACKS = {
    "budget": f"the project's (else {DEFAULT_BUDGET})",
    "memory": "the project's (else on)",
}  # what a None default stands for


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
            default = FALLBACKS.get(name, repr(getattr(Settings(), name)))
            warnings.append(f"mnemo.{name} must be {expected}, got {value!r}; using {default}")
    return replace(Settings(), **chosen), warnings
