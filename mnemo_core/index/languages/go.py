"""Go: import paths to package directories, receivers, package scope, ``go test`` functions.

An import path names a directory of the repository when the path ends with that directory: the
rest of the path is the module path (``github.com/acme/shop/internal/store`` ->
``internal/store``). go.mod is not read (hooks see paths, not contents), so a one-segment match
must be the whole directory path, and paths under the standard library's roots never match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from mnemo_core.index.languages._packages import PackageIndex, package_index
from mnemo_core.index.languages.base import (
    Definition,
    Hooks,
    TestConventions,
    alternatives,
    clean_comment,
    name_spans,
    node_text,
    reads_at,
    reads_matching,
)
from mnemo_core.model import RawImport, Symbol

TEST_SUFFIX = "_test.go"
UNNAMED_RECEIVER = "_"
SPECS = frozenset({"type_spec", "var_spec", "const_spec"})  # one declaration of a ``type``/``var``/``const``
_DECLARED_BY = {  # a parent whose field names its own identifier: a declaration, not a read
    "var_spec": "name",
    "const_spec": "name",
    "parameter_declaration": "name",
    "function_declaration": "name",
}
_TEST_FUNCTION = re.compile(r"^(?:Test|Benchmark|Example|Fuzz)(?:[A-Z0-9_]|$)")
_MAJOR_VERSION = re.compile(r"^v\d+$")
_VERSION_SUFFIX = re.compile(r"\.v\d+$")
_EXPORTED = rb"[A-Z][A-Za-z0-9_]*"  # an exported name as a bytes pattern (ASCII; ``\b`` bounds it)
# a whole word that is an exported name, not right after a ``.`` (there the grammar has a selector's
# field or a qualified type's name, never a bare identifier: half of a Go file's capitalised words)
_EXPORTED_WORD = re.compile(rb"(?<!\.)\b" + _EXPORTED + rb"\b")
_WORD_END = re.compile(rb"\b")  # a name read bare: the name is the whole word
_EXPORTED_ATTRIBUTE = re.compile(rb"\." + _EXPORTED + rb"\b")  # ``mux.ErrNotFound``: a package's export
_WORD = re.compile(rb"[A-Za-z0-9_]+")  # a name that ``\b`` sees as one word
STDLIB_ROOTS = frozenset(
    {
        "archive",
        "bufio",
        "bytes",
        "cmp",
        "compress",
        "container",
        "context",
        "crypto",
        "database",
        "debug",
        "embed",
        "encoding",
        "errors",
        "expvar",
        "flag",
        "fmt",
        "go",
        "hash",
        "html",
        "image",
        "index",
        "io",
        "iter",
        "log",
        "maps",
        "math",
        "mime",
        "net",
        "os",
        "path",
        "plugin",
        "reflect",
        "regexp",
        "runtime",
        "slices",
        "sort",
        "strconv",
        "strings",
        "structs",
        "sync",
        "syscall",
        "testing",
        "text",
        "time",
        "unicode",
        "unique",
        "unsafe",
        "weak",
    }
)
BUILTINS = frozenset(
    {
        "append",
        "cap",
        "clear",
        "close",
        "complex",
        "copy",
        "delete",
        "imag",
        "len",
        "make",
        "max",
        "min",
        "new",
        "panic",
        "print",
        "println",
        "real",
        "recover",
        "any",
        "bool",
        "byte",
        "complex128",
        "complex64",
        "error",
        "float32",
        "float64",
        "int",
        "int16",
        "int32",
        "int64",
        "int8",
        "rune",
        "string",
        "uint",
        "uint16",
        "uint32",
        "uint64",
        "uint8",
        "uintptr",
    }
)
# Methods of the standard library's everyday types (testing.T, error, fmt.Stringer, sync, io):
# a call to one on an unknown receiver is not linked by name to a repo type's method.
BUILTIN_METHODS = frozenset(
    {
        "Cleanup",
        "Close",
        "Done",
        "Error",
        "Errorf",
        "Fail",
        "FailNow",
        "Fatal",
        "Fatalf",
        "Helper",
        "Lock",
        "Log",
        "Logf",
        "Parallel",
        "Read",
        "Run",
        "Skip",
        "Skipf",
        "String",
        "TempDir",
        "Unlock",
        "Wait",
        "Write",
    }
)


def package_names(import_path: str) -> tuple[str, ...]:
    """The names a package may be used by when imported without an alias: its last path element
    without a ``.vN`` suffix or ``go-`` prefix; for a final ``vN`` element, both ``vN`` (an API
    version package) and the element before it (a module's major version)."""
    segments = import_path.split("/")
    names = [segments[-1]]
    if _MAJOR_VERSION.match(segments[-1]) and len(segments) > 1:
        names.append(segments[-2])
    return tuple(
        _VERSION_SUFFIX.sub("", n).removeprefix("go-").removesuffix("-go").replace("-", "_") for n in names
    )


class GoHooks(Hooks):
    """Hooks for Go."""

    self_names = frozenset()
    super_names = frozenset()
    receiver_is_first_param = True
    builtin_names = BUILTINS
    builtin_methods = BUILTIN_METHODS
    constants_any_case = True

    def outer(self, node: Node) -> Node:
        parent = node.parent
        if node.type in SPECS and parent is not None and parent.named_child_count == 1:
            return parent  # ``type T struct``, ``var X = ...``: the declaration with its keyword
        return node

    def top_level_matches(self, root: Node) -> list[tuple[str, dict[str, list[Node]]]]:
        """The package-level variables and constants, as the patterns ``(source_file (var_declaration
        (var_spec name: (identifier) @name) @definition.constant))``, the same through a
        ``var_spec_list`` and ``(source_file (const_declaration (const_spec name: (identifier) @name)
        @definition.constant))``: one match per name of a variable's spec; a constant's spec matched
        by its first name only (the query's engine found no later ``name`` of a ``const_spec``, where
        the grammar writes its names as one field: ``const a, b = 1, 2`` defines ``a``)."""
        found: list[tuple[str, dict[str, list[Node]]]] = []
        if root.type != "source_file":
            return found
        for child in root.named_children:
            if child.type == "var_declaration":
                specs = [s for c in child.named_children for s in _specs(c, "var_spec", "var_spec_list")]
            elif child.type == "const_declaration":
                specs = [c for c in child.named_children if c.type == "const_spec"]
            else:
                continue
            for spec in specs:
                names = spec.children_by_field_name("name") if spec.type == "var_spec" else _first_name(spec)
                for name in names:
                    if name.type == "identifier":
                        found.append(("definition.constant", {"name": [name], "definition.constant": [spec]}))
        return found

    def constant_uses(
        self, root: Node, source: bytes, names: frozenset[str], modules: frozenset[str]
    ) -> list[tuple[int, int, str]]:
        """A package-level constant read by bare name: one of this file's (``names``), or an exported
        one of the package's other files (a capitalised name, resolved in the package); and an
        imported package's exported one (``mux.ErrNotFound``)."""
        if all(_WORD.fullmatch(n.encode()) for n in names):
            # each match is a whole word (an exported name or one of ``names``): found with patterns
            # compiled once, not one compiled per file's names (that compilation cost most of the scan)
            spans = sorted(
                {m.span() for m in _EXPORTED_WORD.finditer(source)} | {*name_spans(source, names, _WORD_END)}
            )
            found = reads_at(root, source, spans, _is_bare_read)
        else:  # a name ``\b`` does not see as one word: the alternatives' order decides, as written
            found = reads_matching(
                root, source, rb"\b(?:" + alternatives(names) + rb"|" + _EXPORTED + rb")\b", _is_bare_read
            )
        if modules:
            found += reads_at(
                root, source, name_spans(source, modules, _EXPORTED_ATTRIBUTE), _is_package_read
            )
        return found

    def params(self, definition: Definition) -> tuple[str, ...]:
        node = definition.node
        names: list[str] = []
        receiver = node.child_by_field_name("receiver")
        if receiver is not None and receiver.named_child_count:
            name = receiver.named_children[0].child_by_field_name("name")
            names.append(node_text(name) if name is not None else UNNAMED_RECEIVER)
        params = node.child_by_field_name("parameters")
        for param in params.named_children if params is not None else ():
            names.extend(node_text(n) for n in param.children_by_field_name("name"))
        return tuple(names)

    def parse_import(self, node: Node) -> list[RawImport]:
        specs = [c for c in node.named_children if c.type == "import_spec"]
        for group in (c for c in node.named_children if c.type == "import_spec_list"):
            specs += [c for c in group.named_children if c.type == "import_spec"]
        result = []
        for spec in specs:
            path = node_text(spec.child_by_field_name("path")).strip('"`')
            name = spec.child_by_field_name("name")
            line = spec.start_point[0] + 1
            if name is not None and name.type == "dot":
                result.append(RawImport(path, "*", "*", line))
            elif name is not None and name.type == "blank_identifier":
                result.append(RawImport(path, "", "", line))
            else:
                aliases = (node_text(name),) if name is not None else package_names(path)
                result.extend(RawImport(path, "", alias, line) for alias in aliases)
        return result

    def module_docstring(self, root: Node) -> str:
        """The package comment above the ``package`` clause."""
        clause = next((c for c in root.named_children if c.type == "package_clause"), None)
        if clause is None:
            return ""
        comments = [c for c in self.leading_siblings(clause) if c.type in self.comment_types]
        return clean_comment("\n".join(node_text(c) for c in comments))

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return path.endswith(TEST_SUFFIX)

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        if in_test_file and definition.kind == "function" and _TEST_FUNCTION.match(definition.name):
            return True, True
        return in_test_file, False

    def is_exported(self, definition: Definition) -> bool:
        return definition.name[:1].isupper()

    def module_name(self, path: str) -> str:
        return path.removesuffix(".go")

    def module_index(self, paths: Iterable[str]) -> PackageIndex:
        return package_index(p for p in paths if not p.endswith(TEST_SUFFIX))

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, PackageIndex)
        segments = imp.module.split("/")
        if "." not in segments[0] and segments[0] in STDLIB_ROOTS:
            return []
        for i in range(1, len(segments)):
            suffix = "/".join(segments[i:])
            found = [d for d in index.by_suffix.get(suffix, ()) if d == suffix or "/" in suffix]
            if found:
                best = max(found, key=lambda d: (_shared_prefix(d, importer), -len(d)))
                return sorted(index.files[best])
        return []

    def shares_package_scope(self) -> bool:
        return True

    def private_statement(self, node: Node) -> bool:
        return node.type == "import_declaration" or super().private_statement(node)

    def member_scope(self, path: str) -> str:
        return self.package_of(path)


def _is_bare_read(node: Node, _end: int) -> bool:
    """A name read as a value: not declared, not called (``New(...)`` is a call), not a struct's key."""
    parent = node.parent
    if node.type != "identifier" or parent is None:
        return False
    if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return False
    field = _DECLARED_BY.get(parent.type)
    if field is not None and node in parent.children_by_field_name(field):
        return False
    return parent.type not in {"short_var_declaration", "keyed_element", "labeled_statement"}


def _is_package_read(node: Node, end: int) -> bool:
    """``mux.ErrNotFound`` as a value: the whole selector, not the function of a call."""
    parent = node.parent
    called = (
        parent is not None
        and parent.type == "call_expression"
        and parent.child_by_field_name("function") == node
    )
    return node.type == "selector_expression" and node.end_byte == end and not called


def _shared_prefix(directory: str, importer: str) -> int:
    """How many leading path components two paths share (the closest package wins)."""
    count = 0
    for a, b in zip(directory.split("/"), importer.split("/"), strict=False):
        if a != b:
            break
        count += 1
    return count


HOOKS = GoHooks()


def display_name(symbol: Symbol) -> str:
    """``pkg.Type.Method``: the package is the file's directory (none for a file at the root)."""
    directory = symbol.path.rpartition("/")[0]
    package = directory.rpartition("/")[2]
    return f"{package}.{symbol.name}" if package else symbol.name


def _specs(node: Node, spec: str, spec_list: str) -> list[Node]:
    """``node`` itself when it is a ``spec``, the ``spec`` children of a ``spec_list``, else none."""
    if node.type == spec:
        return [node]
    if node.type == spec_list:
        return [c for c in node.named_children if c.type == spec]
    return []


def _first_name(spec: Node) -> list[Node]:
    name = spec.child_by_field_name("name")
    return [] if name is None else [name]
