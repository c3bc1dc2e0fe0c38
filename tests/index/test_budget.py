"""The bounds on one file's query: depth and cost (``mnemo_core/index/budget.py``)."""

from __future__ import annotations

import time

import pytest

from mnemo_core.index import budget
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

NESTED_DEEP = 5000  # f(f(f(...))) this deep took 47 s to index before the bounds
SPLIT_SECONDS = 5.0  # what the bounded extraction of such a file may take on a loaded machine (~0.1 s)


def nested(depth: int) -> str:
    return "x = " + "f(\n" * depth + "1" + ")" * depth + "\n"


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("deep.py", f"def before():\n    return 1\n\n{nested(NESTED_DEEP)}\ndef after():\n    return 2\n"),
        (
            "deep.js",
            "function before() { return 1; }\nx = "
            + "f(" * NESTED_DEEP
            + "1"
            + ")" * NESTED_DEEP
            + ";\nfunction after() { return 2; }\n",
        ),
        (
            "deep.go",
            "package p\n\nfunc before() int { return 1 }\n\nvar x = "
            + "f(" * NESTED_DEEP
            + "1"
            + ")" * NESTED_DEEP
            + "\n\nfunc after() int { return 2 }\n",
        ),
    ],
)
def test_a_file_nested_thousands_deep_is_indexed_around_the_nesting_quickly(path: str, source: str) -> None:
    spec = language_for_path(path)
    assert spec is not None
    started = time.perf_counter()
    found = extract(path, source.encode(), spec)
    assert time.perf_counter() - started < SPLIT_SECONDS
    assert found.partial == f"nested deeper than {budget.MAX_QUERY_DEPTH} levels"
    names = {s.name for s in found.symbols}
    assert {"before", "after"} <= names
    assert any(r.name == "f" for r in found.refs)  # the calls near the top are still read


def test_code_as_deep_as_real_code_is_whole() -> None:
    spec = language_for_path("app.py")
    assert spec is not None
    found = extract("app.py", (nested(60) + "def g():\n    return f(1)\n").encode(), spec)
    assert found.partial == ""
    assert "g" in {s.name for s in found.symbols}


def test_a_file_too_costly_to_query_whole_is_indexed_up_to_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = language_for_path("many.py")
    assert spec is not None
    source = "".join(f"def f{i}(x):\n    return g{i}(x)\n\n\n" for i in range(400)).encode()
    whole = extract("many.py", source, spec)
    assert whole.partial == "" and len(whole.symbols) == 401  # the module and 400 functions
    monkeypatch.setattr(budget, "MAX_QUERY_WORK", 4000)
    cut = extract("many.py", source, spec)
    line = int(cut.partial.rsplit(" ", 1)[-1])
    assert cut.partial == f"too large to query whole: indexed up to line {line}"
    kept = [s for s in cut.symbols if s.kind == "function"]
    assert 0 < len(kept) < 400
    assert all(s.end_line <= line for s in kept)
    assert [s.name for s in kept] == [f"f{i}" for i in range(len(kept))]  # a prefix of the file
    assert cut.symbols[0].end_line == whole.symbols[0].end_line  # the module is the whole file still
