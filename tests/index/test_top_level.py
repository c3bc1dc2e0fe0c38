"""Module-level constants and aliases (Python, Go, JavaScript and TypeScript), found from the file
root's children instead of by query patterns rooted at it: the same matches as those patterns give."""

from __future__ import annotations

import pytest
from tree_sitter import Node, Query

from mnemo_core.index import budget
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

# the patterns ``PythonHooks.top_level_matches`` stands for (python.scm held them until session 45)
ROOTED_AT_MODULE = """
(module (assignment left: (identifier) @name) @definition.constant)
(module (expression_statement (assignment left: (identifier) @name)) @definition.constant)
(module (assignment left: (identifier) right: (identifier) !type) @import)
(module (assignment left: (identifier) right: (call function: [(identifier) (attribute)] @_typevar
  arguments: (argument_list (keyword_argument name: (identifier) @_bound value: [(identifier) (string)])))
  (#match? @_typevar "^([A-Za-z_]+[.])?TypeVar$") (#eq? @_bound "bound")) @import)
"""
SOURCES = [
    b"X = 1\nY: int = 2\nz = 3\n",
    b"a = B = C\nD = E = F = 1\nx: int = Y = 3\na += B = 1\na, b = C = D\na = b.c = D = 1\n",
    b"length = Length\nAlias: TypeAlias = Other\nx = y.z\nn = (M := 3)\n",
    b"T = TypeVar('T', bound=C)\nU = typing.TypeVar('U', bound='D')\nV = TypeVar('V', int, str)\n"
    b"W = TypeVar('W', bound=C, bound=D)\nZ = t.x.TypeVar('Z', bound=C)\nQ = TypeVar('Q', bound=f())\n",
    b"if x:\n    A = 1\ndef f():\n    B = 2\nclass K:\n    C = 3\n",
    b"X = (\n",  # broken: an error node at the top
    b"",
]


Matches = list[tuple[str, dict[str, list[Node]]]]


def _named(found: Matches) -> list[tuple[str, list[tuple[str, bytes | None]]]]:
    return [(capture, [(k, n.text) for k, v in sorted(c.items()) for n in v]) for capture, c in found]


def _hook_gives_what_the_patterns_matched(path: str, patterns: str, source: bytes, imports_from: int) -> None:
    """The language's ``top_level_matches`` equals the old ``patterns``' matches (those from pattern
    ``imports_from`` on are imports, the others constants; the captures named with ``_`` aside)."""
    spec = language_for_path(path)
    assert spec is not None
    root = spec.parser.parse(source).root_node
    expected: Matches = [
        ("import" if pattern >= imports_from else "definition.constant", captures)
        for pattern, captures in budget.cursor(Query(spec.ts_language, patterns)).matches(root)
    ]
    expected = [(capture, {k: v for k, v in c.items() if not k.startswith("_")}) for capture, c in expected]
    assert _named(spec.hooks.top_level_matches(root)) == _named(expected)


@pytest.mark.parametrize("source", SOURCES)
def test_the_module_s_children_give_what_the_patterns_matched(source: bytes) -> None:
    _hook_gives_what_the_patterns_matched("m.py", ROOTED_AT_MODULE, source, imports_from=2)


def test_chained_constants_and_aliases_are_extracted() -> None:
    spec = language_for_path("m.py")
    assert spec is not None
    source = b"import typing\nBASE = OTHER = 1\nlength = Length\nT = typing.TypeVar('T', bound=Base)\n"
    found = extract("m.py", source, spec)
    assert [s.name for s in found.symbols if s.kind == "constant"] == ["BASE", "T"]
    assert [(i.name, i.alias) for i in found.imports if i.alias in ("length", "T")] == [
        ("Length", "length"),
        ("Base", "T"),
    ]


# the patterns ``GoHooks.top_level_matches`` stands for (go.scm held them until session 46)
ROOTED_AT_SOURCE_FILE = """
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.constant)))
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
"""
GO_SOURCES = [
    b"package p\nvar X = 1\nvar a, b int\nconst C = 2\nconst D, e = 3, 4\n",
    b"package p\nvar (\n\tA = 1\n\tb, c = 2, 3 // two\n)\nconst (\n\tK = iota\n\tL\n)\nvar _ = f()\n",
    b"package p\nfunc f() {\n\tvar x = 1\n\tconst y = 2\n}\ntype T struct{}\nvar T2 T\n",
    b"package p\nvar (\n",  # broken: an error node at the top
    b"",
]


@pytest.mark.parametrize("source", GO_SOURCES)
def test_go_s_file_children_give_what_the_patterns_matched(source: bytes) -> None:
    _hook_gives_what_the_patterns_matched("m.go", ROOTED_AT_SOURCE_FILE, source, imports_from=3)


def test_go_s_package_level_names_are_extracted() -> None:
    spec = language_for_path("m.go")
    assert spec is not None
    source = b"package p\nvar (\n\tA = 1\n\tb, c = 2, 3\n)\nconst K = 4\nfunc f() { var x = 1; _ = x }\n"
    found = extract("m.go", source, spec)
    assert [s.name for s in found.symbols if s.kind == "constant"] == ["A", "b", "K"]


# the patterns ``EcmaScriptHooks.top_level_matches`` stands for (_ecmascript.scm held them until session 46)
_CONSTANT_VALUE = """[(number) (string) (template_string) (object) (array) (true) (false) (regex)
  (unary_expression) (binary_expression) (member_expression) (call_expression) (new_expression)]"""
ROOTED_AT_PROGRAM = f"""
(program (lexical_declaration (variable_declarator name: (identifier) @name value: {_CONSTANT_VALUE}))
  @definition.constant)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name
  value: {_CONSTANT_VALUE})) @definition.constant))
"""
ECMASCRIPT_SOURCES = [
    ("m.js", b"const A = 1, b = f(), c = () => 1, D = new E();\nlet x = y.z;\nvar V = 2;\n"),
    ("m.js", b"export const LIMIT = 10, { a } = o;\nexport default 3;\nfunction f() { const X = 1; }\n"),
    ("m.ts", b"export const T: number = -1;\nconst S = `s` as const;\nconst R = /r/, Q = [1];\n"),
    ("m.tsx", b"const el = <div />;\nconst N = a + b;\n// c\nconst M = {};\n"),
    ("m.js", b"const X = (\n"),  # broken: an error node at the top
    ("m.js", b""),
]


@pytest.mark.parametrize(("path", "source"), ECMASCRIPT_SOURCES)
def test_a_program_s_children_give_what_the_patterns_matched(path: str, source: bytes) -> None:
    _hook_gives_what_the_patterns_matched(path, ROOTED_AT_PROGRAM, source, imports_from=2)
