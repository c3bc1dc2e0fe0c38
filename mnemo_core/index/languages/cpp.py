"""C++: ``a::b`` receivers, constructors named after their class, methods defined in a ``.cpp``
file attaching to the class declared in the header beside it, and GoogleTest's tests."""

from __future__ import annotations

from pathlib import PurePosixPath

from mnemo_core.index.languages.base import Definition, Hooks, TestConventions, node_text
from mnemo_core.model import Symbol

GTEST_MACROS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"})
TEST_FILE_STEMS = ("_test", "_unittest", "Test", "Tests")


class CppHooks(Hooks):
    """Hooks for C++."""

    overloads = True  # a method may have several definitions
    bases_by_name = True  # no imports are read
    path_separator = "::"
    constructors_named_after_class = True
    implicit_self = True

    def member_scope(self, path: str) -> str:
        return self.package_of(path)

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return PurePosixPath(path).stem.endswith(TEST_FILE_STEMS) or super().is_test_file(path, conventions)

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        """GoogleTest's ``TEST(Suite, Name) {...}`` is a test case, wherever it is written."""
        declarator = definition.node.child_by_field_name("declarator")
        macro = declarator.child_by_field_name("declarator") if declarator is not None else None
        if definition.node.type == "function_definition" and node_text(macro) in GTEST_MACROS:
            return True, True
        return in_test_file, False


HOOKS = CppHooks()


def display_name(symbol: Symbol) -> str:
    """``Class::method``, ``ns::function``: C++'s scope operator."""
    return symbol.name.replace(".", "::")
