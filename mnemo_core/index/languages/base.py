"""Default language hooks: what a query file cannot say, with sensible defaults for any language."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, ClassVar, Final, Literal

from mnemo_core.model import CALLABLE_KINDS, RawImport, Symbol, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node

# what ``\b`` in a bytes pattern counts as a word byte: ASCII letters, digits and ``_``
_WORD_BYTES = frozenset(bytes([b]) for b in b"0123456789_" + bytes(range(65, 91)) + bytes(range(97, 123)))
_COMMENT_MARKERS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|///?|//!|#+|--|;+)\s?")
# a repository's own test-runner settings (Python's: pytest's python_files, python_classes and
# python_functions), opaque to the language-neutral code: each language's hooks read what applies to them
TestConventions = Hashable | None

# a definition's dotted path, as code that imports it by name writes it (``pkg.mod.f``, ``pkg.mod:Cls``)
DOTTED_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?", re.ASCII)
# a path PurePosixPath would rewrite: rooted, a "." or empty component, a trailing "/"
_UNNORMAL_PATH = re.compile(r"^\.?/|//|/\./|/\.?$|^\.$")
RETURN_TYPE_FIELDS = ("return_type", "result")
RETURN_TYPE_MAX_CHARS = 200
TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
CONTAINER_ONLY: Final = "impl"  # a named container that owns methods but is not itself a symbol (Rust)
DefinitionKind = SymbolKind | Literal["impl"]  # what a query's ``@definition.<kind>`` may name


@dataclass
class Definition:
    """A definition while it is being extracted; hooks read it to classify tests and exports."""

    node: Node  # the definition node the query captured
    outer: Node  # the node whose lines the definition covers (with decorators/attributes)
    kind: DefinitionKind
    name: str
    qualified: str = ""
    parent: Definition | None = None
    decorators: tuple[str, ...] = ()
    is_test: bool = False
    is_test_case: bool = False
    extra: dict[str, str] = field(default_factory=dict)


def node_text(node: Node | None) -> str:
    """The source text of a node, decoded leniently."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def text_in(source: bytes, node: Node) -> str:
    """``node_text`` of a node of the tree parsed from ``source``: half its cost, for hot loops."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def clean_comment(text: str) -> str:
    """Strip comment markers and blank edges from a comment block."""
    lines = [_COMMENT_MARKERS.sub("", line).rstrip() for line in text.splitlines()]
    lines = [line.rstrip("*/").rstrip() for line in lines]
    return "\n".join(lines).strip()


def alternatives(names: Iterable[str]) -> bytes:
    """A regular expression's alternatives for ``names``, longest first."""
    return b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))


def reads_matching(
    root: Node, source: bytes, pattern: bytes, is_read: Callable[[Node, int], bool]
) -> list[tuple[int, int, str]]:
    """(start byte, line, text) of each match of ``pattern`` whose syntax node ``is_read`` accepts
    (it is given the node and the match's end)."""
    return reads_at(root, source, [m.span() for m in re.finditer(pattern, source)], is_read)


def reads_at(
    root: Node, source: bytes, spans: Iterable[tuple[int, int]], is_read: Callable[[Node, int], bool]
) -> list[tuple[int, int, str]]:
    """(start byte, line, text) of each ``(start, end)`` span whose syntax node ``is_read`` accepts."""
    found = []
    for start, end in spans:
        node = root.descendant_for_byte_range(start, end)
        if node is not None and is_read(node, end):
            found.append((start, node.start_point[0] + 1, source[start:end].decode()))
    return found


def name_spans(source: bytes, names: Collection[str], tail: re.Pattern[bytes]) -> list[tuple[int, int]]:
    """The spans ``re.finditer(rb"\\b(?:" + alternatives(names) + rb")" + tail.pattern, source)``
    finds, without compiling a pattern for each file's set of names (that compilation, in Python,
    cost more than the rest of the search): each name is found with ``bytes.find``; where several
    match at one start, the longest wins (the alternatives' order), and spans inside an earlier one
    are dropped (the scan resumes after a match). The word boundary is ``re``'s for bytes: a word
    byte is ASCII ``[A-Za-z0-9_]``."""
    if "" in names:  # an empty alternative matches at every boundary: the pattern itself says where
        pattern = rb"\b(?:" + alternatives(names) + rb")" + tail.pattern
        return [m.span() for m in re.finditer(pattern, source)]
    longest: dict[int, tuple[int, int]] = {}  # start -> (length of the name, end of the match)
    for name in names:
        literal = name.encode()
        starts_word = literal[:1] in _WORD_BYTES
        at = source.find(literal)
        while at != -1:
            if (at > 0 and source[at - 1 : at] in _WORD_BYTES) != starts_word:
                found = tail.match(source, at + len(literal))
                if found is not None and len(literal) > longest.get(at, (0, 0))[0]:
                    longest[at] = (len(literal), found.end())
            at = source.find(literal, at + 1)
    spans, end = [], 0
    for start in sorted(longest):
        if start >= end:
            end = longest[start][1]
            spans.append((start, end))
    return spans


def mark_name(text: str) -> str:
    """An annotation's or attribute's own name: ``@org.junit.jupiter.api.Test`` -> ``Test``,
    ``TestCase(1, 2)`` -> ``TestCase``."""
    return text.lstrip("@").split("(", 1)[0].rsplit(".", 1)[-1].strip()


def marked(decorators: Iterable[str], marks: frozenset[str]) -> bool:
    """Whether one of the annotations or attributes is among ``marks``."""
    return any(mark_name(d) in marks for d in decorators)


def path_parts(path: str) -> tuple[str, ...]:
    """The directory components of a repo-relative POSIX path (split at "/" when it is already in
    ``PurePosixPath``'s normal form: building one costs more than the rest of a test-file check)."""
    if _UNNORMAL_PATH.search(path):
        return PurePosixPath(path).parts[:-1]
    return tuple(path.split("/")[:-1])


def file_name(path: str) -> str:
    """``PurePosixPath(path).name``, split at "/" when ``path`` is in its normal form."""
    if _UNNORMAL_PATH.search(path):
        return PurePosixPath(path).name
    return path.rpartition("/")[2]


# the tests a runner runs a set-up function for: its class's (and subclasses'), those nested in its
# spec group, its module's, or its directory's and below
TestHookScope = Literal["class", "group", "module", "directory"]


class Hooks:
    """Behaviour shared by every language; languages override what differs."""

    self_names: frozenset[str] = frozenset({"this"})  # receivers that mean "this object"
    receiver_is_first_param: bool = False  # Go: ``func (s *T) m()`` names its receiver ``s``
    implicit_self: bool = False  # Java, C#, C++: a bare ``m()`` inside a class may mean ``this.m()``
    member_constants: bool = False  # Java: a class's UPPER_CASE fields are its constants, read by bare name
    global_namespace: bool = False  # Ruby: ``A::B`` is one class however many files (re)open it
    construct_method: str = ""  # Ruby: ``Foo.new(...)`` builds a ``Foo``
    bases_by_name: bool = False  # no imports are read (PHP, Kotlin, C#, C++): a base is found by its name
    constants_any_case: bool = False  # Go: a package-level var or const is a constant, whatever its case
    imports_are_names: bool = False  # Python: what a module imports, its importers can import from it
    overloads: bool = False  # Java, C#, Kotlin, C++: one method may have several definitions (overloads)
    instance_prefix: str = ""  # Ruby: ``@client`` is ``self.client``
    test_marks: frozenset[str] = frozenset()  # annotations or attributes that make a method a test (``Test``)
    runner_marks: frozenset[str] = frozenset()  # and those the runner runs around each test (``BeforeEach``)
    runner_methods: frozenset[str] = frozenset()  # methods it runs around each test by their name (``setUp``)
    super_names: frozenset[str] = frozenset({"super", "super()"})
    builtin_names: frozenset[str] = frozenset()  # bare names never linked by name alone
    builtin_methods: frozenset[str] = frozenset()  # methods of built-in types: never linked by name alone
    constructor_names: frozenset[str] = frozenset()  # a class's constructor methods
    constructors_named_after_class: bool = False  # Java, C#, C++: ``User(...)`` constructs a ``User``
    comment_types: frozenset[str] = frozenset({"comment", "line_comment", "block_comment"})
    decorator_types: frozenset[str] = frozenset()
    wrapper_types: frozenset[str] = frozenset()  # parents that own a definition's decorators
    module_family: str = ""  # languages that import each other's files share a family (JS, TS, TSX)
    path_separator: str = "."  # written between a receiver's parts (Rust's ``a::b``); stored as "."
    type_wrappers: frozenset[str] = frozenset()  # generic wrappers skipped in a type (``Optional[T]``)
    # methods that external base classes dispatch by name prefix: a class inheriting ``visit`` from
    # outside the repository runs its own ``visit_*`` methods through it (``ast.NodeVisitor``)
    dispatch_entries: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # functions of libraries that collect an object's methods (or the calling module's functions) by
    # name prefix and run them later: ``yacc.yacc(module=self)`` builds a parser that runs ``p_*``
    prefix_collectors: ClassVar[Mapping[str, str]] = {}
    property_decorators: frozenset[str] = frozenset()  # a member read with these runs code
    module_getattr: bool = False  # Python (PEP 562): a module's ``__getattr__`` serves names it lacks
    neutral_bases: frozenset[str] = frozenset()  # base classes that never call back into a subclass
    union_wrappers: frozenset[str] = frozenset()  # generics whose arguments are alternatives

    def outer(self, node: Node) -> Node:
        """The node whose lines belong to the definition (decorators and attributes included)."""
        parent = node.parent
        if parent is not None and parent.type in self.wrapper_types:
            return parent
        return node

    def leading_siblings(self, outer: Node) -> list[Node]:
        """Comments and attributes directly above a definition, nearest last."""
        found: list[Node] = []
        sibling = outer.prev_sibling
        line = outer.start_point[0]
        while sibling is not None and sibling.type in self.comment_types | self.decorator_types:
            if sibling.end_point[0] < line - 1:
                break
            found.append(sibling)
            line = sibling.start_point[0]
            sibling = sibling.prev_sibling
        found.reverse()
        return found

    def docstring(self, definition: Definition) -> str:
        """The doc comment directly above the definition."""
        comments = [s for s in self.leading_siblings(definition.outer) if s.type in self.comment_types]
        return clean_comment("\n".join(node_text(c) for c in comments))

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        """Decorator, annotation or attribute texts attached to the definition."""
        siblings = self.leading_siblings(definition.outer)
        return tuple(node_text(s) for s in siblings if s.type in self.decorator_types)

    def params(self, definition: Definition) -> tuple[str, ...]:
        """Plain parameter names; a method's receiver comes first where the language names it."""
        params = definition.node.child_by_field_name("parameters")
        if params is None:
            return ()
        names = []
        for child in params.named_children:
            target = child if child.type == "identifier" else child.child_by_field_name("name")
            if target is None and child.type.endswith("parameter") and child.named_child_count:
                target = child.named_child(0)  # Python's ``x: int`` names no field
            if target is not None and target.type == "identifier":
                names.append(node_text(target))
        return tuple(names)

    def is_super(self, receiver: str) -> bool:
        """Whether a call's receiver is the base class (``super()``, ``super(Cls, self)``, ``base``)."""
        return receiver in self.super_names or receiver.startswith("super(")

    def returns(self, definition: Definition) -> str:
        """The declared return type of a function, as written ('' when there is none)."""
        for field_name in RETURN_TYPE_FIELDS:
            node = definition.node.child_by_field_name(field_name)
            if node is not None:
                return node_text(node)[:RETURN_TYPE_MAX_CHARS]
        return ""

    def parse_import(self, node: Node) -> list[RawImport]:
        """The names an import statement binds."""
        return []

    def top_level_matches(self, root: Node) -> list[tuple[str, dict[str, list[Node]]]]:
        """The matches of the definition and import patterns the language's query leaves out because
        they are rooted at the file's root: (the capture naming the role, the captures), as the query
        gives them. Such a pattern, whose child step may match any later child, holds its state open
        over the whole file and is stepped at every node (Python's four cost 5.8 % of its query's
        instructions for 0.2 % of its matches); the root's children are read here instead."""
        return []

    def constant_uses(
        self, root: Node, source: bytes, names: frozenset[str], modules: frozenset[str]
    ) -> list[tuple[int, int, str]]:
        """Where the file reads a module constant: one of ``names`` (those it defines or imports) as
        a plain name, or a constant of one of ``modules`` (other names it imports) as its attribute
        (``net.TIMEOUT``): (start byte, line, name as written) of each read."""
        return []

    def dotted_strings(self, root: Node, source: bytes) -> list[tuple[Node, Node]]:
        """The string literals whose whole text is a dotted path (``"pkg.mod.func"``,
        ``"pkg.mod:Class"``: what code that imports by name at run time names), as (the string, its
        content). Found by scanning the source, not by the query: most strings name no path, and the
        query's match of each costs more than the scan."""
        return []

    def parametrized_types(self, names: str, values: str) -> list[tuple[str, str]]:
        """For a parametrised test (``names`` and ``values`` as written): each parameter with the
        classes its values are built as, as a union type (``kind`` -> ``Upper | Lower``)."""
        return []

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        """Whether a file holds test code (``conventions``: the repository's test-runner settings)."""
        return any(part in TEST_DIRS for part in path_parts(path))

    def runs_tests_in(self, path: str, conventions: TestConventions = None) -> bool | None:
        """Whether the test runner runs the tests defined in ``path``, where the repository's settings
        say; None where they say nothing (mnemo's reading: wherever the test code is)."""
        return None

    def holds_tests(self, path: str, source: bytes, conventions: TestConventions = None) -> bool:
        """Whether a file holds test code, its source read too (the path alone may mislead)."""
        return self.is_test_file(path, conventions)

    def built_test(self, definition: Definition, conventions: TestConventions = None) -> bool:
        """Whether a definition is a test that a function builds at run time, which the runner
        collects only as the module's top-level code publishes it (none by default)."""
        return False

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        """``(is_test, is_test_case)`` for a definition: test code, and a runnable test;
        ``collected``: whether the test runner runs the tests of its file (None: ``in_test_file``).
        With ``test_marks``, a method annotated with one is a test case, and code in a test class is
        test code."""
        if not self.test_marks:
            return in_test_file, False
        if definition.kind == "method" and marked(definition.decorators, self.test_marks):
            return True, True
        parent = definition.parent
        return in_test_file or (parent is not None and parent.is_test), False

    def module_docstring(self, root: Node) -> str:
        """The module's own documentation."""
        return ""

    def is_exported(self, definition: Definition) -> bool:
        """Whether the definition is part of its module's public surface."""
        return not definition.name.startswith("_")

    def holds_registry(self, definition: Node) -> bool:
        """Whether a module-level variable not named like a constant holds a registry literal, which
        code looks things up in (Python's ``_plugins = {"table": "pkg.plugins.table.table"}``)."""
        return False

    def module_name(self, path: str) -> str:
        """The name of the module symbol of a file."""
        return PurePosixPath(path).stem

    def exports(self, root: Node) -> tuple[str, ...] | None:
        """The names a module declares as its public surface (Python's ``__all__``), when it does."""
        return None

    def holds_class(self, type_text: str) -> bool:
        """Whether a variable of this declared type holds a class, not an instance (calling it
        builds one)."""
        return False

    def is_fixture(self, decorators: tuple[str, ...]) -> bool:
        """Whether a function with these decorators is a test fixture the test runner injects."""
        return False

    def fixture_files(self, path: str) -> tuple[str, ...]:
        """The files, nearest first, whose fixtures a test in ``path`` may take as parameters
        (none: the language has no injected fixtures)."""
        return ()

    def runs_for_tests(self, symbol: Symbol, in_class: bool) -> TestHookScope | None:
        """Whether the test runner runs this function of a test file for tests that never call it,
        and for which: the tests of its ``"class"`` (and subclasses), of its ``"module"``, or of its
        ``"directory"`` and below; None for an ordinary function. A method of a test class annotated
        with one of ``runner_marks``, or named one of ``runner_methods``, runs for the tests of its class."""
        if not (symbol.is_test and in_class and symbol.kind in CALLABLE_KINDS):
            return None
        named = symbol.name.rsplit(".", 1)[-1] in self.runner_methods
        return "class" if named or marked(symbol.decorators, self.runner_marks) else None

    def module_index(self, paths: Iterable[str]) -> object:
        """A lookup structure over the repo's files of this language, built once per resolve."""
        return None

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        """The repo paths an import refers to (empty when it is external)."""
        return []

    def import_reading(self, importer: str, imp: RawImport) -> Hashable:
        """All that ``resolve_module`` and ``resolve_member_module`` read of an import and its
        importer's path, besides the index: two imports with equal readings resolve alike."""
        return importer, imp

    def package_of(self, path: str) -> str:
        """The package a file belongs to: names in one package see each other without imports."""
        directory, slash, _ = path.rpartition("/")  # a repository path: '/'-separated, normalised
        return directory or ("/" if slash else ".")  # PurePosixPath(path).parent, without its cost

    def shares_package_scope(self) -> bool:
        """Whether files in one package see each other's top-level names (Go, Java)."""
        return False

    def private_statement(self, node: Node) -> bool:
        """Whether a top-level statement is invisible to the module's importers (a comment here;
        languages add their private declarations): changing it changes nothing they can read."""
        return node.type in self.comment_types

    def exports_names(self, node: Node) -> bool:
        """Whether a top-level statement only lists names the module exports (JavaScript's
        ``export { a } from "./x"``): a name added there is one no importer reads yet."""
        return False

    def constructors_of(self, class_name: str) -> frozenset[str]:
        """The names of a class's constructor methods."""
        if self.constructors_named_after_class:
            return self.constructor_names | {class_name.rsplit(".", 1)[-1]}
        return self.constructor_names

    def member_scope(self, path: str) -> str:
        """Where ``Type.method`` written outside ``Type`` still attaches to it: the file by default;
        the package directory in Go; the crate for Rust ``impl`` blocks."""
        return path

    def submodule_paths(self, module_path: str, name: str, index: object) -> list[str]:
        """The file of module ``name`` inside the package whose module file is ``module_path``
        (``flask.helpers`` reached as an attribute of ``flask``)."""
        return []

    def resolve_member_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        """For ``from pkg import name``: the file of submodule ``pkg.name``, when there is one."""
        return []
