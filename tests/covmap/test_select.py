"""Selection from a coverage map recorded by a real pytest run: a change, then `mnemo tests`."""

from __future__ import annotations

from pathlib import Path

import pytest
from covmap_helpers import CALC, change, run_pytest

from mnemo_core.cli import main

CALC_TESTS = [
    "tests/test_calc.py::test_add",
    "tests/test_calc.py::test_clamp",
    "tests/test_calc.py::test_double",
    "tests/test_calc.py::test_big",
    "tests/test_calc.py::TestMore::test_small",
]


def _selected(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[str], str]:
    assert main(["tests", *args, "--repo", str(repo), "--no-memory"]) in (0, 5)  # 5: nothing selected
    out = capsys.readouterr()
    return out.out.split(), out.err


def test_the_tests_that_ran_a_changed_line_come_first(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change(repo, {"src/pkg/calc.py": CALC.replace("return LIMIT\n", "return LIMIT - 1\n")})
    tests, err = _selected(repo, capsys, "HEAD~1")
    # test_clamp and test_big ran `return LIMIT`; TestMore ran clamp, not that line
    assert sorted(tests[:2]) == ["tests/test_calc.py::test_big", "tests/test_calc.py::test_clamp"]
    assert tests[2:] == ["tests/test_calc.py::TestMore::test_small"]
    assert "coverage map" in err


def test_a_function_called_through_another_selects_its_tests(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(repo, {"src/pkg/calc.py": CALC.replace("return a + b", "return b + a")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert sorted(tests) == ["tests/test_calc.py::test_add", "tests/test_calc.py::test_double"]


def test_a_changed_data_file_selects_everything(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change(repo, {"src/pkg/data.json": '{"k": 2}\n'})
    tests, err = _selected(repo, capsys, "HEAD~1")
    assert sorted(tests) == sorted([*CALC_TESTS, "tests/test_loader.py::test_load"])
    assert "every test selected by the coverage map's rules: src/pkg/data.json changed" in err


def test_documentation_selects_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change(repo, {"README.md": "# demo, described\n"})
    assert _selected(repo, capsys, "HEAD~1")[0] == []


def test_a_changed_conftest_selects_the_tests_under_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conftest = "import pytest\n\n\n@pytest.fixture\ndef big():\n    return 1000\n"
    change(repo, {"tests/conftest.py": conftest})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert tests == ["tests"]  # its directory, which pytest runs whole
    collected = run_pytest(repo, "--collect-only", *tests).stdout
    assert "6 tests collected" in collected, collected


def test_module_level_code_selects_the_tests_that_ran_the_file(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change(repo, {"src/pkg/calc.py": CALC.replace("LIMIT = 10", "LIMIT = 5")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert sorted(tests) == sorted(CALC_TESTS)  # not test_load: it never ran calc.py


def test_a_deleted_function_selects_the_tests_that_ran_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calc = CALC.replace("def double(x):\n    return add(x, x)\n\n\n", "")
    change(repo, {"src/pkg/calc.py": calc})
    assert _selected(repo, capsys, "HEAD~1")[0] == ["tests/test_calc.py::test_double"]


def test_a_test_added_since_the_map_runs_with_what_it_might_reach(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hidden = 'from pkg import calc\n\n\ndef test_hidden():\n    assert getattr(calc, "un" + "used")(1) == 1\n'
    change(repo, {"tests/test_hidden.py": hidden}, "a test the map has not seen")
    change(
        repo,
        {"src/pkg/calc.py": CALC.replace("def unused(x):\n    return x", "def unused(x):\n    return x * 1")},
    )
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert tests == ["tests/test_hidden.py::test_hidden"]  # no test of the map ran unused


def test_without_a_map_the_static_graph_answers(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".mnemo" / "coverage-map.db").unlink()
    change(repo, {"src/pkg/calc.py": CALC.replace("return a + b", "return b + a")})
    tests, err = _selected(repo, capsys, "HEAD~1")
    assert "tests/test_calc.py::test_add" in tests and "coverage map" not in err


def _moved_with_a_new_test(repo: Path) -> None:
    """Two of the map's tests moved to a new file (reformatted) beside a new test, since the map."""
    calc = (repo / "tests" / "test_calc.py").read_text()
    moved, kept = calc.split("def test_clamp", 1)
    arith = moved.replace("def test_add", "# moved\ndef test_add")
    arith += "def test_negative():\n    assert add(-1, -1) == -2\n"
    calc = "from pkg.calc import clamp, double\n\n\ndef test_clamp" + kept
    change(repo, {"tests/test_calc.py": calc, "tests/test_arith.py": arith}, "tests moved since the map")


def test_tests_moved_unchanged_since_the_map_are_not_new(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _moved_with_a_new_test(repo)
    loader = (repo / "src/pkg/loader.py").read_text().replace("return json.loads", "return dict(json.loads")
    change(repo, {"src/pkg/loader.py": loader.replace("read_text())", "read_text()))")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert tests == ["tests/test_loader.py::test_load"]  # the map saw the moved tests: none ran load


def test_a_new_test_beside_moved_ones_runs_when_they_reach_the_change(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _moved_with_a_new_test(repo)
    calc = CALC.replace("return a + b", "return b + a")
    change(repo, {"src/pkg/calc.py": calc})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert "tests/test_arith.py::test_negative" in tests  # new since the map, in a file the change reaches
    assert "tests/test_arith.py::test_add" in tests and "tests/test_calc.py::test_clamp" not in tests
    change(repo, {"src/pkg/calc.py": calc.replace("return LIMIT\n", "return LIMIT - 1\n")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert "tests/test_calc.py::test_clamp" in tests and "tests/test_arith.py::test_negative" not in tests


def test_a_test_edited_since_the_map_runs_when_its_class_reaches_the_change(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calc_tests = (repo / "tests" / "test_calc.py").read_text()
    edited = calc_tests.replace("assert clamp(3) == 3", "assert clamp(4) == 4")
    change(repo, {"tests/test_calc.py": edited}, "TestMore.test_small edited since the map")
    calc = CALC.replace("return a + b", "return b + a")
    change(repo, {"src/pkg/calc.py": calc})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert sorted(tests) == ["tests/test_calc.py::test_add", "tests/test_calc.py::test_double"]
    change(repo, {"src/pkg/calc.py": calc.replace("return LIMIT\n", "return LIMIT - 1\n")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    assert "tests/test_calc.py::TestMore::test_small" in tests  # its class ran clamp (itself, then)


def test_a_test_added_since_the_map_runs_when_its_class_reaches_the_change_or_is_new(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calc_tests = (repo / "tests" / "test_calc.py").read_text()
    tiny = "\n    def test_tiny(self):\n        assert clamp(1) == 1\n"
    hidden = (
        "\n\nclass TestNew:\n    def test_hidden(self):\n        from pkg import calc\n\n"
        '        assert getattr(calc, "dou" + "ble")(2) == 4\n'
    )
    change(repo, {"tests/test_calc.py": calc_tests + tiny + hidden}, "tests added since the map")
    change(repo, {"src/pkg/calc.py": CALC.replace("return a + b", "return b + a")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    # TestMore's tests the map saw ran clamp, not add: its new test goes by the static graph (clamp);
    # TestNew is new since the map, in a file whose tests reach the change: nothing says what it runs
    assert sorted(tests) == [
        "tests/test_calc.py::TestNew::test_hidden",
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_double",
    ]


def test_a_test_added_since_the_map_that_calls_the_change_runs_whatever_its_class_ran(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calc_tests = (repo / "tests" / "test_calc.py").read_text()
    added = (
        "\n    def test_sum(self):\n        assert add(2, 2) == 4\n"
        "\n    def test_tiny(self):\n        assert clamp(1) == 1\n"
    )
    change(repo, {"tests/test_calc.py": calc_tests + added}, "two tests of TestMore added since the map")
    change(repo, {"src/pkg/calc.py": CALC.replace("return a + b", "return b + a")})
    tests, _ = _selected(repo, capsys, "HEAD~1")
    # TestMore's tests the map saw ran clamp, not add: test_sum calls add itself (the static graph's
    # path, one call; it was dropped), and test_tiny, added beside it, goes with its class
    assert sorted(tests) == [
        "tests/test_calc.py::TestMore::test_sum",
        "tests/test_calc.py::TestMore::test_tiny",
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_double",
    ]
