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

from collections.abc import Callable

from mnemo_core.index.languages import cpp, go, ruby, rust
from mnemo_core.model import Symbol

Namer = Callable[[Symbol], str]
NAMERS: dict[str, Namer] = {
    "go": go.display_name,
    "ruby": ruby.display_name,
    "rust": rust.display_name,
    "cpp": cpp.display_name,
}


def display_name(symbol: Symbol) -> str:
    """The symbol's name in its language's convention (the indexed name where it has none)."""
    namer = NAMERS.get(symbol.language)
    return namer(symbol) if namer is not None and symbol.kind != "module" else symbol.name
