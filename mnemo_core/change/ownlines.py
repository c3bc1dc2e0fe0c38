"""A definition's own lines: the lines that run when it runs, as coverage data records them.

A function's own lines run from its body's first line to its last, minus the bodies of the
functions nested in it (the lines a nested ``def`` runs at call time are the nested function's;
its ``def`` line is the outer one's work); decorators and the ``def`` line itself run at import
and belong to whoever imported the module. A class's own lines are its whole body. Files are
parsed with the index's own extractor and grammar, so a definition's qualified name is the
index's. Results are cached per (path, content): the change pipeline reads the same files at the
coverage data's commit for every change.
"""

from __future__ import annotations

import functools

from tree_sitter import Node

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path
from mnemo_core.model import CALLABLE_KINDS, RawSymbol

OWN_LINES_CACHED = 256  # files whose definitions' own lines are kept
DEFINITIONS = ("function_definition", "class_definition")


def own_lines(path: str, content: bytes) -> dict[str, frozenset[int]]:
    """Each symbol's own lines in one file's content, by qualified name (see the module); a name
    defined several times has the lines of all its definitions."""
    return {name: frozenset().union(*sets) for name, sets in own_line_sets(path, content).items()}


@functools.lru_cache(maxsize=OWN_LINES_CACHED)
def own_line_sets(path: str, content: bytes) -> dict[str, list[frozenset[int]]]:
    """The own lines of each definition in one file's content, by qualified name, in source order
    (kept for the next change, which reads the same files at the data's commit; not to be changed)."""
    spec = language_for_path(path)
    if spec is None:
        return {}
    symbols = [s for s in extract(path, content, spec).symbols if s.kind != "module"]
    bodies = _body_starts(spec.parser.parse(content).root_node)
    nested = [s for s in symbols if s.kind in CALLABLE_KINDS]
    lines: dict[str, list[frozenset[int]]] = {}
    for s in symbols:
        first = bodies.get((s.start_line, s.end_line), s.start_line)
        mine = set(range(first, s.end_line + 1))
        if s.kind in CALLABLE_KINDS:
            for inner in nested:
                if inner is not s and _inside(inner, s):
                    mine -= set(
                        range(
                            bodies.get((inner.start_line, inner.end_line), inner.start_line),
                            inner.end_line + 1,
                        )
                    )
        lines.setdefault(s.name, []).append(frozenset(mine))
    return lines


def _inside(inner: RawSymbol, outer: RawSymbol) -> bool:
    return outer.start_line <= inner.start_line and inner.end_line <= outer.end_line and inner != outer


def _body_starts(root: Node) -> dict[tuple[int, int], int]:
    """(first line, last line) of each definition, decorators included -> its body's first line."""
    starts: dict[tuple[int, int], int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        body = node.child_by_field_name("body") if node.type in DEFINITIONS else None
        if body is None:
            continue
        outer = (
            node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
        )
        starts[(outer.start_point[0] + 1, outer.end_point[0] + 1)] = body.start_point[0] + 1
    return starts
