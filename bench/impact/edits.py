"""The benchmark's change: one harmless statement inserted inside a function's body (pure).

The inserted line is ``pass`` at the body's indentation, placed just before the first statement
after the docstring (after the docstring when there is nothing else), so the diff is one added
line that belongs to the function itself and not to a nested one - what a developer's one-line
fix inside a function looks like to ``git diff``. A first statement that is a decorated definition
starts at its first decorator. ``pass`` rather than an assignment because an
assignment would make its name local to the whole function (``_`` is gettext in click).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

INSERTED = "pass  # mnemo impact benchmark"


@dataclass(frozen=True)
class Edit:
    """A function's file before and after the edit, and the 1-based number of the inserted line."""

    before: str
    after: str
    line: int


def _function_at(tree: ast.AST, def_line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == def_line:
            return node
    return None


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _first_line(node: ast.stmt) -> int:
    """The line a statement starts on: a decorated definition's first decorator."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def insert_statement(text: str, def_line: int) -> Edit | None:
    """``text`` with ``pass`` inserted in the function whose ``def`` is on ``def_line``; None when
    the function cannot be edited that way (not found, or its body shares the ``def`` line)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    function = _function_at(tree, def_line)
    if function is None:
        return None
    body = function.body
    if body[0].lineno <= function.lineno:
        return None  # ``def f(): return 1``
    lines = text.splitlines(keepends=True)
    if len(body) > 1 and _is_docstring(body[0]):
        anchor, insert_at = body[1], _first_line(body[1]) - 1  # the first statement after the docstring
    elif _is_docstring(body[0]):
        anchor, insert_at = body[0], body[0].end_lineno or body[0].lineno  # after a lone docstring
    else:
        anchor, insert_at = body[0], _first_line(body[0]) - 1
    indent = lines[anchor.lineno - 1][: anchor.col_offset]
    if indent.strip() or anchor.lineno <= function.lineno:
        return None  # the anchor does not start its line (``a = 1; b = 2``) or shares the def line
    newline = "\r\n" if lines[anchor.lineno - 1].endswith("\r\n") else "\n"
    edited = [*lines[:insert_at], f"{indent}{INSERTED}{newline}", *lines[insert_at:]]
    if insert_at == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        edited[insert_at - 1] += newline  # the file ended without a newline right where we insert
    return Edit(text, "".join(edited), insert_at + 1)
