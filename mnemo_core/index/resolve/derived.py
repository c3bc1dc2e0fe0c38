"""Edges derived from the index rather than from a reference: ``tests`` from a test case to the
code it calls, ``imports`` from a module to what it binds, ``overrides`` from a method to its base's."""

from __future__ import annotations

from mnemo_core.index.resolve.records import (
    CONFIDENCE,
)
from mnemo_core.index.world import World
from mnemo_core.model import (
    CLASS_KINDS,
    Edge,
)


def tests_edges(w: World, calls: list[Edge]) -> list[Edge]:
    """From each test case to the non-test code it calls directly (fixtures are reached by walking)."""
    return [
        Edge(e.src, e.dst, "tests", "derived", e.confidence, e.line)
        for e in calls
        if w.symbol(e.src).is_test_case and not w.symbol(e.dst).is_test
    ]


def import_edges(w: World, file_id: int) -> list[Edge]:
    """From a module to the modules and names its imports bind."""
    module = w.module_symbol(file_id)
    if module is None:
        return []
    bindings = w.bindings(file_id)
    targets = {t for b in bindings.every() for t in w.resolve_binding(b)}
    targets.update(m for star in bindings.stars for m in map(w.module_symbol, star) if m is not None)
    return [Edge(module, t, "imports", "import", 1.0, 0) for t in sorted(targets) if t != module]


def overrides(w: World, file_id: int) -> list[Edge]:
    """From each method of the file's classes to the base-class method it redefines."""
    edges: list[Edge] = []
    for ids in w.top(file_id).values():
        for cls in ids:
            if w.symbol(cls).kind not in CLASS_KINDS or not w.bases(cls):
                continue
            for short, methods in w.members(cls).items():
                base_methods = [b for b in w.find_member(w.bases(cls), short) if w.symbol(b).kind == "method"]
                edges.extend(
                    Edge(m, b, "overrides", "derived", CONFIDENCE["derived"], 0)
                    for m in methods
                    if w.symbol(m).kind == "method"
                    for b in base_methods
                )
    return edges
