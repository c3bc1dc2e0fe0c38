"""Java: imports resolved to class files, packages shared across source trees, annotations,
constructors, and JUnit tests.

A package is the directory path below the source root (``src/main/java/com/acme/model`` and
``src/test/java/com/acme/model`` are both ``com/acme/model``), so a test sees the classes of its
package without importing them. ``import com.acme.model.User`` names ``.../com/acme/model/User.java``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from tree_sitter import Node

from mnemo_core.index.languages._packages import PackageIndex, package_index
from mnemo_core.index.languages.base import (
    TEST_DIRS,
    Definition,
    Hooks,
    TestConventions,
    alternatives,
    node_text,
    path_parts,
    reads_matching,
)
from mnemo_core.model import RawImport

SUFFIX = ".java"
SOURCE_ROOT_DIRS = frozenset({"java", "kotlin"})  # Maven/Gradle: src/main/java/<package path>
TEST_SOURCE_DIR = "src/test/"
TEST_CLASS_SUFFIXES = ("Test", "Tests", "IT", "TestCase")
TEST_ANNOTATIONS = frozenset(
    {
        "Test",
        "ParameterizedTest",
        "RepeatedTest",
        "TestFactory",
        "TestTemplate",
        "Property",
        "Theory",
    }
)
_ANNOTATION_TYPES = frozenset({"marker_annotation", "annotation"})
# JUnit runs these around every test of their class (JUnit 4 and 5), and JUnit 3 its setUp/tearDown
RUNNER_ANNOTATIONS = frozenset(
    {"Before", "BeforeEach", "After", "AfterEach", "BeforeClass", "BeforeAll", "AfterClass", "AfterAll"}
)
RUNNER_METHODS = frozenset({"setUp", "tearDown"})
CLASS_CONSTANT = rb"\b[A-Z][A-Za-z0-9_]*\.[A-Z][A-Z0-9_]*\b"  # ``Limits.MAX_SIZE``, by convention
_NAMED_BY = {  # a parent whose field names its own identifier: a declaration, not a read
    "variable_declarator": "name",
    "field_access": "field",
    "method_invocation": "name",
    "method_declaration": "name",
    "formal_parameter": "name",
    "enum_constant": "name",
}
BUILTIN_METHODS = frozenset(
    {
        "add",
        "addAll",
        "append",
        "charAt",
        "collect",
        "contains",
        "containsKey",
        "equals",
        "filter",
        "forEach",
        "format",
        "get",
        "getClass",
        "getOrDefault",
        "hashCode",
        "isEmpty",
        "isPresent",
        "iterator",
        "length",
        "map",
        "of",
        "orElse",
        "orElseThrow",
        "println",
        "put",
        "remove",
        "size",
        "stream",
        "substring",
        "toList",
        "toString",
        "trim",
        "valueOf",
    }
)


def _is_bare_read(node: Node, _end: int) -> bool:
    """``MAX_SIZE`` read as itself: not declared, not ``obj.MAX_SIZE``, not a method's name, not imported."""
    parent = node.parent
    if node.type != "identifier" or parent is None:
        return False
    named = _NAMED_BY.get(parent.type)
    return (named is None or parent.child_by_field_name(named) != node) and parent.type != "scoped_identifier"


def _is_class_constant_read(node: Node, end: int) -> bool:
    """``Limits.MAX_SIZE``: the whole field access, read from a class named by itself."""
    target = node.child_by_field_name("object")
    return (
        node.type == "field_access"
        and node.end_byte == end
        and target is not None
        and target.type == "identifier"
    )


class JavaHooks(Hooks):
    """Hooks for Java."""

    overloads = True  # a method may have several definitions
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    constructors_named_after_class = True
    implicit_self = True
    member_constants = True
    builtin_methods = BUILTIN_METHODS
    test_marks = TEST_ANNOTATIONS
    runner_marks = RUNNER_ANNOTATIONS
    runner_methods = RUNNER_METHODS

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        modifiers = next((c for c in definition.node.named_children if c.type == "modifiers"), None)
        if modifiers is None:
            return ()
        annotations = (c for c in modifiers.named_children if c.type in _ANNOTATION_TYPES)
        return tuple(node_text(c).lstrip("@") for c in annotations)

    def constant_uses(
        self, root: Node, source: bytes, names: frozenset[str], modules: frozenset[str]
    ) -> list[tuple[int, int, str]]:
        """A constant of this file's classes (or imported statically) read by bare name, and any
        class's constant read through the class (``TypeAdapters.INET_ADDRESS``): a class of the
        same package needs no import."""
        found = []
        if names:
            found += reads_matching(root, source, rb"\b(?:" + alternatives(names) + rb")\b", _is_bare_read)
        return found + reads_matching(root, source, CLASS_CONSTANT, _is_class_constant_read)

    def parse_import(self, node: Node) -> list[RawImport]:
        line = node.start_point[0] + 1
        path = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        segments = node_text(path).replace(" ", "").split(".")
        if any(c.type == "asterisk" for c in node.named_children):
            return [RawImport(".".join(segments), "*", "*", line)]
        # Packages are lower case by convention; the first capitalised segment is the class.
        first_class = next((i for i, s in enumerate(segments) if s[:1].isupper()), len(segments) - 1)
        module, members = segments[:first_class], segments[first_class:]
        return [RawImport(".".join(module), ".".join(members), members[-1], line)]

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        stem = PurePosixPath(path).stem
        return (
            TEST_SOURCE_DIR in f"/{path}"
            or stem.endswith(TEST_CLASS_SUFFIXES)
            or any(part in TEST_DIRS for part in path_parts(path))
        )

    def is_exported(self, definition: Definition) -> bool:
        parent = definition.parent
        if parent is not None and parent.kind == "interface":
            return True
        modifiers = next((c for c in definition.node.named_children if c.type == "modifiers"), None)
        return modifiers is not None and any(c.type == "public" for c in modifiers.children)

    def module_name(self, path: str) -> str:
        return ".".join((*self.package_of(path).split("/"), PurePosixPath(path).stem)).lstrip(".")

    def package_of(self, path: str) -> str:
        parts = path_parts(path)
        roots = [i for i, part in enumerate(parts) if part in SOURCE_ROOT_DIRS]
        return "/".join(parts[roots[-1] + 1 :] if roots else parts)

    def shares_package_scope(self) -> bool:
        return True

    def module_index(self, paths: Iterable[str]) -> PackageIndex:
        return package_index(paths)

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, PackageIndex)
        directories = index.by_suffix.get(imp.module.replace(".", "/"), [])
        if imp.name == "*":
            return sorted(p for d in directories for p in index.files[d])
        wanted = imp.name.split(".", 1)[0] + SUFFIX
        return sorted(p for d in directories for p in index.files[d] if PurePosixPath(p).name == wanted)


HOOKS = JavaHooks()
