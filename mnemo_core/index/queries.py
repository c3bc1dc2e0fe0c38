"""The compiled queries extraction runs, and what each of their patterns finds.

A language's query file holds patterns of three roles, told by the capture that carries them:
definitions (``@definition.<kind>``), references (``@reference.<kind>``) and imports (``@import``).
``extract`` reads every pattern's role from this table rather than from the capture names of each
match. Its lighter pass (``symbols_only``, what a diff reads) runs a query of the definition and
import patterns alone (and in a test file the call patterns): that query is compiled from those
patterns' text only, split from the file without compiling the whole (tree-sitter's compilation of
Python's full query costs about ten times that of the part, a noticeable share of a short
``mnemo pr``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from mnemo_core.index.languages.base import CONTAINER_ONLY
from mnemo_core.model import REF_KINDS, SYMBOL_KINDS

if TYPE_CHECKING:
    from tree_sitter import Query

    from mnemo_core.index.languages import LanguageSpec

_ROLE = re.compile(rb"@(definition\.\w+|reference\.\w+|import)\b")
_ROLE_NAMES = {"definition": "def", "reference": "ref", "import": "import"}
_DEFINITION_KINDS = frozenset({*SYMBOL_KINDS, CONTAINER_ONLY})
TEST_ONLY = ".test_"  # in the capture of a pattern run on test files only (``@reference.test_read``)
SYMBOL_REF_KINDS = frozenset({"call"})  # the references a test file's symbols are classified by
_OPENERS, _CLOSERS = "([", ")]"


class Role(NamedTuple):
    """What one pattern finds: ``role`` (def, ref, import or ""), the capture that carries it
    (``reference.test_read``) and the kind it names (``read``; "" for an import)."""

    role: str
    capture: str
    kind: str


_NONE = Role("", "", "")  # a pattern whose matches extraction passes over
_ROLES: dict[tuple[str, bool], dict[int, Role]] = {}
_SYMBOLS_QUERIES: dict[tuple[str, bool], tuple[Query, dict[int, Role]]] = {}


def roles(spec: LanguageSpec, in_test_file: bool = True) -> dict[int, Role]:
    """For each pattern of ``spec.query``: its role. Outside a test file the patterns run on test
    files only (``@reference.test_*``) have none, so their matches are passed over: one compiled
    query serves every file (a second one, with those patterns disabled, cost each parse worker
    another 0.2 s to compile Python's). A kind of definition or reference outside the vocabulary
    (``model.SymbolKind``, ``RefKind``) is an error in the query file."""
    key = (spec.name, in_test_file)
    found = _ROLES.get(key)
    if found is None:
        every = _ROLES.get((spec.name, True)) or _roles_of(spec.name, spec.query, spec.query_text)
        _ROLES[(spec.name, True)] = every
        outside = {p: r if TEST_ONLY not in r.capture else _NONE for p, r in every.items()}
        _ROLES[(spec.name, False)] = outside
        found = every if in_test_file else outside
    return found


def symbols_query(spec: LanguageSpec, in_test_file: bool) -> tuple[Query, dict[int, Role]]:
    """The query of ``extract(symbols_only=True)`` and its patterns' roles: the patterns of
    definitions and imports, and in a test file those of calls."""
    key = (spec.name, in_test_file)
    found = _SYMBOLS_QUERIES.get(key)
    if found is None:
        from tree_sitter import Query  # the parser's stack loads when a file is parsed

        wanted = [p for p in split_patterns(spec.query_text) if _kept_for_symbols(p, in_test_file)]
        text = "\n".join(wanted)
        query = Query(spec.ts_language, text)
        found = _SYMBOLS_QUERIES[key] = (query, _roles_of(spec.name, query, text))
    return found


def split_patterns(text: str) -> list[str]:
    """A query file's top-level patterns, in order, each with the captures that follow it and
    without comments: the same split as tree-sitter's pattern numbers."""
    code = _without_comments(text)
    patterns: list[str] = []
    depth, start, i = 0, -1, 0
    while i < len(code):
        char = code[i]
        if char == '"':
            i = _string_end(code, i)
        elif char in _OPENERS:
            if depth == 0:
                if start >= 0:
                    patterns.append(code[start:i].strip())
                start = i
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
        i += 1
    if start >= 0:
        patterns.append(code[start:].strip())
    return patterns


def _without_comments(text: str) -> str:
    """The query text with its comments (``;`` to the end of a line, outside strings) blanked."""
    kept: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == ";":
            end = text.find("\n", i)
            i = len(text) if end == -1 else end
            continue
        if char == '"':
            end = _string_end(text, i)
            kept.append(text[i : end + 1])
            i = end + 1
            continue
        kept.append(char)
        i += 1
    return "".join(kept)


def _string_end(text: str, opening: int) -> int:
    """The position of the quote closing the string opened at ``opening`` (escapes skipped)."""
    i = opening + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i


def _kept_for_symbols(pattern: str, in_test_file: bool) -> bool:
    found = _ROLE.search(pattern.encode())
    capture = found.group(1).decode() if found else ""
    role = _ROLE_NAMES.get(capture.split(".")[0], "")
    kind = capture.split(".", 1)[-1].removeprefix("test_")
    return role in ("def", "import") or (role == "ref" and in_test_file and kind in SYMBOL_REF_KINDS)


def _roles_of(language: str, query: Query, text: str) -> dict[int, Role]:
    encoded = text.encode()
    found: dict[int, Role] = {}
    for pattern in range(query.pattern_count):
        start, end = query.start_byte_for_pattern(pattern), query.end_byte_for_pattern(pattern)
        match = _ROLE.search(encoded, start, end)
        capture = match.group(1).decode() if match else ""
        role = _ROLE_NAMES.get(capture.split(".")[0], "")
        kind = capture.split(".", 1)[-1].removeprefix("test_") if role != "import" else ""
        if (role == "def" and kind not in _DEFINITION_KINDS) or (role == "ref" and kind not in REF_KINDS):
            raise ValueError(f"{language}.scm: {capture} is not in mnemo's vocabulary")
        found[pattern] = Role(role, capture, kind)
    return found
