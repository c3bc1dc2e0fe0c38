"""PHP: ``$this``/``self::``/``static::`` receivers, ``parent::`` calls, ``__construct``, and
PHPUnit's tests."""

from __future__ import annotations

from pathlib import PurePosixPath

from mnemo_core.index.languages.base import Definition, Hooks, TestConventions, node_text

TEST_FILE_SUFFIX = "Test.php"
TEST_METHOD_PREFIX = "test"
TEST_MARKS = ("@test", "#[Test]")  # a docblock annotation or an attribute marks any method a test
RUNNER_METHODS = frozenset({"setUp", "tearDown", "assertPreConditions", "assertPostConditions"})


class PhpHooks(Hooks):
    """Hooks for PHP."""

    bases_by_name = True  # no imports are read
    self_names = frozenset({"$this", "self", "static"})
    super_names = frozenset({"parent"})
    constructor_names = frozenset({"__construct"})
    runner_methods = RUNNER_METHODS  # setUp, tearDown: for every test of their class

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return PurePosixPath(path).name.endswith(TEST_FILE_SUFFIX) or super().is_test_file(path, conventions)

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        """PHPUnit runs a test class's public ``test*`` methods, and those marked ``@test`` or ``#[Test]``."""
        parent = definition.parent
        test = in_test_file or (parent is not None and parent.is_test)
        if not (test and definition.kind == "method"):
            return test, False
        leading = definition.node.prev_named_sibling
        marked = leading is not None and leading.type == "comment" and TEST_MARKS[0] in node_text(leading)
        attributed = TEST_MARKS[1] in node_text(definition.node).split("function", 1)[0]
        return True, definition.name.startswith(TEST_METHOD_PREFIX) or marked or attributed


HOOKS = PhpHooks()
