"""The coverage map's file: rows per test and file, full and partial writes, bounds, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo_core.covmap import store
from mnemo_core.covmap.store import RecordedTest, decode_lines, encode_lines, open_map, reading
from mnemo_core.errors import MnemoError

C1 = "1" * 40


def _runs(*tests: tuple[str, str, dict[str, set[int]]]) -> list[RecordedTest]:
    return [RecordedTest(n, o, {p: frozenset(ls) for p, ls in f.items()}, recorded=100) for n, o, f in tests]


def test_lines_round_trip() -> None:
    assert decode_lines(encode_lines([7, 3, 100000])) == {3, 7, 100000}


def test_a_map_reads_like_per_test_coverage_data(tmp_path: Path) -> None:
    path = tmp_path / "map.db"
    with open_map(path) as m:
        m.write(
            C1, _runs(("t.py::a", "passed", {"x.py": {1, 2}}), ("t.py::b", "failed", {"x.py": {2}})), True
        )
    with reading(path) as m:
        assert m.commit == C1
        assert m.measured_files() == {"x.py"}
        assert m.measured_contexts() == {"t.py::a", "t.py::b"}
        assert {k: sorted(v) for k, v in m.contexts_by_lineno("x.py").items()} == {
            1: ["t.py::a"],
            2: ["t.py::a", "t.py::b"],
        }
        assert m.tests_in_file("x.py") == {"t.py::a", "t.py::b"}
        assert set(m.failures()) == {"t.py::b"}


def test_a_partial_write_replaces_only_its_tests_and_a_full_one_everything(tmp_path: Path) -> None:
    path = tmp_path / "map.db"
    with open_map(path) as m:
        m.write(C1, _runs(("a", "failed", {"x.py": {1}}), ("b", "passed", {"x.py": {2}})), True)
        m.write(C1, _runs(("a", "passed", {"y.py": {5}})), False)
        assert {r.nodeid: dict(r.files) for r in m.runs()} == {"a": {"y.py": {5}}, "b": {"x.py": {2}}}
        assert set(m.failures()) == {"a"}  # it failed before: the ordering still knows
        with pytest.raises(MnemoError, match="numbered at"):
            m.write("2" * 40, _runs(("a", "passed", {})), False)
        m.write("2" * 40, _runs(("c", "passed", {"z.py": {1}})), True)
        assert [r.nodeid for r in m.runs()] == ["c"] and m.commit == "2" * 40


def test_merging_keeps_the_most_recent_row_of_each_test(tmp_path: Path) -> None:
    path = tmp_path / "map.db"
    newer = RecordedTest("a", "passed", {"new.py": frozenset({1})}, recorded=200)
    older = RecordedTest("a", "passed", {"old.py": frozenset({1})}, recorded=100)
    with open_map(path) as m:
        m.write(C1, [newer], False)
        assert m.write(C1, [older], False, newer_only=True) == 0
        assert [dict(r.files) for r in m.runs()] == [{"new.py": {1}}]


def test_a_map_too_big_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_MAP_BYTES", 10)
    with open_map(tmp_path / "map.db") as m, pytest.raises(MnemoError, match="more than the 10"):
        m.write(C1, _runs(("a", "passed", {"x.py": set(range(1000))})), True)


@pytest.mark.parametrize("content", [b"", b"not sqlite at all" * 100])
def test_a_file_that_is_no_map_is_an_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "map.db"
    path.write_bytes(content)
    with pytest.raises(MnemoError, match="not a coverage map"), reading(path):
        pass


def test_a_missing_map_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MnemoError, match="cannot read the coverage map"), reading(tmp_path / "none.db"):
        pass
