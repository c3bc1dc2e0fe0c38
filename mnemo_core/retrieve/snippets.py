"""The text shown for a symbol: its header (signature and docstring) or its whole source.

A class's "whole source" is an outline: its own header plus its members' signatures, since its
methods are candidates of their own.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mnemo_core.fsread import read_inside
from mnemo_core.index.files import MAX_FILE_BYTES
from mnemo_core.model import CLASS_KINDS, Symbol
from mnemo_core.tokens import estimate_tokens

DOCSTRING_PREVIEW_LINES = 12  # a header shows the start of a long docstring, not all of it


class SourceCache:
    """Reads each file once per answer, leniently decoded."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        """The file's lines (empty when it cannot be read any more)."""
        if path not in self._lines:
            try:  # only what the index may read: a symlink out of the repository shows nothing
                text = read_inside(self.root, path, MAX_FILE_BYTES).data.decode("utf-8", "replace")
            except OSError:
                text = ""
            self._lines[path] = text.splitlines()
        return self._lines[path]


def header(symbol: Symbol) -> str:
    """Signature plus the start of the docstring."""
    doc = "\n".join(symbol.docstring.splitlines()[:DOCSTRING_PREVIEW_LINES])
    return f"{symbol.signature or symbol.name}\n{doc}".rstrip() if doc else (symbol.signature or symbol.name)


def full_text(symbol: Symbol, source: SourceCache, members: Iterable[Symbol] = ()) -> str:
    """The symbol's source lines, or a class outline (header and member signatures), or a module's
    own code: its lines outside its top-level definitions (``members``), imports and constants."""
    if symbol.kind in CLASS_KINDS:
        outline = [header(symbol)] + [f"    {m.signature or m.name}" for m in members]
        return "\n".join(outline)
    if symbol.kind == "module":
        return _module_level(source.lines(symbol.path), members) or header(symbol)
    lines = source.lines(symbol.path)[symbol.start_line - 1 : symbol.end_line]
    return "\n".join(lines) if lines else header(symbol)


def _module_level(lines: list[str], definitions: Iterable[Symbol]) -> str:
    """The lines no definition covers, each run of blank lines (and the definitions between) as one."""
    covered = {n for d in definitions for n in range(d.start_line, d.end_line + 1)}
    kept: list[str] = []
    for number, line in enumerate(lines, 1):
        if number in covered or (not line.strip() and (not kept or not kept[-1].strip())):
            continue
        kept.append(line)
    return "\n".join(kept).strip()


def token_costs(symbol: Symbol, source: SourceCache, members: Iterable[Symbol] = ()) -> tuple[int, int, str]:
    """(header tokens, full tokens, full text) of a symbol."""
    text = full_text(symbol, source, members)
    head = estimate_tokens(header(symbol))
    return head, max(head, estimate_tokens(text)), text
