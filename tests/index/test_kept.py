"""Dropping references before scoping (``possibly_kept``) drops only what extraction would drop."""

from __future__ import annotations

from pathlib import Path

import pytest

import mnemo_core.index.extract as extraction
from mnemo_core.index import kept
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

FIXTURES = Path(__file__).parent / "fixtures"
PYTHON = b"""
import os
from app import Client, handler


class Service:
    def __init__(self, store: Store):
        self.store = store
        self.client = Client()

    def run(self, items, other):
        if self.client.ready and other.flag:
            register(handler, unknown, self.run)
        for item in items:
            other.value = len(item) + len(self.store)
        result = make()
        return result.output, getattr(os, name), str(other)


ROUTES = {"a": handler, "b": missing}
"""
CASES = [(str(p.relative_to(FIXTURES)), p.read_bytes()) for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
CASES = [case for case in CASES if language_for_path(case[0]) is not None]
# names held back until the typed ones are known are compared as bytes when ASCII, as text otherwise
UNICODE = (
    "def f(été: Store, x):\n    été.size\n    été == x\n    g(été, hé)\n    y = Store()\n    y.été\n"
).encode() + b"    z\xff = Store()\n    z\xff.size\n    z\xfe.size\n    len(z\xfe)\n"
CASES += [("pkg/service.py", PYTHON), ("tests/test_service.py", PYTHON), ("pkg/unicode.py", UNICODE)]


@pytest.mark.parametrize(("path", "source"), CASES, ids=[c[0] for c in CASES])
def test_early_dropping_changes_no_extract(path: str, source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = language_for_path(path)
    assert spec is not None
    dropped_early = extract(path, source, spec)
    monkeypatch.setattr(
        extraction,
        "possibly_kept",
        lambda refs, _definitions, _imports, _hooks, _in_test, pending, source: (
            refs + [kept.pending_ref(ref, source) for ref in pending]
        ),
    )
    assert extract(path, source, spec) == dropped_early


def test_early_dropping_drops_reads_on_untyped_variables_and_unknown_values() -> None:
    spec = language_for_path("pkg/service.py")
    assert spec is not None
    refs = {(r.kind, r.name, r.receiver) for r in extract("pkg/service.py", PYTHON, spec).refs}
    assert ("read", "ready", "self.client") in refs and ("value", "handler", "") in refs
    assert not {("read", "flag", "other"), ("value", "unknown", ""), ("registered", "missing", "")} & refs
