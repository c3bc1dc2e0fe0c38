"""What resolution keeps per file (a variable's classes, a name's lookup, a parameter's fixture)
serves that file only: files alike in every scope, variable and parameter name resolve each to
their own targets, in one process and one run."""

from __future__ import annotations

from pathlib import Path

from helpers import indexed_edges, write_files

from mnemo_core.index.indexer import index_repo

# two packages written alike: the same scope (``go``), variable (``x``), imported alias (``Thing``)
# and fixture parameter (``thing``), each bound to its own package's class or fixture
ALIKE = {
    f"{p}/{name}": text
    for p, cls in (("a", "Foo"), ("b", "Bar"))
    for name, text in {
        "__init__.py": "",
        "models.py": (
            f"class {cls}:\n    def run(self):\n        return 1\n\n"
            f"    def __len__(self):\n        return 0\n"
        ),
        "use.py": (
            f"from {p}.models import {cls} as Thing\n\n"
            "def go():\n    x = Thing()\n    x.run()\n    return len(x)\n"
        ),
        "tests/conftest.py": (
            f"import pytest\nfrom {p}.models import {cls}\n\n"
            f"@pytest.fixture\ndef thing():\n    return {cls}()\n"
        ),
        "tests/test_it.py": "def test_it(thing):\n    thing.run()\n",
    }.items()
}


def test_files_alike_in_every_name_resolve_each_to_their_own_targets(tmp_path: Path) -> None:
    write_files(tmp_path, ALIKE)
    index_repo(tmp_path)
    calls = {(s, d) for s, d, _ in indexed_edges(tmp_path, "calls")}
    for own, cls, other in (("a", "Foo", "Bar"), ("b", "Bar", "Foo")):
        mine = {d for s, d in calls if s.startswith(f"{own}/")}
        assert f"{own}/models.py:{cls}.run" in {d for s, d in calls if s == f"{own}/use.py:go"}
        assert f"{own}/models.py:{cls}.__len__" in {d for s, d in calls if s == f"{own}/use.py:go"}
        assert (f"{own}/tests/test_it.py:test_it", f"{own}/tests/conftest.py:thing") in calls
        assert (f"{own}/tests/test_it.py:test_it", f"{own}/models.py:{cls}.run") in calls
        assert not any(other in d for d in mine)
