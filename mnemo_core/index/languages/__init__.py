"""The language registry, discovered from the query files in this package.

Each ``<name>.scm`` declares its file extensions (and, when it differs from the name, its
tree-sitter-language-pack grammar) in header comments::

    ; extensions: .py .pyi
    ; grammar: python

An ``; include: _ecmascript _jsx`` header prepends shared query fragments: ``_<name>.scm`` files,
which are not languages themselves (JavaScript, TypeScript and TSX share most patterns this way).

A language whose imports, docstrings or tests need more than a query adds ``<name>.py`` with a
``HOOKS`` object (a :class:`~mnemo_core.index.languages.base.Hooks` subclass). Adding a language
is adding files.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from mnemo_core.index.languages.base import Hooks

if TYPE_CHECKING:
    from tree_sitter import Language as TSLanguage
    from tree_sitter import Parser, Query

_HEADER = re.compile(r"^;\s*(extensions|grammar|include):\s*(.+)$", re.MULTILINE)
_FRAGMENT_PREFIX = "_"  # ``_name.scm`` is a fragment other query files include, not a language


@dataclass(frozen=True)
class LanguageSpec:
    """A language mnemo can index: its grammar, its query and its hooks."""

    name: str
    grammar: str
    extensions: tuple[str, ...]
    query_text: str

    @functools.cached_property
    def hooks(self) -> Hooks:
        """The language's hooks, imported on first use (a warm query that parses nothing never needs them)."""
        return _load_hooks(self.name)

    @functools.cached_property
    def ts_language(self) -> TSLanguage:
        """The compiled tree-sitter grammar (loaded from the wheel, never downloaded)."""
        # imported here: loaded when a file is parsed, not on a warm query
        from tree_sitter_language_pack import get_language

        return get_language(self.grammar)  # type: ignore[arg-type]

    @functools.cached_property
    def parser(self) -> Parser:
        """A parser for this grammar."""
        from tree_sitter_language_pack import get_parser

        return get_parser(self.grammar)  # type: ignore[arg-type]

    @functools.cached_property
    def query(self) -> Query:
        """The compiled definitions/references query."""
        from tree_sitter import Query

        return Query(self.ts_language, self.query_text)


def _load_hooks(name: str) -> Hooks:
    module_name = f"{__name__}.{name}"
    if importlib.util.find_spec(module_name) is None:
        return Hooks()
    hooks: Hooks = importlib.import_module(module_name).HOOKS
    return hooks


@functools.cache
def registry() -> dict[str, LanguageSpec]:
    """All languages, by name."""
    package = resources.files(__name__)
    specs: dict[str, LanguageSpec] = {}
    for entry in sorted(package.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".scm") or entry.name.startswith(_FRAGMENT_PREFIX):
            continue
        name = entry.name[: -len(".scm")]
        text = entry.read_text(encoding="utf-8")
        header = {key: value.strip() for key, value in _HEADER.findall(text)}
        included = [
            package.joinpath(f"{part}.scm").read_text(encoding="utf-8")
            for part in header.get("include", "").split()
        ]
        specs[name] = LanguageSpec(
            name=name,
            grammar=header.get("grammar", name),
            extensions=tuple(header.get("extensions", "").split()),
            query_text="\n".join([*included, text]),
        )
    return specs


@functools.cache
def _by_extension() -> dict[str, str]:
    return {ext: spec.name for spec in registry().values() for ext in spec.extensions}


def source_extensions() -> tuple[str, ...]:
    """Every file extension mnemo indexes (``.py``, ``.d.ts``, ...)."""
    return tuple(sorted(_by_extension()))


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a file, judged by its extension; None when mnemo does not index it."""
    base = path.rsplit("/", 1)[-1]
    table = _by_extension()
    start = base.find(".", 1)
    while start != -1:  # longest suffix first: ".d.ts" before ".ts"
        name = table.get(base[start:])
        if name:
            return registry()[name]
        start = base.find(".", start + 1)
    return None
