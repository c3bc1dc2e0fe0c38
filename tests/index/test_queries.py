"""The query files' patterns, split without compiling them, and the lighter symbols-only pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path, registry
from mnemo_core.index.queries import roles, split_patterns, symbols_query

FIXTURES = Path(__file__).parent / "fixtures"
FROM_REFERENCES = {"body": "", "fields": (), "supers": (), "returns": ""}  # what symbols_only leaves out
PYTHON_TEST = b"""
import pytest
from app import Client, build


class TestClient:
    def test_get(self):
        assert Client().get() == 1


TestClient.load_cases("cases.txt")


def make():
    class TestBuilt:
        def test_one(self):
            assert build()
    return TestBuilt


make()
"""


def _unspaced(text: str) -> str:
    return re.sub(r"\s+", "", re.sub(r";[^\n]*", "", text))


@pytest.mark.parametrize("name", sorted(registry()))
def test_the_split_is_tree_sitters(name: str) -> None:
    spec = registry()[name]
    text = spec.query_text.encode()
    query = spec.query
    compiled = [
        text[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)].decode()
        for i in range(query.pattern_count)
    ]
    assert [_unspaced(p) for p in split_patterns(spec.query_text)] == [_unspaced(p) for p in compiled]


def test_comments_and_strings_do_not_split_a_pattern() -> None:
    text = '; header (\n(call) @a ; trailing ( [\n((string) @s (#eq? @s "(;\\")")) @reference.x\n'
    assert split_patterns(text) == ["(call) @a", '((string) @s (#eq? @s "(;\\")")) @reference.x']


@pytest.mark.parametrize("in_test_file", [False, True])
def test_the_symbols_query_keeps_definitions_imports_and_in_tests_calls(in_test_file: bool) -> None:
    spec = registry()["python"]
    _, found = symbols_query(spec, in_test_file)
    kinds = {(r.role, r.kind) for r in found.values()}
    full = {(r.role, r.kind) for r in roles(spec).values()}
    assert {r for r in full if r[0] in ("def", "import")} <= kinds
    assert {r for r in kinds if r[0] == "ref"} == ({("ref", "call")} if in_test_file else set())


PARAMETRIZED = (
    b"import pytest\n\n"
    b'@pytest.mark.parametrize("kind", [Upper(), Lower()])\n'
    b"def test_case(kind):\n    return kind\n"
)


def test_test_only_patterns_are_passed_over_outside_test_files() -> None:
    """One compiled query serves every file; outside a test file the matches of its test-only
    patterns are passed over, as a query with those patterns disabled would."""
    spec = registry()["python"]
    outside = roles(spec, in_test_file=False)
    assert (
        {p for p, r in roles(spec).items() if r.kind == "parametrize"}
        == {p for p, r in outside.items() if r != roles(spec)[p]}
        != set()
    )
    typed = {
        path: {(r.name, r.receiver) for r in extract(path, PARAMETRIZED, spec).refs if r.kind == "type"}
        for path in ("tests/test_kind.py", "pkg/kind.py")
    }
    assert typed == {"tests/test_kind.py": {("kind", "Upper | Lower")}, "pkg/kind.py": set()}


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and language_for_path(p.name) is not None)


@pytest.mark.parametrize("path", _fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_symbols_only_finds_the_same_symbols_and_imports(path: Path) -> None:
    _same_symbols(str(path.relative_to(FIXTURES)), path.read_bytes())


def test_symbols_only_classifies_a_test_module_as_the_full_pass_does() -> None:
    full = _same_symbols("tests/test_client.py", PYTHON_TEST)
    # the module builds test classes and its top-level code sets up TestClient: both read from calls
    assert {s.name for s in full.symbols if s.is_test_case} == {
        "tests.test_client",
        "TestClient",
        "TestClient.test_get",
    }


def _same_symbols(path: str, source: bytes):  # type: ignore[no-untyped-def]
    spec = language_for_path(path)
    assert spec is not None
    full, light = extract(path, source, spec), extract(path, source, spec, symbols_only=True)
    assert [s._replace(**FROM_REFERENCES) for s in light.symbols] == [
        s._replace(**FROM_REFERENCES) for s in full.symbols
    ]
    assert (light.imports, light.exports, light.parse_errors, light.refs) == (
        full.imports,
        full.exports,
        full.parse_errors,
        (),
    )
    return full
