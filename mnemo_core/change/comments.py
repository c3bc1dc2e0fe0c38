"""Whether a definition's change touches only its comments, docstrings or layout: no behaviour changed.

A pull request that renames a repository rewrites URLs in comments and docstrings across the code;
each function it touches is "modified", but nothing that calls or tests it can tell. Python is
compared by its syntax tree without docstrings (comments never reach it) and with its annotations
in one spelling (``Optional[int]`` as ``int | None``, ``annotations``); other languages line by
line without blank and comment lines, which keeps a trailing comment's edit a code change (a
conservative answer, never a wrong "no behaviour changed").
"""

from __future__ import annotations

import ast
from functools import lru_cache

from mnemo_core.change.annotations import respelled
from mnemo_core.model import RawSymbol

COMMENT_PREFIXES = ("#", "//", "/*", "*", "--")  # a line comment, or a block comment's lines
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def comments_only(language: str, old: RawSymbol, new: RawSymbol, texts: tuple[bytes, bytes]) -> bool:
    """Whether ``old`` (in ``texts[0]``) and ``new`` (in ``texts[1]``) differ in comments (the
    ones above them too: the diff touched them through those), docstrings and layout only."""
    before, after = _lines(texts[0], old), _lines(texts[1], new)
    if before == after:
        return True  # the change touched it through the comment above it, its documentation
    if language == "python":
        code = _python_code(before)
        return code is not None and code == _python_code(after)
    return _code_lines(before) == _code_lines(after)


def _lines(text: bytes, symbol: RawSymbol) -> list[str]:
    return list(text_lines(text)[symbol.start_line - 1 : symbol.end_line])


SPLIT_CACHED = 4  # the texts of the file pair whose definitions are compared now (and the last pair)


@lru_cache(maxsize=SPLIT_CACHED)
def text_lines(text: bytes) -> tuple[str, ...]:
    """A file's lines, decoded and split once for all its modified definitions and its module's
    own lines (a file of dozens was decoded and split again for each); a tuple, so that no caller
    can change the shared lines."""
    return tuple(text.decode("utf-8", "replace").splitlines())


def _python_code(lines: list[str]) -> str | None:
    """The definition's syntax tree, docstrings left out and annotations in one spelling (None
    where the span does not parse)."""
    source = "\n".join(lines)
    if lines and lines[0][:1].isspace():
        source = "if 1:\n" + source  # a method: an indented block parses inside a statement
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, DOCUMENTED) and node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(respelled(tree))


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _code_lines(lines: list[str]) -> list[str]:
    return [s for line in lines if (s := line.strip()) and not s.startswith(COMMENT_PREFIXES)]
