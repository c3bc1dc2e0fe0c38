"""C#: ``base`` calls, constructors named after their class, bare calls of its own methods, and
tests as xUnit, NUnit and MSTest mark them."""

from __future__ import annotations

from mnemo_core.index.languages.base import (
    Definition,
    Hooks,
    TestConventions,
    TestHookScope,
    node_text,
    path_parts,
)
from mnemo_core.model import CALLABLE_KINDS, Symbol

TEST_ATTRIBUTES = frozenset(
    {"Fact", "Theory", "Test", "TestCase", "TestCaseSource", "TestMethod", "DataTestMethod"}
)
# run around every test of their class: NUnit's and MSTest's set-up and tear-down methods (xUnit
# builds the class for each test, so its constructor and Dispose run too)
RUNNER_ATTRIBUTES = frozenset(
    {"SetUp", "TearDown", "TestInitialize", "TestCleanup", "OneTimeSetUp", "OneTimeTearDown"}
)
TEST_PROJECT_SUFFIXES = (".Tests", ".Test", ".UnitTests", ".IntegrationTests", ".Specs")


class CSharpHooks(Hooks):
    """Hooks for C#."""

    overloads = True  # a method may have several definitions
    bases_by_name = True  # no imports are read
    super_names = frozenset({"base"})
    constructors_named_after_class = True
    implicit_self = True
    test_marks = TEST_ATTRIBUTES
    runner_marks = RUNNER_ATTRIBUTES

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        return tuple(
            node_text(attribute.child_by_field_name("name"))
            for attributes in definition.node.named_children
            if attributes.type == "attribute_list"
            for attribute in attributes.named_children
            if attribute.type == "attribute"
        )

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        in_test_project = any(part.endswith(TEST_PROJECT_SUFFIXES) for part in path_parts(path))
        return in_test_project or super().is_test_file(path, conventions)

    def runs_for_tests(self, symbol: Symbol, in_class: bool) -> TestHookScope | None:
        """NUnit's ``[SetUp]``, MSTest's ``[TestInitialize]`` and the like, and a test class's
        constructor and ``Dispose`` (xUnit): for every test of their class."""
        owner, _, own = symbol.name.rpartition(".")
        built = symbol.is_test and in_class and symbol.kind in CALLABLE_KINDS
        if built and (own == owner.rsplit(".", 1)[-1] or own == "Dispose"):
            return "class"
        return super().runs_for_tests(symbol, in_class)


HOOKS = CSharpHooks()
