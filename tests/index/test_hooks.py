"""The language hooks are the one place language specifics live: the language-neutral extraction
and resolution neither name a language nor import a language module's internals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path, registry
from mnemo_core.index.languages.base import Hooks

INDEX = Path(__file__).parents[2] / "mnemo_core" / "index"
NEUTRAL = [INDEX / "extract.py", *sorted((INDEX / "resolve").glob("*.py"))]
PYTHON_ONLY = ('"python"', '"conftest.py"', '"__all__"', '"Optional"', '"property"', "ype\\[")


@pytest.mark.parametrize("module", NEUTRAL, ids=lambda p: p.name)
def test_the_neutral_modules_name_no_python_specifics(module: Path) -> None:
    text = module.read_text(encoding="utf-8")
    assert [word for word in PYTHON_ONLY if word in text] == []


NOT_PYTHON = sorted(p for p in (INDEX / "languages").glob("*.py") if p.name != "python.py")


@pytest.mark.parametrize("module", NOT_PYTHON, ids=lambda p: p.name)
def test_only_the_python_hooks_know_pytest(module: Path) -> None:
    assert "discovery" not in module.read_text(encoding="utf-8").lower()


@pytest.mark.parametrize("name", sorted(registry()))
def test_a_language_module_loads_without_extraction(name: str) -> None:
    code = (
        "import importlib, importlib.util, sys\n"
        f"spec = importlib.util.find_spec('mnemo_core.index.languages.{name}')\n"
        f"spec and importlib.import_module('mnemo_core.index.languages.{name}')\n"
        "sys.exit('mnemo_core.index.extract' in sys.modules)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_default_hooks_have_no_fixtures_exports_or_wrappers() -> None:
    hooks = Hooks()
    assert hooks.fixture_files("tests/unit/test_a.py") == ()
    assert not hooks.is_fixture(("pytest.fixture",))
    assert hooks.type_wrappers == hooks.property_decorators == hooks.neutral_bases == frozenset()
    assert hooks.union_wrappers == frozenset() and not hooks.holds_class("type[Option]")


def test_python_fixtures_come_from_the_file_then_each_conftest_above_it() -> None:
    hooks = registry()["python"].hooks
    assert hooks.fixture_files("tests/unit/test_a.py") == (
        "tests/unit/test_a.py",
        "tests/unit/conftest.py",
        "tests/conftest.py",
        "conftest.py",
    )
    assert hooks.is_fixture(("pytest.fixture(scope='module')",))
    assert not hooks.is_fixture(("property",))


@pytest.mark.parametrize(
    ("path", "source", "exports"),
    [
        ("pkg/a.py", b"__all__ = ['f', \"g\"]\ndef f(): pass\n", ("f", "g")),
        ("pkg/b.py", b"def f(): pass\n", None),
        ("pkg/c.py", b"__all__ = names()\n", None),
        ("src/a.ts", b"export function f() {}\nconst __all__ = ['f'];\n", None),
    ],
)
def test_exports_are_declared_by_the_language(
    path: str, source: bytes, exports: tuple[str, ...] | None
) -> None:
    spec = language_for_path(path)
    assert spec is not None
    assert extract(path, source, spec).exports == exports
