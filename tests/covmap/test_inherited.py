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
