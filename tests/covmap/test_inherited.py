"""Tests a class inherits, selected from a map older than the change: by the ids pytest runs them under."""

from __future__ import annotations

from pathlib import Path

import pytest
from covmap_helpers import CALC, PROJECT, change, run_pytest
from helpers import make_repo

from mnemo_core.cli import main

CHECKS = """\
from pkg.calc import add, clamp


class Checks:
    def test_add(self):
        assert add(1, 2) == 3

    def test_clamp(self):
        assert clamp(20) == 10
"""


def test_an_inherited_test_runs_under_its_subclass_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        **PROJECT,
        "tests/__init__.py": "",
        "tests/checks.py": CHECKS,  # not a test file: pytest runs its tests only through the subclasses
        "tests/test_one.py": "from tests.checks import Checks\n\n\nclass TestOne(Checks):\n    pass\n",
        "tests/test_two.py": "from tests.checks import Checks\n\n\nclass TestTwo(Checks):\n    pass\n",
    }
    root = make_repo(tmp_path / "repo", files)
    recorded = run_pytest(root, "--mnemo-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    change(root, {"src/pkg/extra.py": "X = 1\n"}, "since the map")  # the map is no longer the base's
    change(root, {"src/pkg/calc.py": CALC.replace("return a + b", "return b + a")})
    assert main(["tests", "HEAD~1", "--repo", str(root), "--no-memory"]) == 0
    out = capsys.readouterr()
    assert "not from the coverage map alone" in out.err  # the full analysis, which names tests by symbol
    tests = out.out.split()
    assert sorted(tests) == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_double",
        "tests/test_one.py::TestOne::test_add",  # not tests/checks.py::Checks::test_add: no test pytest finds
        "tests/test_two.py::TestTwo::test_add",
    ]
    ran = run_pytest(root, *tests)
    assert ran.returncode == 0 and "4 passed" in ran.stdout, ran.stdout


BASE_TEST = """\
from pkg.calc import add, clamp


class TestBase:
    wide = False

    def test_calc(self):
        if self.wide:
            assert clamp(20) == 10
        assert add(1, 2) == 3
"""


WIDE_TEST = "from tests.test_base import TestBase\n\n\nclass TestWide(TestBase):\n    wide = True\n"


@pytest.mark.parametrize("edited", ["by the change", "since the map"])
def test_a_test_the_map_saw_under_a_subclass_and_the_static_graph_reaches_keeps_its_own_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edited: str
) -> None:
    files = {
        **PROJECT,
        "tests/__init__.py": "",
        "tests/test_base.py": BASE_TEST,
        "tests/test_wide.py": WIDE_TEST,
    }
    root = make_repo(tmp_path / "repo", files)
    recorded = run_pytest(root, "--mnemo-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    # clamp: the map saw only TestWide's run of test_calc run it; scale: new, and test_calc now calls
    # it under every id it runs by (the static graph's reach, or the edit: the map cannot know)
    calc = CALC + "\n\ndef scale(x):\n    return x * 2\n"
    test = BASE_TEST.replace("import add, clamp", "import add, clamp, scale")
    test = test.replace("assert add(1, 2) == 3", "assert add(1, 2) == 3\n        assert scale(2) == 4")
    changed = {
        "src/pkg/calc.py": calc.replace("return LIMIT\n", "return LIMIT + 0\n").replace("x * 2", "2 * x")
    }
    if edited == "since the map":
        change(root, {"src/pkg/calc.py": calc, "tests/test_base.py": test}, "since the map")
    else:
        change(root, {"src/pkg/extra.py": "X = 1\n"}, "since the map")  # the map is no longer the base's
        changed["tests/test_base.py"] = test
    change(root, changed)
    assert main(["tests", "HEAD~1", "--repo", str(root), "--no-memory"]) == 0
    tests = capsys.readouterr().out.split()
    assert "tests/test_wide.py::TestWide::test_calc" in tests  # the map's run of clamp
    assert "tests/test_base.py::TestBase::test_calc" in tests  # pytest runs it, and it calls scale
    ran = run_pytest(root, *tests)
    assert ran.returncode == 0, ran.stdout


def _checks_inherited_by_test_one(tmp_path: Path) -> Path:
    """A repository whose ``tests/checks.py`` (not collected) is run by ``TestOne``, with a map
    recorded one commit before the base."""
    files = {**PROJECT, "tests/__init__.py": "", "tests/checks.py": CHECKS}
    files["tests/test_one.py"] = "from tests.checks import Checks\n\n\nclass TestOne(Checks):\n    pass\n"
    root = make_repo(tmp_path / "repo", files)
    recorded = run_pytest(root, "--mnemo-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    change(root, {"src/pkg/extra.py": "X = 1\n"}, "since the map")
    return root


def test_a_rule_that_takes_the_tests_that_ran_a_file_names_inherited_tests_by_their_run_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _checks_inherited_by_test_one(tmp_path)
    # module-level code: no test's lines, so the tests that ran the file
    change(root, {"src/pkg/calc.py": CALC.replace("LIMIT = 10", "LIMIT = 10\nOTHER = 2")})
    assert main(["tests", "HEAD~1", "--repo", str(root), "--no-memory"]) == 0
    tests = capsys.readouterr().out.split()
    assert "tests/test_one.py::TestOne::test_clamp" in tests
    assert not [t for t in tests if t.startswith("tests/checks.py")]  # pytest: "not found", and runs nothing
    ran = run_pytest(root, *tests)
    assert ran.returncode == 0, ran.stdout


def test_a_conftest_change_takes_the_inherited_tests_under_it_by_their_run_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _checks_inherited_by_test_one(tmp_path)
    conftest = str(PROJECT["tests/conftest.py"]).replace("return 100", "return 200")
    change(root, {"tests/conftest.py": conftest})
    assert main(["tests", "HEAD~1", "--repo", str(root), "--no-memory"]) == 0
    tests = capsys.readouterr().out.split()
    assert {"tests/test_one.py::TestOne::test_add", "tests/test_one.py::TestOne::test_clamp"} <= set(tests)
    assert not [t for t in tests if t.startswith("tests/checks.py")]
