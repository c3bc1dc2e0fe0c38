"""Hooks shared by JavaScript, TypeScript and TSX: ES and CommonJS imports, Node/TS module
resolution, JSDoc, decorators, and Jest/Mocha/Vitest tests.

A test suite or case is the callback of ``describe(...)`` / ``it(...)`` / ``test(...)``, named by
its description; the query makes it a definition, these hooks classify it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node

from mnemo_core.index.languages.base import (
    TEST_DIRS,
    Definition,
    Hooks,
    TestConventions,
    node_text,
    path_parts,
)
from mnemo_core.model import CLASS_KINDS, RawImport

# Resolution order for an import written without its file's extension (TypeScript first, as tsc does).
SOURCE_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# TypeScript imports name the compiled file (``./user.js``) while the source is ``user.ts``.
COMPILED_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")
_LONGEST_SUFFIX_FIRST = sorted(SOURCE_SUFFIXES, key=len, reverse=True)  # ``.d.ts`` before ``.ts``
INDEX_STEM = "index"
PATH_ALIASES = {"@/": "src/", "~/": "src/"}  # the usual tsconfig ``paths`` / bundler aliases
SOURCE_ROOT = "src"  # a tsconfig ``baseUrl`` of ``src`` lets ``components/x`` name ``src/components/x``
WORKSPACE_ROOTS = ("packages", "apps", "libs")  # where npm, pnpm and yarn workspaces usually keep packages
TEST_CASE_CALLS = frozenset({"it", "test", "specify"})
TEST_CALLS = TEST_CASE_CALLS | {"describe", "context", "suite"}  # a callback handed to these is test code
_TEST_FILE = re.compile(r"\.(?:test|spec)\.[cm]?[jt]sx?$")
_CALLBACK_TYPES = frozenset({"arrow_function", "function_expression"})
_DECLARATION_TYPES = frozenset({"lexical_declaration", "variable_declaration"})
_FIELD_TYPES = frozenset({"field_definition", "public_field_definition"})
_PARAMETER_WRAPPERS = frozenset({"required_parameter", "optional_parameter"})
_HIDDEN_ACCESS = frozenset({"private", "protected"})
_COMMONJS_EXPORT = "expression_statement"  # the only definition the query captures as a statement

GLOBAL_FUNCTIONS = frozenset(
    {
        "Array",
        "Boolean",
        "Buffer",
        "Date",
        "Error",
        "JSON",
        "Map",
        "Math",
        "Number",
        "Object",
        "Promise",
        "Proxy",
        "Reflect",
        "RegExp",
        "Set",
        "String",
        "Symbol",
        "TypeError",
        "WeakMap",
        "WeakSet",
        "alert",
        "clearInterval",
        "clearTimeout",
        "console",
        "decodeURIComponent",
        "document",
        "encodeURIComponent",
        "fetch",
        "isFinite",
        "isNaN",
        "parseFloat",
        "parseInt",
        "process",
        "queueMicrotask",
        "require",
        "setImmediate",
        "setInterval",
        "setTimeout",
        "structuredClone",
        "window",
        # test runners' globals
        "afterAll",
        "afterEach",
        "beforeAll",
        "beforeEach",
        "context",
        "describe",
        "expect",
        "it",
        "jest",
        "specify",
        "suite",
        "test",
        "vi",
    }
)
BUILTIN_METHODS = frozenset(
    {
        "add",
        "all",
        "apply",
        "assign",
        "bind",
        "call",
        "catch",
        "clear",
        "concat",
        "debug",
        "delete",
        "emit",
        "endsWith",
        "entries",
        "error",
        "every",
        "filter",
        "finally",
        "find",
        "findIndex",
        "flat",
        "flatMap",
        "forEach",
        "freeze",
        "get",
        "has",
        "includes",
        "indexOf",
        "info",
        "join",
        "keys",
        "log",
        "map",
        "match",
        "on",
        "once",
        "parse",
        "pop",
        "push",
        "race",
        "reduce",
        "reject",
        "replace",
        "resolve",
        "reverse",
        "set",
        "shift",
        "slice",
        "some",
        "sort",
        "splice",
        "split",
        "startsWith",
        "stringify",
        "then",
        "toLowerCase",
        "toString",
        "toUpperCase",
        "trim",
        "unshift",
        "valueOf",
        "values",
        "warn",
    }
)


# the values of a module's variable that make it a constant worth naming (not a function's)
CONSTANT_VALUES = frozenset(
    {
        "number",
        "string",
        "template_string",
        "object",
        "array",
        "true",
        "false",
        "regex",
        "unary_expression",
        "binary_expression",
        "member_expression",
        "call_expression",
        "new_expression",
    }
)


@dataclass(frozen=True)
class ModuleIndex:
    """The repo's JavaScript/TypeScript files and the directories that hold them."""

    paths: frozenset[str]
    directories: frozenset[str]

    def find(self, base: str) -> list[str]:
        """The file an extension-less module path names, the way Node and tsc look it up."""
        stem, suffix = posixpath.splitext(base)
        candidates = [base] if suffix else []
        if suffix in COMPILED_SUFFIXES:
            candidates += [stem + s for s in SOURCE_SUFFIXES]
        candidates += [base + s for s in SOURCE_SUFFIXES]
        candidates += [f"{base}/{INDEX_STEM}{s}" for s in SOURCE_SUFFIXES]
        return next(([c] for c in candidates if c in self.paths), [])


def _string_value(node: Node | None) -> str:
    return node_text(node)[1:-1] if node is not None else ""


def _call_name(call: Node) -> str:
    """``it`` for ``it(...)``, ``it.only(...)`` and ``it.each(table)(...)``."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "call_expression":
        function = function.child_by_field_name("function")
    if function is not None and function.type == "member_expression":
        function = function.child_by_field_name("object")
    return node_text(function)


def _test_call(node: Node) -> Node | None:
    """The ``describe``/``it`` call whose callback ``node`` is."""
    parent = node.parent
    if node.type in _CALLBACK_TYPES and parent is not None and parent.type == "arguments":
        return parent.parent
    return None


def _function_node(node: Node) -> Node:
    """The function a definition holds: itself, or the value of ``const f = () => ...``."""
    if node.type in _DECLARATION_TYPES:
        declarator = node.named_children[0] if node.named_child_count else None
        value = declarator.child_by_field_name("value") if declarator is not None else None
        return value if value is not None else node
    if node.type in _FIELD_TYPES:
        return node.child_by_field_name("value") or node
    return node


def _param_name(node: Node) -> str:
    if node.type in _PARAMETER_WRAPPERS:
        node = node.child_by_field_name("pattern") or node
    elif node.type == "assignment_pattern":
        node = node.child_by_field_name("left") or node
    return node_text(node) if node.type == "identifier" else ""


_DECLARATIONS = frozenset(
    {"lexical_declaration", "variable_declaration", "type_alias_declaration", "interface_declaration"}
)


def _declared(node: Node) -> set[str]:
    """The names a declaration binds (``const a = 1, b = 2``; ``type T = ...``)."""
    name = node.child_by_field_name("name")
    if name is not None:
        return {node_text(name)}
    return {
        node_text(n)
        for d in node.named_children
        if d.type == "variable_declarator" and (n := d.child_by_field_name("name")) is not None
    }


def _exported_names(root: Node) -> set[str]:
    """The local names ``export { a, b as c }`` statements of a module export."""
    return {
        node_text(spec.child_by_field_name("name"))
        for statement in root.named_children
        if statement.type == "export_statement"
        for clause in statement.named_children
        if clause.type == "export_clause"
        for spec in clause.named_children
        if spec.type == "export_specifier" and spec.child_by_field_name("name") is not None
    }


class EcmaScriptHooks(Hooks):
    """Hooks for JavaScript, TypeScript and TSX."""

    wrapper_types = frozenset({"export_statement"})
    decorator_types = frozenset({"decorator"})
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    constructor_names = frozenset({"constructor"})
    builtin_names = GLOBAL_FUNCTIONS
    builtin_methods = BUILTIN_METHODS
    module_family = "ecmascript"

    def top_level_matches(self, root: Node) -> list[tuple[str, dict[str, list[Node]]]]:
        """The module's constants, as the patterns ``(program (lexical_declaration (variable_declarator
        name: (identifier) @name value: [...])) @definition.constant)`` and the same in an
        ``export_statement``: one match per declarator whose value is a literal or an expression of
        ``CONSTANT_VALUES``."""
        found: list[tuple[str, dict[str, list[Node]]]] = []
        if root.type != "program":
            return found
        for child in root.named_children:
            declarations = child.named_children if child.type == "export_statement" else [child]
            for declaration in declarations:
                if declaration.type == "lexical_declaration":
                    found += [
                        ("definition.constant", {"name": [name], "definition.constant": [declaration]})
                        for name in _constant_names(declaration)
                    ]
        return found

    def outer(self, node: Node) -> Node:
        call = _test_call(node)
        if call is None:
            return super().outer(node)
        statement = call.parent
        return statement if statement is not None and statement.type == "expression_statement" else call

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        found = [n for n in self.leading_siblings(definition.outer) if n.type == "decorator"]
        holders = {definition.outer.id: definition.outer, definition.node.id: definition.node}
        for holder in holders.values():  # ``@Component() export class X`` or ``@Component() class X``
            found += holder.children_by_field_name("decorator")
        return tuple(node_text(n).lstrip("@") for n in found)

    def params(self, definition: Definition) -> tuple[str, ...]:
        function = _function_node(definition.node)
        single = function.child_by_field_name("parameter")
        if single is not None:
            return (node_text(single),)
        params = function.child_by_field_name("parameters")
        if params is None:
            return ()
        return tuple(name for name in map(_param_name, params.named_children) if name)

    def parse_import(self, node: Node) -> list[RawImport]:
        line = node.start_point[0] + 1
        if node.type in _DECLARATION_TYPES:
            return [
                imp
                for d in node.named_children
                if d.type == "variable_declarator"
                for imp in _require(d, line)
            ]
        source = _string_value(node.child_by_field_name("source"))
        if node.type == "export_statement":
            return _reexports(node, source, line)
        result: list[RawImport] = []
        for clause in node.named_children:
            if clause.type == "import_require_clause":
                alias = node_text(clause.named_children[0])
                result.append(RawImport(_string_value(clause.child_by_field_name("source")), "", alias, line))
            elif clause.type == "import_clause":
                result += _import_clause(clause, source, line)
        return result or [RawImport(source, "", "", line)]

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return bool(_TEST_FILE.search(path)) or any(part in TEST_DIRS for part in path_parts(path))

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        call = _test_call(definition.node)
        name = _call_name(call) if call is not None else None
        if name in TEST_CALLS:  # a named callback handed to anything else is product code
            return True, name in TEST_CASE_CALLS
        return in_test_file or (definition.parent is not None and definition.parent.is_test), False

    def is_exported(self, definition: Definition) -> bool:
        parent = definition.parent
        if parent is None:  # ``export ...``, or CommonJS ``exports.name = function ...``
            return definition.outer.type == "export_statement" or definition.node.type == _COMMONJS_EXPORT
        if parent.kind not in CLASS_KINDS or definition.name.startswith("#"):
            return False
        hidden = any(
            c.type == "accessibility_modifier" and node_text(c) in _HIDDEN_ACCESS
            for c in definition.node.named_children
        )
        return not hidden and self.is_exported(parent)

    def private_statement(self, node: Node) -> bool:
        """Comments, imports and declarations the module does not export (``const re = /x/;``,
        ``type Shape = ...``): an exported one is an ``export`` statement."""
        if node.type in _DECLARATIONS and node.parent is not None:
            return not _declared(node) & _exported_names(node.parent)  # ``const a = 1; export { a };``
        return node.type == "import_statement" or super().private_statement(node)

    def exports_names(self, node: Node) -> bool:
        """``export { a }``, ``export { a } from "./x"``, ``export * from "./x"``: names only."""
        return node.type == "export_statement" and not any(
            node.child_by_field_name(field) for field in ("declaration", "value")
        )

    def module_name(self, path: str) -> str:
        pure = PurePosixPath(path)
        suffix = next((s for s in _LONGEST_SUFFIX_FIRST if pure.name.endswith(s)), "")
        stem = pure.name[: len(pure.name) - len(suffix)]
        if stem == INDEX_STEM and pure.parent.parts:
            return str(pure.parent)
        return str(pure.parent / stem)

    def module_index(self, paths: Iterable[str]) -> ModuleIndex:
        files = frozenset(paths)
        directories = frozenset(str(parent) for path in files for parent in PurePosixPath(path).parents)
        return ModuleIndex(files, directories)

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, ModuleIndex)
        spec = imp.module
        if spec.startswith("."):
            base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
            return [] if base.startswith("..") else index.find(base)
        for alias, root in PATH_ALIASES.items():
            if spec.startswith(alias):
                return index.find(root + spec[len(alias) :])
        head = spec.split("/", 1)[0]
        if head in index.directories:
            return index.find(spec)
        if f"{SOURCE_ROOT}/{head}" in index.directories:
            return index.find(f"{SOURCE_ROOT}/{spec}")
        return _workspace_package(spec, index)


def _workspace_package(spec: str, index: ModuleIndex) -> list[str]:
    """A monorepo's own package imported by its name (``zod/v4``, ``@acme/ui/button``): the directory
    of that name under a workspace root (``packages/zod``), its sources under ``src/`` or beside it."""
    parts = spec.split("/")
    name, sub = (parts[1], parts[2:]) if spec.startswith("@") and len(parts) > 1 else (parts[0], parts[1:])
    for root in WORKSPACE_ROOTS:
        base = f"{root}/{name}"
        if base not in index.directories:
            continue
        for where in (f"{base}/{SOURCE_ROOT}", base):
            found = index.find("/".join([where, *sub]))
            if found:
                return found
    return []


def _import_clause(clause: Node, source: str, line: int) -> list[RawImport]:
    result = []
    for child in clause.named_children:
        if child.type == "identifier":  # a default import: usually the exported name itself
            result.append(RawImport(source, node_text(child), node_text(child), line))
        elif child.type == "namespace_import":
            result.append(RawImport(source, "", node_text(child.named_children[0]), line))
        elif child.type == "named_imports":
            result += _specifiers(child, "import_specifier", source, line)
    return result


def _specifiers(node: Node, kind: str, source: str, line: int) -> list[RawImport]:
    result = []
    for spec in node.named_children:
        if spec.type != kind:
            continue
        name = node_text(spec.child_by_field_name("name"))
        alias = spec.child_by_field_name("alias")
        result.append(RawImport(source, name, node_text(alias) if alias is not None else name, line))
    return result


def _reexports(node: Node, source: str, line: int) -> list[RawImport]:
    """``export {a as b} from``, ``export * from`` and ``export * as ns from``."""
    for child in node.named_children:
        if child.type == "export_clause":
            return _specifiers(child, "export_specifier", source, line)
        if child.type == "namespace_export":
            return [RawImport(source, "", node_text(child.named_children[0]), line)]
    return [RawImport(source, "*", "*", line)]


def _require(declarator: Node, line: int) -> list[RawImport]:
    """``const x = require('m')`` and ``const {a, b: c} = require('m')``."""
    value = declarator.child_by_field_name("value")
    args = value.child_by_field_name("arguments") if value is not None else None
    if args is None or not args.named_child_count or args.named_children[0].type != "string":
        return []
    source = _string_value(args.named_children[0])
    target = declarator.child_by_field_name("name")
    if target is None:
        return []
    if target.type == "identifier":
        return [RawImport(source, "", node_text(target), line)]
    result = []
    for item in target.named_children:
        if item.type == "shorthand_property_identifier_pattern":
            result.append(RawImport(source, node_text(item), node_text(item), line))
        elif item.type == "pair_pattern":
            key, value_node = item.child_by_field_name("key"), item.child_by_field_name("value")
            result.append(RawImport(source, node_text(key), node_text(value_node), line))
    return result


def _constant_names(declaration: Node) -> list[Node]:
    """The names a ``const``/``let`` declaration gives values of ``CONSTANT_VALUES``."""
    found = []
    for declarator in declaration.named_children:
        name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
        if (
            declarator.type == "variable_declarator"
            and name is not None
            and name.type == "identifier"
            and value is not None
            and value.type in CONSTANT_VALUES
        ):
            found.append(name)
    return found
