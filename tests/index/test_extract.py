"""Extraction of Python files: symbols, qualified names, line ranges, references, imports."""

from __future__ import annotations

import textwrap

import pytest

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

SOURCE = textwrap.dedent('''\
    """Module doc."""
    import os.path as osp, sys
    from .models import User as U, Admin
    from . import views
    from ..base import *

    MAX_RETRIES = 3
    __all__ = ["A", "helper"]


    @decor(1)
    class A(B, metaclass=M):
        """Class doc.

        More.
        """

        def f(self, a: int = 2, *args, **kw) -> int:  # a comment
            """Method doc."""
            self.g().h(1)
            osp.join(a)

            def inner(x):
                return helper(x)

            return inner(a)


    def helper(x):
        # not a docstring
        return x
''')


@pytest.fixture(scope="module")
def extracted():
    spec = language_for_path("pkg/sample.py")
    assert spec is not None
    return extract("pkg/sample.py", SOURCE.encode(), spec)


def test_symbols_have_qualified_names_kinds_and_inclusive_line_ranges(extracted) -> None:
    got = [(s.name, s.kind, s.start_line, s.end_line) for s in extracted.symbols]
    assert got == [
        ("pkg.sample", "module", 1, 31),
        ("MAX_RETRIES", "constant", 7, 7),
        ("A", "class", 11, 26),
        ("A.f", "method", 18, 26),
        ("A.f.inner", "function", 23, 24),
        ("helper", "function", 29, 31),
    ]


def test_signatures_and_docstrings(extracted) -> None:
    by_name = {s.name: s for s in extracted.symbols}
    assert by_name["A.f"].signature == "def f(self, a: int = 2, *args, **kw) -> int"
    assert by_name["A"].signature == "class A(B, metaclass=M)"
    assert by_name["A"].docstring == "Class doc.\n\nMore."
    assert by_name["A.f"].docstring == "Method doc."
    assert by_name["helper"].docstring == ""
    assert by_name["pkg.sample"].docstring == "Module doc."
    assert by_name["A"].decorators == ("decor(1)",)
    assert by_name["A.f"].params == ("self", "a")


def test_references_are_scoped_to_the_innermost_definition(extracted) -> None:
    refs = {(r.kind, r.receiver, r.name, r.scope) for r in extracted.refs}
    assert ("call", "self", "g", "A.f") in refs
    assert ("call", "self.g()", "h", "A.f") in refs
    assert ("call", "osp", "join", "A.f") in refs
    assert ("call", "", "helper", "A.f.inner") in refs
    assert ("call", "", "inner", "A.f") in refs
    assert ("call", "", "decor", "A") in refs
    assert ("inherit", "", "B", "A") in refs
    metaclass = [(r.kind, r.name, r.scope) for r in extracted.refs if r.name == "M"]
    assert metaclass == [("call", "M", "A")], "metaclass= is not a base class: the class calls it"


def test_imports(extracted) -> None:
    got = [(i.module, i.name, i.alias, i.level) for i in extracted.imports]
    assert got == [
        ("os.path", "", "osp", 0),
        ("sys", "", "sys", 0),
        ("models", "User", "U", 1),
        ("models", "Admin", "Admin", 1),
        ("", "views", "views", 1),
        ("base", "*", "*", 2),
    ]
    assert extracted.exports == ("A", "helper")


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "tests/test_x.py",
            "def test_a():\n    pass\ndef helper():\n    pass\n",
            {"test_a": (True, True), "helper": (True, False)},
        ),
        (
            "tests/test_x.py",
            "class TestA:\n    def test_b(self):\n        pass\n    def setup(self):\n        pass\n",
            {"TestA": (True, False), "TestA.test_b": (True, True), "TestA.setup": (True, False)},
        ),
        (
            "test/test_include.py",
            "class IncludeTest:\n    def test_a(self):\n        pass\nclass LookupTests:\n"
            "    def test_b(self):\n        pass\nclass Latest:\n    def test_c(self):\n        pass\n",
            {
                "IncludeTest": (True, False),
                "IncludeTest.test_a": (True, True),
                "LookupTests.test_b": (True, True),
                "Latest.test_c": (True, False),
            },
        ),
        (
            "pkg/fixtures.py",
            "class FakeTest:\n    def test_a(self):\n        pass\n",
            {"FakeTest": (False, False), "FakeTest.test_a": (False, False)},
        ),
        (
            "pkg/checks.py",
            "import unittest\nclass Checks(unittest.TestCase):\n    def test_c(self):\n        pass\n",
            {"Checks": (True, False), "Checks.test_c": (True, True)},
        ),
        ("pkg/app.py", "def test_like_name():\n    pass\n", {"test_like_name": (True, False)}),
        ("conftest.py", "import pytest\n@pytest.fixture\ndef app():\n    return 1\n", {"app": (True, False)}),
    ],
)
def test_python_test_detection(path: str, source: str, expected: dict[str, tuple[bool, bool]]) -> None:
    spec = language_for_path(path)
    assert spec is not None
    symbols = {s.name: (s.is_test, s.is_test_case) for s in extract(path, source.encode(), spec).symbols}
    for name, flags in expected.items():
        assert symbols[name] == flags, name


def test_syntax_errors_keep_what_parses() -> None:
    spec = language_for_path("broken.py")
    assert spec is not None
    source = (
        b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self):\n        ok()\n"
    )
    result = extract("broken.py", source, spec)
    names = {s.name for s in result.symbols}
    assert {"ok", "Fine", "Fine.m"} <= names
    assert result.parse_errors > 0


def test_non_utf8_bytes_do_not_break_extraction() -> None:
    spec = language_for_path("latin.py")
    assert spec is not None
    result = extract("latin.py", "def caf\u00e9():\n    s = '\xe9t\xe9'\n".encode("latin-1"), spec)
    assert any(s.kind == "function" for s in result.symbols)


def test_getattr_on_self_is_no_module_attribute_read() -> None:
    source = (
        b"import mod\n\nclass A:\n    def f(self, name):\n"
        b"        return getattr(self, name), getattr(mod, name)\n"
    )
    found = extract("pkg/a.py", source, language_for_path("pkg/a.py"))
    reads = [(r.receiver, r.name) for r in found.refs if r.kind == "read"]
    assert reads == [("mod", "*")]  # a module's __getattr__ may serve it; self has no module attribute


def test_python_exports_are_public_names_of_public_classes() -> None:
    """A method is no more public than its class: ``_Writer.write`` is private, ``Writer.write`` and
    ``Writer.__init__`` are not; a function nested in another is never exported."""
    source = textwrap.dedent(
        """\
        class Writer:
            def __init__(self): pass
            def write(self): pass
            def _flush(self): pass

        class _Writer:
            def write(self): pass
            class Inner:
                def read(self): pass

        def outer():
            def inner(): pass
        """
    ).encode()
    spec = language_for_path("pkg/w.py")
    assert spec is not None
    exported = {
        s.name for s in extract("pkg/w.py", source, spec).symbols if s.exported and s.kind != "module"
    }
    assert exported == {"Writer", "Writer.__init__", "Writer.write", "outer"}


STRINGS = (
    b'A = "pkg.mod.f"\nB = \'pkg.mod:Cls\'\nC = """pkg.a.b"""\nD = r"pkg.raw.x"\nE = b"pkg.bytes.y"\n'
    b'F = f"pkg.f.{name}"\nG = f"pkg.fs.z"\nH = """pkg.a.b" """\nI = "pkg.a" "pkg.b"\nJ = "pkg.a""pkg.b"\n'
    b'# "pkg.in.comment"\nK = "two words.x"\nL = "\xff.pkg.x"\nM = ".pkg.x"\nN = "pkg..x"\nO = "pkg.x\\n"\n'
    b'P = {"k": "pkg.in.dict"}\nQ = call("pkg.arg", key="pkg.kw")\ndef f(:\n    "pkg.in.error"\n'
    + b"R = "
    + b"[" * 254
    + b'"deep.at.limit"'
    + b"]" * 254
    + b"\n"
    + b"S = "
    + b"[" * 255
    + b'"deep.past.limit"'
    + b"]" * 255
    + b"\n"
)


def test_strings_naming_dotted_paths_are_those_a_query_of_every_string_finds() -> None:
    """The source scan finds the strings a query of every one-piece string, filtered by the dotted
    path's shape and the query's depth bound, would (prefixes, triple quotes, interpolation,
    comments, bytes that are not UTF-8, errors, nesting past the bound)."""
    from tree_sitter import Query

    from mnemo_core.index import budget
    from mnemo_core.index.languages.base import DOTTED_PATH

    spec = language_for_path("pkg/s.py")
    assert spec is not None
    every = Query(spec.ts_language, "(string . (string_start) . (string_content) @name . (string_end)) @s")
    bounded = budget.parse_bounded(spec.parser, STRINGS)
    expected = {
        (found["s"][0].start_byte, text)
        for _, found in budget.cursor(every).matches(bounded.root)
        if DOTTED_PATH.fullmatch(text := (found["name"][0].text or b"").decode("utf-8", "replace"))
    }
    named = {r.name for r in extract("pkg/s.py", STRINGS, spec).refs if r.kind == "named"}
    scanned = {
        (s.start_byte, (c.text or b"").decode()) for s, c in spec.hooks.dotted_strings(bounded.root, STRINGS)
    }
    assert {"pkg.mod.f", "pkg.fs.z", "deep.at.limit"} <= {text for _, text in expected}
    assert "deep.past.limit" not in {text for _, text in expected}
    assert expected <= scanned
    assert {text.replace(":", ".") for _, text in expected} == named
