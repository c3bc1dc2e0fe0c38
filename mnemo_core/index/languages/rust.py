"""Rust: ``use`` trees and ``mod`` declarations resolved to files, ``impl`` blocks across the crate,
doc comments, and ``#[test]`` functions (with everything inside ``#[cfg(test)] mod tests``).

A crate is a directory holding ``lib.rs`` or ``main.rs`` (its name is the directory's, or the one
above ``src/``); a module ``crate::a::b`` is ``a/b.rs`` or ``a/b/mod.rs`` under it. Cargo.toml is
not read, so a crate whose name cannot be told from its directory (the repository's own ``src/``)
also answers to any unknown first path segment whose modules exist in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node

from mnemo_core.index.languages.base import (
    CONTAINER_ONLY,
    Definition,
    Hooks,
    TestConventions,
    clean_comment,
    node_text,
)
from mnemo_core.model import RawImport, Symbol

SEPARATOR = "::"
CRATE_ROOTS = ("lib.rs", "main.rs")
MODULE_FILE = "mod.rs"
SOURCE_DIR = "src"
DOC_PREFIXES = ("///", "/**")
INNER_DOC_PREFIXES = ("//!", "/*!")
_TEST_ATTRIBUTE = re.compile(r"^#\[(?:[\w:]+::)?(?:test|rstest|test_case|quickcheck)\b")
_TEST_MODULE_ATTRIBUTE = re.compile(r"^#\[cfg\(test\)\]")
BUILTINS = frozenset(
    {
        "Box",
        "Err",
        "None",
        "Ok",
        "Some",
        "assert",
        "assert_eq",
        "assert_ne",
        "cfg",
        "concat",
        "dbg",
        "debug_assert",
        "debug_assert_eq",
        "drop",
        "env",
        "eprint",
        "eprintln",
        "format",
        "format_args",
        "include_str",
        "matches",
        "panic",
        "print",
        "println",
        "todo",
        "unimplemented",
        "unreachable",
        "vec",
        "write",
        "writeln",
    }
)
BUILTIN_METHODS = frozenset(
    {
        "as_ref",
        "as_str",
        "borrow",
        "borrow_mut",
        "clone",
        "cloned",
        "cmp",
        "collect",
        "contains",
        "default",
        "entry",
        "eq",
        "expect",
        "extend",
        "filter",
        "first",
        "fmt",
        "get",
        "get_mut",
        "hash",
        "insert",
        "into",
        "into_iter",
        "is_empty",
        "is_none",
        "is_some",
        "iter",
        "iter_mut",
        "join",
        "last",
        "len",
        "lock",
        "map",
        "map_err",
        "ok",
        "ok_or",
        "partial_cmp",
        "pop",
        "push",
        "push_str",
        "remove",
        "sort",
        "split",
        "to_owned",
        "to_string",
        "trim",
        "unwrap",
        "unwrap_or",
        "unwrap_or_default",
        "unwrap_or_else",
    }
)


@dataclass(frozen=True)
class CrateIndex:
    """The repository's Rust files and crate roots (crate directory -> name)."""

    paths: frozenset[str]
    crates: dict[str, str]

    def crate_root(self, path: str) -> str:
        """The directory of the crate a file belongs to (its own directory when none holds it)."""
        directory = PurePosixPath(path).parent
        for candidate in (directory, *directory.parents):
            if str(candidate) in self.crates:
                return str(candidate)
        return str(directory)

    def module_file(self, directory: str, is_root: bool) -> str | None:
        """The file of the module whose children live in ``directory``."""
        if is_root:
            return next((f for f in (_join(directory, r) for r in CRATE_ROOTS) if f in self.paths), None)
        for candidate in (f"{directory}.rs", _join(directory, MODULE_FILE)):
            if candidate in self.paths:
                return candidate
        return None

    def child(self, directory: str, name: str) -> str | None:
        """The file of child module ``name`` of the module whose children live in ``directory``."""
        return self.module_file(_join(directory, name), is_root=False)


def _join(directory: str, name: str) -> str:
    return name if directory in ("", ".") else f"{directory}/{name}"


def module_dir(path: str, crate_root: str) -> str:
    """Where the child modules of a file's module live."""
    pure = PurePosixPath(path)
    if pure.name == MODULE_FILE or str(pure.parent) == crate_root:
        return str(pure.parent)
    return str(pure.with_suffix(""))


def crate_scope(path: str) -> str:
    """The crate a file's ``impl`` blocks attach methods in: the directory up to its last ``src``."""
    parts = PurePosixPath(path).parts[:-1]
    if SOURCE_DIR not in parts:
        return ""
    last = len(parts) - 1 - parts[::-1].index(SOURCE_DIR)
    return "/".join(parts[: last + 1])


class RustHooks(Hooks):
    """Hooks for Rust."""

    self_names = frozenset({"self", "Self"})
    super_names = frozenset()
    path_separator = SEPARATOR
    decorator_types = frozenset({"attribute_item"})
    comment_types = frozenset({"line_comment", "block_comment"})
    builtin_names = BUILTINS
    builtin_methods = BUILTIN_METHODS

    def docstring(self, definition: Definition) -> str:
        siblings = self.leading_siblings(definition.outer)
        comments = [node_text(s).rstrip("\n") for s in siblings if s.type in self.comment_types]
        return clean_comment("\n".join(c for c in comments if c.startswith(DOC_PREFIXES)))

    def module_docstring(self, root: Node) -> str:
        """The crate or module's inner doc comments (``//!``)."""
        lines = []
        for child in root.children:
            text = node_text(child)
            if child.type not in self.comment_types or not text.startswith(INNER_DOC_PREFIXES):
                break
            lines.append(text[len(INNER_DOC_PREFIXES[0]) :].rstrip("\n"))
        return clean_comment("\n".join(lines))

    def parse_import(self, node: Node) -> list[RawImport]:
        line = node.start_point[0] + 1
        if node.type == "mod_item":
            name = node_text(node.child_by_field_name("name"))
            return [RawImport("self", name, name, line)]
        argument = node.child_by_field_name("argument")
        if argument is None:
            return []
        found: list[RawImport] = []
        _use_tree(argument, [], line, found)
        depth = _inline_module_depth(node)
        return [_within_file(imp, depth) for imp in found] if depth else found

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        if definition.kind == "function" and any(_TEST_ATTRIBUTE.match(d) for d in definition.decorators):
            return True, True
        if any(_TEST_MODULE_ATTRIBUTE.match(d) for d in definition.decorators):
            return True, False
        parent = definition.parent
        while parent is not None and parent.kind == CONTAINER_ONLY:  # an impl block is never classified
            parent = parent.parent
        return in_test_file or (parent is not None and parent.is_test), False

    def is_exported(self, definition: Definition) -> bool:
        node = definition.node
        if node.named_child_count and node.named_children[0].type == "visibility_modifier":
            return True
        parent = definition.parent
        if parent is None:
            return False
        if parent.kind == "trait":
            return self.is_exported(parent)
        return parent.kind == CONTAINER_ONLY and parent.node.child_by_field_name("trait") is not None

    def module_name(self, path: str) -> str:
        return path.removesuffix(".rs")

    def module_index(self, paths: Iterable[str]) -> CrateIndex:
        files = frozenset(paths)
        crates = {}
        for path in files:
            pure = PurePosixPath(path)
            if pure.name in CRATE_ROOTS:
                directory = pure.parent
                named = directory.parent if directory.name == SOURCE_DIR else directory
                crates[str(directory)] = named.name.replace("-", "_")
        return CrateIndex(files, crates)

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, CrateIndex)
        return _resolve_path(index, importer, imp.module.split(SEPARATOR) if imp.module else [])

    def resolve_member_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, CrateIndex)
        if imp.name in ("", "*"):
            return []
        segments = imp.module.split(SEPARATOR) if imp.module else []
        return _resolve_path(index, importer, [*segments, imp.name])

    def member_scope(self, path: str) -> str:
        return crate_scope(path)


def _use_tree(node: Node, prefix: list[str], line: int, out: list[RawImport]) -> None:
    """Flatten one ``use`` tree into the names it binds."""
    kind = node.type
    if kind == "use_list":
        for child in node.named_children:
            _use_tree(child, prefix, line, out)
    elif kind == "scoped_use_list":
        inner = [*prefix, *_segments(node.child_by_field_name("path"))]
        listed = node.child_by_field_name("list")
        if listed is not None:
            _use_tree(listed, inner, line, out)
    elif kind == "use_wildcard":
        path = [*prefix, *(s for c in node.named_children for s in _segments(c))]
        out.append(RawImport(SEPARATOR.join(path), "*", "*", line))
    elif kind == "use_as_clause":
        path = [*prefix, *_segments(node.child_by_field_name("path"))]
        out.append(_binding(path, node_text(node.child_by_field_name("alias")), line))
    else:
        path = [*prefix, *_segments(node)]
        out.append(_binding(path, "", line))


def _segments(node: Node | None) -> list[str]:
    return [s.strip() for s in node_text(node).split(SEPARATOR) if s.strip()]


def _binding(path: list[str], alias: str, line: int) -> RawImport:
    if path and path[-1] == "self":  # ``use a::b::{self}`` binds ``b``
        path = path[:-1]
    if not path:
        return RawImport("", "", alias, line)
    return RawImport(SEPARATOR.join(path[:-1]), path[-1], alias or path[-1], line)


def _inline_module_depth(node: Node) -> int:
    depth, parent = 0, node.parent
    while parent is not None:
        depth += parent.type == "mod_item"
        parent = parent.parent
    return depth


def _within_file(imp: RawImport, depth: int) -> RawImport:
    """Inside ``mod tests { }``, ``super::`` climbs to modules of the same file first."""
    segments = imp.module.split(SEPARATOR)
    climbed = 0
    while climbed < depth and segments and segments[0] == "super":
        segments.pop(0)
        climbed += 1
    if not climbed:
        return imp
    return imp._replace(module=SEPARATOR.join(["self", *segments]))


def _resolve_path(index: CrateIndex, importer: str, segments: list[str]) -> list[str]:
    """The file of module path ``segments`` as seen from ``importer``."""
    if not segments:
        return []
    root = index.crate_root(importer)
    start = _start(index, importer, root, segments[0])
    if start is None:
        return []
    file, directory = start
    for segment in segments[1:]:
        if segment == "super":
            directory = str(PurePosixPath(directory).parent)
            file = index.module_file(directory, is_root=directory == root)
        else:
            file = index.child(directory, segment)
            directory = _join(directory, segment)
        if file is None:
            return []
    return [file] if file is not None else []


def _start(index: CrateIndex, importer: str, root: str, head: str) -> tuple[str | None, str] | None:
    """Where a path's first segment points: (module file, directory of its children)."""
    here = module_dir(importer, root)
    if head == "crate":
        return index.module_file(root, is_root=True), root
    if head == "self":
        return importer, here
    if head == "super":
        parent = str(PurePosixPath(here).parent)
        return index.module_file(parent, is_root=parent == root), parent
    child = index.child(here, head)
    if child is not None:
        return child, _join(here, head)
    for directory, name in index.crates.items():
        if name == head:
            return index.module_file(directory, is_root=True), directory
    unnamed = [d for d, name in index.crates.items() if name == ""]
    if len(unnamed) == 1 and index.child(unnamed[0], head) is None:
        return index.module_file(unnamed[0], is_root=True), unnamed[0]
    return None


HOOKS = RustHooks()


def display_name(symbol: Symbol) -> str:
    """``Type::method``, ``module::function``: Rust's path separator."""
    return symbol.name.replace(".", SEPARATOR)
