"""What resolving a reference can find, and how sure each way of finding it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from mnemo_core.index.languages.base import Hooks
from mnemo_core.model import (
    RESOLUTIONS,
    Resolution,
)

CONFIDENCE: dict[Resolution, float] = {
    "structure": 1.0,  # the symbol tree itself
    "local": 1.0,  # defined in the same file and scope
    "self": 0.95,  # a method of the enclosing class or its bases
    "import": 0.95,  # followed through an import statement
    "fixture": 0.9,  # a pytest fixture in scope
    "package": 0.85,  # another file of the same package
    "derived": 0.9,  # overrides and tests, derived from other edges
    "typed": 0.85,  # a method of the declared or constructed type of the receiver
    "callback": 0.6,  # reached through a base class outside the repository: likely, not certain
    "name": 0.5,  # a unique name match anywhere in the repository: plausible, not proven
    # dynamic dispatch: the link is in the code, whether it is taken depends on data at run time
    "registry": 0.6,  # stored in (or read from) a registry the reader looks up by a key
    "decorator": 0.6,  # a decorator in the repository registers the function it decorates
    "subclass": 0.6,  # a base's ``__init_subclass__`` registers the subclass
    "dispatch": 0.7,  # ``getattr(self, "visit_" + ...)`` may land in any method with the prefix
    "value": 0.8,  # a function handed to code that calls it (``sorted(key=f)``)
}
GETATTR = "__getattr__"  # runs for an attribute a module (PEP 562) or an instance does not have
Unresolved = Literal["", "external", "parameter"]  # nothing found: keep looking, outside, a local
Target = tuple[tuple[int, ...], Resolution, float]  # target ids, how they were found, confidence
RefRow = Sequence[Any]  # (kind, name, receiver, scope, line), as RawRef or as decoded JSON


@dataclass
class Lookup:
    ids: list[int]
    how: Resolution | Unresolved
    final: bool = True  # False: nothing found yet, keep looking
    has_classes: bool = False  # some target is a class: its constructor is called too

    @property
    def found(self) -> bool:
        return bool(self.ids)


MISS = Lookup([], "", final=False)
VariableTypes = Mapping[str, Mapping[str, tuple[str, str]]]  # scope -> variable -> (ref kind, type text)


@dataclass(frozen=True, slots=True)
class FileScope:
    """The file whose references are being resolved, with the variable types its scopes declare.
    A file reached from it (the callee of a returned call) has none: its variables are not loaded."""

    file_id: int
    hooks: Hooks
    types: VariableTypes
    declared: frozenset[str]  # every variable with a declared type, in any scope

    @classmethod
    def of(cls, file_id: int, hooks: Hooks, types: VariableTypes | None = None) -> FileScope:
        """A file and its variable types (none given: unknown)."""
        types = types or {}
        return cls(file_id, hooks, types, frozenset(v for names in types.values() for v in names))


_EDGE_RESOLUTIONS: frozenset[str] = frozenset(RESOLUTIONS)
EXTERNAL = Lookup([], "external")
PARAMETER = Lookup([], "parameter", final=False)  # a local of unknown type: its methods may still be guessed


def is_edge(how: Resolution | Unresolved) -> TypeGuard[Resolution]:
    return how in _EDGE_RESOLUTIONS


def is_dotted_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))
