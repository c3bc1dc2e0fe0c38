"""Each vocabulary is defined once (``mnemo_core.model``) and everything that emits or names one of
its words stays inside it: the query files, the extractors, the resolver, the index, the risk verdict."""

from __future__ import annotations

import re
import shutil
import sqlite3
from importlib import resources
from pathlib import Path

import pytest

from mnemo_core.config import FAIL_ON_LEVELS
from mnemo_core.index.extract import extract
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.languages import registry
from mnemo_core.index.languages.base import CONTAINER_ONLY
from mnemo_core.index.resolve import CONFIDENCE
from mnemo_core.model import EDGE_TYPES, REF_KINDS, RESOLUTIONS, RISK_LEVELS, SYMBOL_KINDS
from mnemo_core.render_review import RISK_ICONS

QUERIES = resources.files("mnemo_core.index.languages")
FIXTURES = Path(__file__).parent / "fixtures"
_CAPTURE = re.compile(r"@(definition|reference)\.(\w+)")


def _captured(role: str) -> set[str]:
    found = set()
    for entry in QUERIES.iterdir():
        if entry.name.endswith(".scm"):
            text = entry.read_text(encoding="utf-8")
            found |= {kind.removeprefix("test_") for r, kind in _CAPTURE.findall(text) if r == role}
    return found


def test_every_kind_a_query_captures_is_in_the_vocabulary() -> None:
    definitions, references = _captured("definition"), _captured("reference")
    assert definitions and references
    assert definitions <= {*SYMBOL_KINDS, CONTAINER_ONLY}
    assert references <= set(REF_KINDS)


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_language_loads_against_the_vocabulary(name: str) -> None:
    spec = registry()[name]
    found = extract(f"src/a{spec.extensions[0]}", b"", spec)
    assert [s.kind for s in found.symbols] == ["module"]


def test_a_query_kind_outside_the_vocabulary_is_refused() -> None:
    spec = registry()["python"]
    broken = type(spec)(  # Python's grammar, a query with a kind mnemo does not know
        name="broken",
        grammar=spec.grammar,
        extensions=(".py",),
        query_text="(function_definition name: (identifier) @name) @definition.procedure",
    )
    with pytest.raises(ValueError, match=r"definition\.procedure"):
        extract("a.py", b"def f(): pass\n", broken)


def test_the_index_stores_only_vocabulary_words(tmp_path: Path) -> None:
    for language in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        shutil.copytree(FIXTURES / language, tmp_path / language, ignore=shutil.ignore_patterns("*.json"))
    index_repo(tmp_path)
    db = sqlite3.connect(tmp_path / ".mnemo" / "index.db")
    try:
        kinds = {k for (k,) in db.execute("SELECT DISTINCT kind FROM symbols")}
        types = {t for (t,) in db.execute("SELECT DISTINCT type FROM edges")}
        resolutions = {r for (r,) in db.execute("SELECT DISTINCT resolution FROM edges")}
    finally:
        db.close()
    assert {"module", "function", "method", "class"} <= kinds <= set(SYMBOL_KINDS)
    assert {"calls", "imports", "inherits"} <= types <= set(EDGE_TYPES)
    assert {"local", "import", "self"} <= resolutions <= set(RESOLUTIONS)


def test_every_resolution_and_risk_level_has_its_entry() -> None:
    assert set(CONFIDENCE) == set(RESOLUTIONS)
    assert set(RISK_ICONS) == set(RISK_LEVELS)
    assert FAIL_ON_LEVELS[: len(RISK_LEVELS)] == RISK_LEVELS
