"""Tests the coverage data cannot vouch for: added since it was taken. A real package, its tests
under a real coverage run with per-test contexts at the first commit, then a second commit with new
tests and an edit; the data judges which of them run the edited function
(``mnemo_core/change/coverage.py``, ``_with_unseen_tests``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coverage_helpers import run_coverage
from helpers import commit, git, make_repo

from mnemo_core.cli import main

# ``run`` finds its operation by a name built at run time: nothing static links ``op_double`` or
# ``op_half`` to a test
OPS = (
    "def run(kind, x):\n"
    "    return globals()['op_' + kind](x)\n"
    "\n"
    "def op_double(x):\n"
    "    return x * 2\n"
    "\n"
    "def op_half(x):\n"
    "    return x / 2\n"
    "\n"
    "def first(x):\n"
    "    return x + 1\n"
)
# the machine comes from a factory the index cannot type: a test's ``self.machine.run`` links nowhere
MACHINE = "from calc import ops\n\nMACHINES = {'ops': ops}\n\ndef machine():\n    return MACHINES['ops']\n"
OLD_TESTS = (
    "from calc.ops import first, run\n"
    "\n"
    "def test_double():\n"
    "    assert run('double', 2) == 4\n"
    "\n"
    "def test_double_again():\n"
    "    assert run('double', 3) == 6\n"
    "\n"
    "def test_half():\n"
    "    assert run('half', 4) == 2\n"
    "\n"
    "def test_first():\n"
    "    assert first(1) == 2\n"
)
CLASS_TESTS = (
    "from calc.machine import machine\n"
    "\n"
    "class TestMachine:\n"
    "    def setup_method(self):\n"
    "        self.machine = machine()\n"
    "\n"
    "    def test_doubles(self):\n"
    "        assert self.machine.run('double', 1) == 2\n"
    "\n"
    "    def test_doubles_more(self):\n"
    "        assert self.machine.run('double', 5) == 10\n"
    "\n"
    "    def test_halves(self):\n"
    "        assert self.machine.run('half', 5) == 2.5\n"
)
FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": OPS,
    "calc/machine.py": MACHINE,
    "tests/test_ops.py": OLD_TESTS,
    "tests/test_machine.py": CLASS_TESTS,
    ".gitignore": ".coverage\n.pytest_cache/\n",
}


@pytest.fixture(scope="module")
def later(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Coverage of the first commit; then a commit that adds tests."""
    base = tmp_path_factory.mktemp("unseen")
    root = make_repo(base / "calc", FILES)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", base)
    commit(
        root,
        {
            "tests/test_new.py": "from calc.ops import run\n\ndef test_new_double():\n"
            "    assert run('double', 7) == 14\n",
            "tests/test_machine.py": CLASS_TESTS
            + "\n    def test_doubles_zero(self):\n        assert self.machine.run('double', 0) == 0\n",
            "tests/test_ops.py": OLD_TESTS + "\ndef test_plain():\n    assert sorted([2, 1]) == [1, 2]\n",
        },
        "more tests",
        date="2026-01-02T12:00:00+00:00",
    )
    return root, first


def reached_with_old_data(
    root: Path, first: str, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> dict[str, str]:
    """The tests ``mnemo tests --worktree`` names, with their evidence, for an edit of calc/ops.py
    analysed with the first commit's coverage data (the file is put back afterwards)."""
    path = root / "calc/ops.py"
    assert OPS.count(old) == 1
    path.write_text(OPS.replace(old, new))
    try:
        args = ["tests", "--repo", str(root), "--worktree", "--format", "json", "--sure-only"]
        assert main([*args, "--coverage", str(root / ".coverage"), "--coverage-commit", first]) == 0
    finally:
        path.write_text(OPS)
    return {t["id"]: t["evidence"] for t in json.loads(capsys.readouterr().out)["tests"]}


def test_a_new_test_whose_calls_lead_nowhere_runs_what_most_of_its_class_ran(
    later: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``self.machine.run`` resolves to nothing; two of the three tests of its class the data saw ran
    ``op_double``, one ran ``op_half``. A new test whose call resolves (to ``run``) is left to the
    static graph, which does not reach ``op_double``: its module's tests are no evidence."""
    root, first = later
    new = "tests/test_machine.py::TestMachine::test_doubles_zero"
    double = reached_with_old_data(root, first, capsys, "return x * 2", "return 2 * x")
    assert "67% of the tests of its class that do the same ran op_double" in double[new]
    assert {"tests/test_ops.py::test_double", "tests/test_machine.py::TestMachine::test_doubles"} <= set(
        double
    )
    assert "tests/test_new.py::test_new_double" not in double
    half = reached_with_old_data(root, first, capsys, "return x / 2", "return x * 0.5")
    assert new not in half
    assert "tests/test_machine.py::TestMachine::test_halves" in half


def test_a_new_test_of_other_code_is_not_judged_by_the_tests_of_this_code(
    later: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``test_plain`` calls nothing of the package; three of the four tests beside it ran ``run``,
    but they call ``run`` and ``first``: they are no evidence for a test that calls neither."""
    root, first = later
    reached = reached_with_old_data(
        root, first, capsys, "    return globals()", "    x = x\n    return globals()"
    )
    assert "tests/test_ops.py::test_double" in reached
    assert "tests/test_ops.py::test_plain" not in reached
