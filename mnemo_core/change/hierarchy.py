"""Class hierarchies through the repository's ``inherits`` edges."""

from __future__ import annotations

from mnemo_core.index.store import Store


def hierarchy(store: Store, cls: int, direction: str) -> set[int]:
    """``cls`` and its subclasses (``direction="in"``) or its base classes (``"out"``), transitively."""
    found, layer = {cls}, {cls}
    while layer:
        edges = store.edges_touching(layer, direction)
        layer = {e.src if direction == "in" else e.dst for e in edges if e.type == "inherits"} - found
        found |= layer
    return found
