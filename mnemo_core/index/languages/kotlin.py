"""Kotlin: a bare call inside a class may be a call of one of its methods; JUnit's tests."""

from __future__ import annotations

from mnemo_core.index.languages.base import Definition, Hooks, node_text
from mnemo_core.index.languages.java import RUNNER_ANNOTATIONS, TEST_ANNOTATIONS


class KotlinHooks(Hooks):
    """Hooks for Kotlin."""

    overloads = True  # a method may have several definitions
    bases_by_name = True  # no imports are read
    implicit_self = True
    test_marks = TEST_ANNOTATIONS
    runner_marks = RUNNER_ANNOTATIONS

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        modifiers = next((c for c in definition.node.named_children if c.type == "modifiers"), None)
        if modifiers is None:
            return ()
        return tuple(node_text(c).lstrip("@") for c in modifiers.named_children if c.type == "annotation")


HOOKS = KotlinHooks()
