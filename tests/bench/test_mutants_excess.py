"""The mutation benchmark's excess by rule, read from a real `mnemo tests` answer on a stale map."""

from __future__ import annotations

from pathlib import Path

import pytest
from covmap_helpers import CALC, change, project, run_pytest

from bench.impact.mutants_excess import STATIC, excess_by_rule, excess_lines, rule_of
from mnemo_core.cli import main

SUITE = [
    "tests/test_calc.py::test_add",
    "tests/test_calc.py::test_clamp",
    "tests/test_calc.py::test_double",
    "tests/test_calc.py::test_big",
    "tests/test_calc.py::TestMore::test_small",
    "tests/test_calc.py::TestMore::test_tiny",
    "tests/test_loader.py::test_load",
]


def _answer(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["tests", "HEAD~1", "--repo", str(repo), "--no-memory", *args]) == 0
    return capsys.readouterr().out


def test_the_items_beyond_the_exact_coverage_are_counted_by_the_rule_that_chose_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = project(tmp_path / "repo")
    assert run_pytest(repo, "--mnemo-record").returncode == 0
    calc_tests = (repo / "tests" / "test_calc.py").read_text()
    # no call the static graph reads: only its class's peers say what it may run
    tiny = (
        "\n    def test_tiny(self):\n        from pkg import calc\n\n"
        '        assert getattr(calc, "cla" + "mp")(1) == 1\n'
    )
    change(repo, {"tests/test_calc.py": calc_tests + tiny}, "a test added since the map")
    change(repo, {"src/pkg/calc.py": CALC.replace("return LIMIT\n", "return LIMIT - 1\n")})
    ids = _answer(repo, capsys).split()
    answer = _answer(repo, capsys, "--format", "json")
    # at the base, the line ran in test_clamp and test_big; the map's evidence adds TestMore::test_small
    # (it ran clamp), and test_tiny is new since the map, beside it
    exact = {"tests/test_calc.py::test_clamp", "tests/test_calc.py::test_big"}
    found = excess_by_rule(answer, ids, exact, SUITE)
    assert found == {"ran the changed symbol (map)": 1, "added since the map": 1}
    rows = [{"stale": {"exact": 2.0}, "covering": 2, "stale_excess": found}]
    lines = excess_lines("stale", rows)
    assert lines[0].startswith("stale excess by rule over 1 mutants (median 2.00x")
    assert "  added since the map: 1 items in 1 mutants; median without it 1.50x" in lines


def test_a_reason_no_rule_names_is_the_static_graphs() -> None:
    assert rule_of("calls clamp") == STATIC
    caller = "ran Checker.run, which calls Checker.NEW, new since the coverage data (coverage data)"
    assert rule_of(caller) == "a caller of code new since ran"
