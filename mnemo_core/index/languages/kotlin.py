"""Kotlin: a bare call inside a class may be a call of one of its methods; JUnit's tests."""

from __future__ import annotations

from mnemo_core.index.discovery import DEFAULT_DISCOVERY, PytestDiscovery
from mnemo_core.index.languages.base import Definition, Hooks, TestHookScope, node_text
from mnemo_core.index.languages.java import RUNNER_ANNOTATIONS, TEST_ANNOTATIONS, annotation_name
from mnemo_core.model import CALLABLE_KINDS, Symbol


class KotlinHooks(Hooks):
    """Hooks for Kotlin."""

    overloads = True  # a method may have several definitions
    bases_by_name = True  # no imports are read
    implicit_self = True

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        modifiers = next((c for c in definition.node.named_children if c.type == "modifiers"), None)
        if modifiers is None:
            return ()
        return tuple(node_text(c).lstrip("@") for c in modifiers.named_children if c.type == "annotation")

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        discovery: PytestDiscovery = DEFAULT_DISCOVERY,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        marked = {annotation_name(d) for d in definition.decorators} & TEST_ANNOTATIONS
        if definition.kind == "method" and marked:
            return True, True
        parent = definition.parent
        return in_test_file or (parent is not None and parent.is_test), False

    def runs_for_tests(self, symbol: Symbol, in_class: bool) -> TestHookScope | None:
        """JUnit's ``@Before``/``@BeforeEach`` and the like: for every test of their class."""
        if not (symbol.is_test and in_class and symbol.kind in CALLABLE_KINDS):
            return None
        return "class" if {annotation_name(d) for d in symbol.decorators} & RUNNER_ANNOTATIONS else None


HOOKS = KotlinHooks()
