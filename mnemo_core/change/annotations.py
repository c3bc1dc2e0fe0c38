"""Python type annotations in one spelling, so that rewriting them equivalently is no change.

``Optional[int]``, ``Union[int, None]``, ``int | None`` and ``"int | None"`` mean the same, as do
``typing.List[str]`` and ``list[str]``: a pyupgrade run or a move to PEP 604 unions rewrites the
signatures of hundreds of functions without changing one of them. Each annotation becomes one
string: unions as their sorted members, ``typing``'s aliases of builtin collections as the builtin,
names without their module (``t.Any`` -> ``Any``).
"""

from __future__ import annotations

import ast

BUILTIN_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "Text": "str",
}
UNION_NAMES = frozenset({"Union", "Optional"})


def respelled(tree: ast.AST) -> ast.AST:
    """``tree`` with every annotation replaced by its canonical spelling (a string constant)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            node.returns = _constant(node.returns)
        elif isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
            node.annotation = _constant(node.annotation)
    return tree


def _constant(annotation: ast.expr) -> ast.expr:
    return ast.Constant(canonical(annotation))


def canonical(node: ast.expr) -> str:
    """One spelling of an annotation: ``Optional[List[int]]`` and ``list[int] | None`` alike."""
    members = _members(node)
    if len(members) > 1:
        return " | ".join(sorted(members))
    return next(iter(members))


def _members(node: ast.expr) -> set[str]:
    """The members of a union annotation (one member for anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _members(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return {node.value}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) | _members(node.right)
    if isinstance(node, ast.Subscript) and _name(node.value) in UNION_NAMES:
        found = {m for arg in _arguments(node) for m in _members(arg)}
        return found | ({"None"} if _name(node.value) == "Optional" else set())
    return {_single(node)}


def _single(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return repr(node.value) if node.value is not None else "None"
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _name(node)
        return BUILTIN_ALIASES.get(name, name)
    if isinstance(node, ast.Subscript):
        return f"{_single(node.value)}[{', '.join(canonical(a) for a in _arguments(node))}]"
    if isinstance(node, (ast.Tuple, ast.List)):
        return "[" + ", ".join(canonical(e) for e in node.elts) + "]"
    return ast.dump(node)


def _name(node: ast.expr) -> str:
    """The last part of a dotted name (``typing.Optional`` -> ``Optional``); "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _arguments(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
