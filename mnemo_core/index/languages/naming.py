"""Names as each language's developers write them, for display only.

The index keeps one dotted qualified name per symbol (``Class.method``, ``outer.inner``): keys,
lookups, memory and ids use it, so a change of display never forces a re-index. What a reader sees
in the text, Markdown and JSON answers (``display_name``) follows the language's own convention:

- Go: ``pkg.Type.Method``, the package being the file's directory (a file at the repository's
  root has no directory to name it by and keeps ``Type.Method``);
- Ruby: ``Module::Class#method`` for an instance method, ``Module::Class.method`` for ``def self.``;
- Rust and C++: ``Type::method``, ``module::function``;
- every other language: the dotted name as indexed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

from mnemo_core.model import Symbol

Namer = Callable[[Symbol], str]
# the languages with a convention of their own, and the module (of this package) whose
# ``display_name`` follows it: imported when an answer first shows one of their symbols
NAMER_MODULES = {"go": "go", "ruby": "ruby", "rust": "rust", "cpp": "cpp"}


def display_name(symbol: Symbol) -> str:
    """The symbol's name in its language's convention (the indexed name where it has none)."""
    if symbol.language not in NAMER_MODULES or symbol.kind == "module":
        return symbol.name
    return namer(symbol.language)(symbol)


@cache
def namer(language: str) -> Namer:
    """The ``display_name`` of a language that has a convention of its own."""
    module = importlib.import_module(f"{__package__}.{NAMER_MODULES[language]}")
    named: Namer = module.display_name
    return named
