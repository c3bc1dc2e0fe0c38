"""Python: imports (absolute, relative, aliased, wildcard), docstrings, pytest and unittest tests."""

from __future__ import annotations

import ast
import builtins
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar

from tree_sitter import Node

from mnemo_core.index.discovery import DEFAULT_DISCOVERY, PytestDiscovery
from mnemo_core.index.languages.base import (
    DOTTED_PATH,
    Definition,
    Hooks,
    TestConventions,
    TestHookScope,
    file_name,
    name_spans,
    node_text,
    path_parts,
    reads_at,
)
from mnemo_core.model import CALLABLE_KINDS, RawImport, Symbol

_SUFFIXES = (".py", ".pyi")
_TEST_DIRS = frozenset({"test", "tests", "testing"})
# what test code does: assert, use a test framework or an assertion method
_TEST_CODE = re.compile(rb"^\s*assert\b|^\s*(?:from|import)\s+(?:pytest|unittest)\b|\.assert\w*\(", re.M)
# a decorator that makes a function a fixture (``@pytest.fixture``, ``@fixture(scope=...)``), not
# one that only mentions fixtures (``@pytest.mark.usefixtures(...)``)
_FIXTURE = re.compile(r"@?\s*(?:[\w.]*\.)?fixture\s*(?:\(|$)")
# the text between two quotes that is a dotted path: where a string may name one (``dotted_strings``)
# (a quote taken rather than looked behind: twice as fast, and a match ends before the next quote)
_QUOTED_PATH = re.compile(rb"['\"](" + DOTTED_PATH.pattern.encode() + rb")(?=['\"])")
_PLAIN_STRING = ["string_start", "string_content", "string_end"]  # a string of one piece: no interpolation
_CLASS_OBJECT = re.compile(r"\b[Tt]ype\[")  # ``type[Option]``, ``t.Optional[t.Type[Option]]``
_CONFTEST = "conftest.py"  # pytest's per-directory fixture module
_AUTOUSE = "autouse=True"  # a fixture pytest runs for every test in its scope
SELF_MODULE = ""  # with no leading dot and no name of its own: the importing module (a module-level alias)
# run by the test runner around each test (or class) of their class, and of their module
CLASS_TEST_HOOKS = frozenset(
    {
        *("setUp", "tearDown", "asyncSetUp", "asyncTearDown", "setUpClass", "tearDownClass"),
        *("setup_method", "teardown_method", "setup_class", "teardown_class"),
    }
)
MODULE_TEST_HOOKS = frozenset(
    {
        "setUpModule",
        "tearDownModule",
        "setup_module",
        "teardown_module",
        "setup_function",
        "teardown_function",
    }
)
TYPE_WRAPPERS = frozenset(
    {
        "Optional",
        "Union",
        "None",
        "Any",
        "List",
        "Dict",
        "Set",
        "FrozenSet",
        "Tuple",
        "Type",
        "Sequence",
        "Iterable",
        "Iterator",
        "Generator",
        "Mapping",
        "MutableMapping",
        "Callable",
        "ClassVar",
        "Final",
        "Annotated",
        "list",
        "dict",
        "set",
        "tuple",
        "type",
        "frozenset",
        "typing",
        "t",
    }
)


def _string_value(node: Node) -> str:
    text = node_text(node)
    for quote in ('"""', "'''", '"', "'"):
        start = text.find(quote)
        if start != -1 and text.endswith(quote) and len(text) >= start + 2 * len(quote):
            return text[start + len(quote) : len(text) - len(quote)]
    return text


def _first_string(block: Node | None) -> str:
    if block is None or block.named_child_count == 0:
        return ""
    first = block.named_child(0)  # not ``named_children``: a list of every statement's node
    if first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    if first.type != "string":
        return ""
    return _clean_docstring(_string_value(first))


def _clean_docstring(text: str) -> str:
    lines = text.expandtabs().splitlines()
    if not lines:
        return ""
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents, default=0)
    body = [lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]
    return "\n".join(body).strip()


def _identifier_field(node: Node, name: str) -> Node | None:
    """``node``'s child in field ``name`` when it is an identifier."""
    child = node.child_by_field_name(name)
    return child if child is not None and child.type == "identifier" else None


def _type_variable_bounds(call: Node) -> int:
    """How many ``bound=`` keywords naming a class (or its quoted name) a ``TypeVar(...)`` call has."""
    function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is None or function.type not in ("identifier", "attribute") or arguments is None:
        return 0
    if arguments.type != "argument_list" or not _TYPE_VARIABLE.search(node_text(function)):
        return 0
    return sum(
        1
        for keyword in arguments.named_children
        if keyword.type == "keyword_argument"
        and node_text(_identifier_field(keyword, "name")) == "bound"
        and (value := keyword.child_by_field_name("value")) is not None
        and value.type in ("identifier", "string")
    )


def _parameter_names(node: ast.expr) -> list[str]:
    """``"a, b"`` or ``("a", "b")`` -> ["a", "b"]."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _case_values(case: ast.expr, count: int) -> list[ast.expr]:
    """The values of one parametrised case, one per parameter (``pytest.param(a, b, id=...)``)."""
    if isinstance(case, ast.Call) and ast.unparse(case.func).rsplit(".", 1)[-1] == "param":
        case = ast.Tuple(elts=list(case.args))
    if count == 1:
        return [case]
    if isinstance(case, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in case.elts):
        return list(case.elts)
    return []


def _built_class(value: ast.expr) -> str:
    """The class a value is built as when it is a constructor call (``click.IntRange(0, 5)``), or
    the value itself when it names what may be a module (``click.core``: a lower-case dotted
    name; the resolver keeps the names that are modules)."""
    if isinstance(value, (ast.Name, ast.Attribute)) and _is_dotted(value):
        named = ast.unparse(value)
        return named if named.rsplit(".", 1)[-1][:1].islower() else ""
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return ""
    callee = ast.unparse(value.func)
    return callee if callee.rsplit(".", 1)[-1].lstrip("_")[:1].isupper() else ""


def _is_dotted(value: ast.expr) -> bool:
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name)


SRC_LAYOUT = "src"  # the directory a src-layout project keeps its packages in (not imported by name)


def module_parts(path: str) -> tuple[str, ...]:
    """``pkg/sub/mod.py`` -> ("pkg", "sub", "mod"); a package's ``__init__.py`` names the package."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return tuple(parts[:-1]) if stem == "__init__" else (*parts[:-1], stem)


def _assignment(statement: Node) -> Node | None:
    """The assignment a top-level statement is (``x = ...``, ``x: T = ...``), if it is one."""
    node = (
        statement.named_child(0)
        if statement.type == "expression_statement" and statement.named_child_count
        else statement
    )
    return node if node.type == "assignment" else None


_WORD_END = re.compile(rb"\b")  # a constant read by its name: the name is the whole word
_CONSTANT_ATTRIBUTE = re.compile(rb"\._*[A-Z][A-Z0-9_]*\b")  # ``net.TIMEOUT``: a module's constant
_HOLDS_ASSIGNMENTS = frozenset({"assignment", "augmented_assignment"})  # statements an assignment is in
_TYPE_VARIABLE = re.compile(r"^([A-Za-z_]+[.])?TypeVar$")  # ``TypeVar("T", bound=C)``, ``typing.TypeVar``
_TYPE_CHECKING = re.compile(r"^(?:\w+\.)?TYPE_CHECKING$")  # ``if typing.TYPE_CHECKING:`` (not ``if not ...``)


class PythonHooks(Hooks):
    """Hooks for Python."""

    wrapper_types = frozenset({"decorated_definition"})
    self_names = frozenset({"self", "cls"})
    builtin_names = frozenset(dir(builtins))
    builtin_methods = frozenset(
        name for kind in (dict, list, str, bytes, set, tuple, int, float, object) for name in dir(kind)
    ) - {"__init__", "__call__"}
    constructor_names = frozenset({"__init__", "__new__"})
    type_wrappers = TYPE_WRAPPERS
    property_decorators = frozenset({"property", "cached_property", "getter", "setter"})
    module_getattr = True
    imports_are_names = True
    neutral_bases = frozenset({"object", "Generic", "Protocol", "ABC", "NamedTuple", "TypedDict"})
    union_wrappers = frozenset({"Union", "Optional"})
    dispatch_entries: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "visit": ("visit_",),  # ast.NodeVisitor, ast.NodeTransformer
        "generic_visit": ("visit_",),
        "onecmd": ("do_", "help_", "complete_"),  # cmd.Cmd
        "cmdloop": ("do_", "help_", "complete_"),
        "handle": ("do_",),  # http.server.BaseHTTPRequestHandler
        "handle_one_request": ("do_",),
    }
    prefix_collectors: ClassVar[Mapping[str, str]] = {
        "yacc": "p_",  # PLY: a parser's grammar rules, one ``p_*`` function per production
        "lex": "t_",  # PLY: a lexer's token rules
    }

    def decorators(self, definition: Definition) -> tuple[str, ...]:
        outer = definition.outer
        if outer.type != "decorated_definition":
            return ()
        return tuple(node_text(c).lstrip("@").strip() for c in outer.named_children if c.type == "decorator")

    def docstring(self, definition: Definition) -> str:
        if definition.kind == "constant":
            return ""
        return _first_string(definition.node.child_by_field_name("body"))

    def holds_registry(self, definition: Node) -> bool:
        """A dict literal assigned at module level whose values name code (a function, a class or a
        dotted path: ``_plugins = {"table": "pkg.plugins.table.table"}``); not an empty cache, a
        table of numbers or of plain strings."""
        assignment = definition if definition.type == "assignment" else definition.named_child(0)
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if right is None or right.type != "dictionary":
            return False
        values = (pair.child_by_field_name("value") for pair in right.named_children if pair.type == "pair")
        return any(v is not None and _names_code(v) for v in values)

    def module_docstring(self, root: Node) -> str:
        """The module's docstring."""
        return _first_string(root)

    def constant_uses(
        self, root: Node, source: bytes, names: frozenset[str], modules: frozenset[str]
    ) -> list[tuple[int, int, str]]:
        plain = reads_at(root, source, name_spans(source, names, _WORD_END), _is_plain_read)
        attributes = name_spans(source, modules, _CONSTANT_ATTRIBUTE)
        return plain + reads_at(root, source, attributes, _is_attribute_read)

    def dotted_strings(self, root: Node, source: bytes) -> list[tuple[Node, Node]]:
        found = []
        for match in _QUOTED_PATH.finditer(source):
            start, end = match.span(1)
            content = root.descendant_for_byte_range(start, end)
            if content is None or content.type != "string_content" or content.end_byte != end:
                continue
            string = content.parent
            if string is None or string.type != "string":
                continue
            named = string.named_children
            if [n.type for n in named[:3]] == _PLAIN_STRING and named[1].start_byte == start:
                found.append((string, content))
        return found

    def parse_import(self, node: Node) -> list[RawImport]:
        line = node.start_point[0] + 1
        if node.type == "assignment":  # ``length = Length``: the module itself, ``SELF_MODULE``
            alias = node_text(node.child_by_field_name("left"))
            name = _aliased_name(node.child_by_field_name("right"))
            if name in ("", alias):
                return []
            return [RawImport(module=SELF_MODULE, name=name, alias=alias, line=line)]
        if node.type == "import_statement":
            return [
                imp
                for child in node.children_by_field_name("name")
                for imp in self._plain_import(child, line)
            ]
        if node.type != "import_from_statement":
            return []
        module_node = node.child_by_field_name("module_name")
        level, module = 0, node_text(module_node)
        if module_node is not None and module_node.type == "relative_import":
            prefix = next((c for c in module_node.children if c.type == "import_prefix"), None)
            level = len(node_text(prefix).strip())
            module = module.lstrip(".").strip()
        if any(c.type == "wildcard_import" for c in node.children):
            return [RawImport(module=module, name="*", alias="*", line=line, level=level)]
        result = []
        for child in node.children_by_field_name("name"):
            name, alias = self._name_alias(child)
            result.append(RawImport(module=module, name=name, alias=alias, line=line, level=level))
        return result

    def _plain_import(self, child: Node, line: int) -> list[RawImport]:
        """``import a.b`` binds ``a`` (and mnemo also keeps ``a.b``, the name code uses)."""
        name, alias = self._name_alias(child)
        imports = [RawImport(module=name, name="", alias=alias, line=line)]
        if alias == name and "." in name:
            top = name.split(".", 1)[0]
            imports.append(RawImport(module=top, name="", alias=top, line=line))
        return imports

    @staticmethod
    def _name_alias(child: Node) -> tuple[str, str]:
        if child.type == "aliased_import":
            name = node_text(child.child_by_field_name("name"))
            return name, node_text(child.child_by_field_name("alias"))
        name = node_text(child)
        return name, name

    def top_level_matches(self, root: Node) -> list[tuple[str, dict[str, list[Node]]]]:
        """The module's constants and module-level aliases (``length = Length``, ``T = TypeVar("T",
        bound=C)``: imports from the module itself), as the patterns ``(module (assignment left:
        (identifier) @name) @definition.constant)``, ``(module (expression_statement (assignment left:
        (identifier) @name)) @definition.constant)`` (a statement ``x = Y = 1``, ``x += Y = 1``: the
        grammar's expression statement is hidden, so the query saw the whole statement as one and its
        right-hand ``Y = 1`` as the assignment in it), ``(module (assignment left: (identifier) right:
        (identifier) !type) @import)`` and the type variable's (one match per ``bound`` keyword) match."""
        found: list[tuple[str, dict[str, list[Node]]]] = []
        if root.type != "module":
            return found
        for child in root.named_children:
            if child.type not in _HOLDS_ASSIGNMENTS:
                continue
            right = child.child_by_field_name("right")
            left = _identifier_field(child, "left") if child.type == "assignment" else None
            if left is not None:
                found.append(("definition.constant", {"name": [left], "definition.constant": [child]}))
            if right is not None and right.type == "assignment":
                inner = _identifier_field(right, "left")
                if inner is not None:
                    found.append(("definition.constant", {"name": [inner], "definition.constant": [child]}))
            if left is None or right is None:
                continue
            if right.type == "identifier" and child.child_by_field_name("type") is None:
                found.append(("import", {"import": [child]}))
            elif right.type == "call":
                found += [("import", {"import": [child]}) for _ in range(_type_variable_bounds(right))]
        return found

    def parametrized_types(self, names: str, values: str) -> list[tuple[str, str]]:
        try:
            pair = ast.parse(f"({names}, {values})", mode="eval").body
            if not isinstance(pair, ast.Tuple):
                return []  # the arguments closed the parenthesis themselves: not a literal pair
            name_node, value_node = pair.elts
        except (SyntaxError, ValueError, RecursionError):
            return []
        params = _parameter_names(name_node)
        built: dict[str, list[str]] = {p: [] for p in params}
        for case in value_node.elts if isinstance(value_node, (ast.List, ast.Tuple)) else ():
            args = _case_values(case, len(params))
            for param, arg in zip(params, args, strict=False):
                cls = _built_class(arg)
                if cls and cls not in built[param]:
                    built[param].append(cls)
        return [(p, " | ".join(classes)) for p, classes in built.items() if classes]

    def is_test_file(self, path: str, conventions: TestConventions = None) -> bool:
        return _in_test_place(path) or _pytest(conventions).collects_file(path)

    def runs_tests_in(self, path: str, conventions: TestConventions = None) -> bool | None:
        """Whether pytest collects ``path``, where ``python_files`` is set."""
        return _pytest(conventions).runs_tests_in(path)

    def holds_tests(self, path: str, source: bytes, conventions: TestConventions = None) -> bool:
        """A ``test_*.py`` module that only mnemo's default reading calls a test file (no ``python_files``
        setting, no test directory) holds tests only if it tests something: an ``assert``, a test
        framework, an assertion method. bandit's ``core/test_properties.py`` is the package's own code
        (the decorators its checks are written with), not a test."""
        discovery = _pytest(conventions)
        if _in_test_place(path) or (discovery.files is not None and discovery.collects_file(path)):
            return True
        return discovery.collects_file(path) and _TEST_CODE.search(source) is not None

    def classify_test(
        self,
        definition: Definition,
        in_test_file: bool,
        conventions: TestConventions = None,
        collected: bool | None = None,
    ) -> tuple[bool, bool]:
        """pytest's collection (its settings among the ``conventions``): functions it names, at the top
        of a collected file or in a class it names there; ``unittest.TestCase`` methods named ``test*``.
        A fixture never is one, whatever its name."""
        discovery = _pytest(conventions)
        name, parent = definition.name, definition.parent
        runs = in_test_file if collected is None else collected
        if in_function(definition):
            return in_test_file, False  # pytest collects what a module or a class at its top defines
        if definition.kind in CALLABLE_KINDS and not any(_FIXTURE.match(d) for d in definition.decorators):
            if parent is None and discovery.test_function(name):
                return True, runs
            if parent is not None and parent.kind == "class":
                if _is_testcase(parent) and name.startswith("test"):
                    return True, collected is not False  # a TestCase runs wherever it is collected
                if discovery.test_class(parent.name, runs) and discovery.test_function(name):
                    return True, True
        if definition.kind == "class" and (discovery.test_class(name, runs) or _is_testcase(definition)):
            return True, False
        return in_test_file, False

    def built_test(self, definition: Definition, conventions: TestConventions = None) -> bool:
        """A test class (or a test method of one) that a function builds: pytest collects it only
        where the module's top-level code publishes it (``globals()["TestX_" + name] = cls``)."""
        cls = definition if definition.kind == "class" else definition.parent
        discovery = _pytest(conventions)
        return (
            cls is not None
            and cls.kind == "class"
            and in_function(cls)
            and (discovery.test_class(cls.name, True) or _is_testcase(cls))
        )

    def is_exported(self, definition: Definition) -> bool:
        """A public name, of public classes only: not nested in a function, not a method of
        ``_PagerWriter`` (its ``write`` is no more public than the class)."""
        if definition.parent is not None and definition.parent.kind in CALLABLE_KINDS:
            return False
        outer: Definition | None = definition
        while outer is not None:
            name = outer.name
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                return False
            outer = outer.parent
        return True

    def private_statement(self, node: Node) -> bool:
        """Comments, ``if TYPE_CHECKING:`` blocks and assignments to a private name (``_cache = {}``;
        not a dunder such as ``__all__``). Imports are not private: ``from .core import Flask`` in a
        package's ``__init__`` is what ``from flask import Flask`` reads."""
        if super().private_statement(node):
            return True
        if node.type == "if_statement":
            return _TYPE_CHECKING.match(node_text(node.child_by_field_name("condition"))) is not None
        assignment = _assignment(node)
        target = assignment.child_by_field_name("left") if assignment is not None else None
        name = node_text(target) if target is not None and target.type == "identifier" else ""
        return name.startswith("_") and not name.endswith("__")

    def exports(self, root: Node) -> tuple[str, ...] | None:
        """Names listed in the module's ``__all__``, when it has one."""
        for child in root.named_children:
            node = _assignment(child)
            if node is None or node_text(node.child_by_field_name("left")) != "__all__":
                continue
            value = node.child_by_field_name("right")
            if value is None or value.type not in {"list", "tuple"}:
                return None
            return tuple(
                node_text(item).strip("\"'") for item in value.named_children if item.type == "string"
            )
        return None

    def holds_class(self, type_text: str) -> bool:
        """``type[Option]``, ``t.Optional[t.Type[Option]]``."""
        return _CLASS_OBJECT.search(type_text) is not None

    def is_fixture(self, decorators: tuple[str, ...]) -> bool:
        """A pytest fixture: ``@pytest.fixture``, ``@fixture(scope=...)``."""
        return any("fixture" in d for d in decorators)

    def runs_for_tests(self, symbol: Symbol, in_class: bool) -> TestHookScope | None:
        """unittest's and pytest's set-up and tear-down methods (``setUp``, ``setup_method``, ...),
        module functions (``setup_module``, ``setUpModule``, ...) and ``autouse`` fixtures: a
        conftest's for its directory."""
        if not symbol.is_test or symbol.kind not in CALLABLE_KINDS:
            return None
        if self.is_fixture(symbol.decorators) and any(
            _AUTOUSE in d.replace(" ", "") for d in symbol.decorators
        ):
            if in_class:
                return "class"
            return "directory" if PurePosixPath(symbol.path).name == _CONFTEST else "module"
        short = symbol.name.rsplit(".", 1)[-1]
        if in_class and short in CLASS_TEST_HOOKS:
            return "class"
        return "module" if not in_class and short in MODULE_TEST_HOOKS else None

    def fixture_files(self, path: str) -> tuple[str, ...]:
        """The test's own file, then the ``conftest.py`` of each directory above it, the nearest first."""
        found = [path]
        directory = path
        while "/" in directory:
            directory = directory.rsplit("/", 1)[0]
            found.append(f"{directory}/{_CONFTEST}")
        found.append(_CONFTEST)
        return tuple(found)

    def module_name(self, path: str) -> str:
        """The dotted name code imports it by: ``src/pkg/mod.py`` (a src layout) is ``pkg.mod``."""
        parts = module_parts(path)
        if len(parts) > 1 and parts[0] == SRC_LAYOUT:
            parts = parts[1:]
        return ".".join(parts) or PurePosixPath(path).stem

    def module_index(self, paths: Iterable[str]) -> ModuleIndex:
        """Every dotted suffix of every module path -> the files it may name."""
        index = ModuleIndex()
        for path in paths:  # repository paths: '/'-separated, relative, normalised (no PurePosixPath)
            directory, _, name = path.rpartition("/")
            if name.rsplit(".", 1)[0] == "__init__":
                index.packages.add(directory or ".")
            index.by_suffix.add(path)
        return index

    def resolve_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        assert isinstance(index, ModuleIndex)
        if imp.module == SELF_MODULE and not imp.level:
            return [importer]
        if imp.level:
            base = tuple(importer.split("/")[:-1])  # its directory's parts (a normalised path)
            base = base[: len(base) - (imp.level - 1)] if imp.level > 1 else base
            target = (*base, *imp.module.split(".")) if imp.module else base
            hits = index.by_suffix.get(".".join(target), [])
            return [p for p in hits if module_parts(p) == target][:1]
        wanted = tuple(imp.module.split("."))
        for path in index.by_suffix.get(imp.module, []):
            if index.is_import_root(module_parts(path)[: -len(wanted)]):
                return [path]
        return []

    def import_reading(self, importer: str, imp: RawImport) -> Hashable:
        if imp.module == SELF_MODULE and not imp.level:
            return importer, imp.name
        return importer.rpartition("/")[0] if imp.level else None, imp.module, imp.name, imp.level

    def submodule_paths(self, module_path: str, name: str, index: object) -> list[str]:
        assert isinstance(index, ModuleIndex)
        target = (*module_parts(module_path), name)
        return [p for p in index.by_suffix.get(".".join(target), []) if module_parts(p) == target][:1]

    def resolve_member_module(self, importer: str, imp: RawImport, index: object) -> list[str]:
        if not imp.name or imp.name == "*" or (imp.module == SELF_MODULE and not imp.level):
            return []
        dotted = f"{imp.module}.{imp.name}" if imp.module else imp.name
        return self.resolve_module(importer, RawImport(dotted, "", imp.alias, imp.line, imp.level), index)


class ModuleSuffixes:
    """Module paths by each dotted suffix of their module name (``pkg/sub/mod.py``: ``pkg.sub.mod``,
    ``sub.mod``, ``mod``), shallowest first, then ``.py`` before ``.pyi``. The paths are grouped by
    the module name's last word, and a group's suffixes listed when one ending in that word is first
    asked for: an update of one file asks for a few dozen, and listing every suffix of 18k files
    took 0.08 s (a whole resolution asks for most, and lists each group once)."""

    def __init__(self) -> None:
        self._by_word: dict[str, list[str]] = defaultdict(list)
        self._listed: dict[str, dict[str, list[str]]] = {}

    def add(self, path: str) -> None:
        parts = module_parts(path)
        if parts:
            self._by_word[parts[-1].rsplit(".", 1)[-1]].append(path)

    def get(self, suffix: str, default: list[str]) -> list[str]:
        """The paths ``suffix`` may name (not to be changed), else ``default``."""
        word = suffix.rsplit(".", 1)[-1]
        listed = self._listed.get(word)
        if listed is None:
            listed = self._listed[word] = defaultdict(list)
            for path in self._by_word.get(word, ()):
                parts = module_parts(path)
                for i in range(len(parts)):
                    listed[".".join(parts[i:])].append(path)
            for candidates in listed.values():
                candidates.sort(key=lambda p: (p.count("/"), p.endswith(".pyi"), p))
        return listed.get(suffix) or default


@dataclass
class ModuleIndex:
    """Python modules by every dotted suffix of their path, and the directories that are packages."""

    by_suffix: ModuleSuffixes = field(default_factory=lambda: ModuleSuffixes())
    packages: set[str] = field(default_factory=set)

    def is_import_root(self, prefix: tuple[str, ...]) -> bool:
        """Whether ``prefix`` can be on ``sys.path``: the repo root, or a directory that is not a
        package (``src/``, a ``tests/`` folder pytest inserts). Inside a package, ``import json``
        means the standard library, not the package's own ``json`` module."""
        return not prefix or "/".join(prefix) not in self.packages


def _names_code(value: Node) -> bool:
    """A dict value that names a function or class: a name, an attribute, or its dotted path in a
    string (``"pkg.plugins.table.table"``); not a plain string (``"_ServerDefaultType"``)."""
    if value.type in ("identifier", "attribute"):
        return True
    parts = [c for c in value.named_children if c.type != "string_start" and c.type != "string_end"]
    return (
        value.type == "string"
        and len(parts) == 1
        and parts[0].type == "string_content"
        and DOTTED_PATH.fullmatch(node_text(parts[0])) is not None
    )


def in_function(definition: Definition) -> bool:
    """Whether a definition is made inside a function (a class a function builds, and its methods)."""
    outer = definition.parent
    while outer is not None:
        if outer.kind in CALLABLE_KINDS:
            return True
        outer = outer.parent
    return False


def _is_testcase(definition: Definition) -> bool:
    return "TestCase" in node_text(definition.node.child_by_field_name("superclasses"))


HOOKS = PythonHooks()


# where an identifier is not a read of the name: ``obj.NAME``, ``f(NAME=1)``, import statements
_NOT_A_READ = {"attribute": "attribute", "keyword_argument": "name"}
_NOT_A_READ_IN = frozenset({"dotted_name", "aliased_import", "global_statement", "nonlocal_statement"})


def _is_attribute_read(node: Node, end: int) -> bool:
    """``net.TIMEOUT``: the whole attribute, not the start of a longer one."""
    return node.type == "attribute" and node.end_byte == end


def _is_plain_read(node: Node, _end: int) -> bool:
    """A name read as itself: not ``obj.NAME``, ``f(NAME=1)`` or part of an import statement."""
    if node.type != "identifier":
        return False
    parent = node.parent
    if parent is None:
        return True
    field_name = _NOT_A_READ.get(parent.type)
    if field_name is not None and parent.child_by_field_name(field_name) == node:
        return False
    return parent.type not in _NOT_A_READ_IN


def _in_test_place(path: str) -> bool:
    """A ``conftest.py``, or a file under a test directory: test code whatever its name."""
    return file_name(path) == "conftest.py" or any(part in _TEST_DIRS for part in path_parts(path))


def _aliased_name(right: Node | None) -> str:
    """The class name an alias binds: ``Length`` itself, or a type variable's bound (``bound=Command``,
    ``bound="Command"``); empty when the bound is anything else (a union, a dotted or generic type)."""
    if right is None or right.type != "call":
        return node_text(right)
    arguments = right.child_by_field_name("arguments")
    for argument in arguments.named_children if arguments is not None else ():
        if argument.type == "keyword_argument" and node_text(argument.child_by_field_name("name")) == "bound":
            value = argument.child_by_field_name("value")
            bound = _string_value(value) if value is not None and value.type == "string" else node_text(value)
            return bound if bound.isidentifier() else ""
    return ""


def _pytest(conventions: TestConventions) -> PytestDiscovery:
    """pytest's settings among a repository's test conventions (its defaults where there are none)."""
    return conventions if isinstance(conventions, PytestDiscovery) else DEFAULT_DISCOVERY
