"""Ruby: ``self`` receivers (written or implied), ``initialize`` constructors, ``A::B`` paths,
mixins (``include``/``extend``/``prepend``) as bases, and specs.

A spec's ``describe``/``context`` block is a test group, its ``it``/``specify`` blocks are test cases,
and its ``let``/``subject``/``before``/``after`` blocks run for every case of the group, nested
groups included (RSpec and minitest/spec). Minitest's ``def test_*`` methods are test cases, and its
``setup``/``teardown`` run for every test of their class.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from mnemo_core.index.languages.base import Definition, Hooks, TestConventions, TestHookScope
from mnemo_core.model import CALLABLE_KINDS, Symbol

TEST_FILE_SUFFIXES = ("_spec.rb", "_test.rb")
CASE_WORDS = frozenset({"it", "specify", "example", "scenario", "test", "its"})
GROUP_HOOK_WORDS = frozenset({"let", "let!", "subject", "subject!", "before", "after", "around"})
CLASS_HOOK_METHODS = frozenset({"setup", "teardown", "before_setup", "after_teardown"})
TEST_METHOD_PREFIX = "test_"


def _verb(definition_name: str) -> str:
    """The spec word a block's name starts with (``it 'parses'`` -> ``it``)."""
    return definition_name.split(" ", 1)[0]


class RubyHooks(Hooks):
    """Hooks for Ruby."""

    self_names = frozenset({"self"})
    super_names = frozenset({"super"})
    constructor_names = frozenset({"initialize"})
    implicit_self = True
    path_separator = "::"
    global_namespace = True
    construct_method = "new"
    instance_prefix = "@"
    runner_methods = CLASS_HOOK_METHODS

    def member_scope(self, path: str) -> str:
        """Constants are global: a class reopened in another file is the same class."""
        return ""

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return PurePosixPath(path).name.endswith(TEST_FILE_SUFFIXES) or super().is_test_file(
            path, conventions
        )

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        spec_block = definition.node.type == "call"
        if spec_block and _verb(definition.name) in CASE_WORDS:
            return True, True
        parent = definition.parent
        test = in_test_file or spec_block or (parent is not None and parent.is_test)
        minitest = (
            in_test_file
            and definition.kind == "method"
            and definition.name.startswith(TEST_METHOD_PREFIX)
            and definition.node.type == "method"
        )
        return test, minitest

    def runs_for_tests(self, symbol: Symbol, in_class: bool) -> TestHookScope | None:
        """A spec's ``let``/``subject``/``before`` block: for the cases of its group; minitest's
        ``setup``/``teardown``: for the tests of its class."""
        spec_hook = _verb(symbol.name.rsplit(".", 1)[-1]) in GROUP_HOOK_WORDS
        if spec_hook and symbol.is_test and symbol.kind in CALLABLE_KINDS:
            return "group" if in_class else "module"
        return super().runs_for_tests(symbol, in_class)


HOOKS = RubyHooks()


SINGLETON_PREFIX = "def self."  # ``def self.build``: called on the class, written ``Filters.build``


def display_name(symbol: Symbol) -> str:
    """``Module::Class#method`` (``Module::Class.method`` for a ``def self.``), ``Module::Class``."""
    owner, _, last = symbol.name.rpartition(".")
    if not owner:
        return symbol.name
    if symbol.kind not in CALLABLE_KINDS:
        return f"{owner.replace('.', '::')}::{last}"
    separator = "." if symbol.signature.lstrip().startswith(SINGLETON_PREFIX) else "#"
    return f"{owner.replace('.', '::')}{separator}{last}"
