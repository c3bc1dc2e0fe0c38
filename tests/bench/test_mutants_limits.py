"""The mutation benchmark's limits are CPU time: a loop fails its test and a run past its budget is
hung, while a test that only waits (what a loaded machine does to it) passes."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.impact.mutants import hung_limit, innermost, run_limited
from mnemo_core.change.ownlines import own_line_sets

# pytest-timeout is installed in the measured repositories' venvs, not here: an option of the same
# name that does nothing lets the real command line run (the wall limit is not what is tested)
WALL_OPTION = 'def pytest_addoption(parser):\n    parser.addoption("--timeout")\n'
SUITE = (
    "import time\n\n\n"
    "def test_loops():\n    while True:\n        pass\n\n\n"
    "def test_waits():\n    time.sleep(1.5)\n\n\n"
    "def test_fails():\n    assert False\n\n\n"
    "def test_passes():\n    assert True\n"
)


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "conftest.py").write_text(WALL_OPTION, encoding="utf-8")
    (tmp_path / "test_suite.py").write_text(SUITE, encoding="utf-8")
    return tmp_path


def test_a_loop_fails_its_test_and_waiting_does_not(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("bench.impact.mutants.TEST_CPU_S", "1")
    done = run_limited(Path(sys.executable), _suite(tmp_path), ("-p", "no:cacheprovider"), [], 60)
    assert done.failing == {"test_suite.py::test_loops", "test_suite.py::test_fails"}
    assert 1 <= done.cpu_s < 30


def test_a_run_past_its_cpu_budget_is_hung(tmp_path: Path) -> None:
    loop = ["test_suite.py::test_loops"]
    done = run_limited(Path(sys.executable), _suite(tmp_path), ("-p", "no:cacheprovider"), loop, 1)
    assert done.failing is None
    assert done.cpu_s > 0.5  # the kernel checks the cap at its own tick
    assert hung_limit(done.cpu_s) > done.cpu_s


def test_a_class_sampled_whole_is_mutated_in_its_method() -> None:
    source = b"class Box:\n    size = 1\n\n    def grow(self):\n        return self.size + 1\n"
    definitions = own_line_sets("pkg/box.py", source)
    assert innermost(definitions, 5, ("Box", definitions["Box"][0])) == ("Box.grow", frozenset({5}))
    assert innermost(definitions, 2, ("Box", definitions["Box"][0]))[0] == "Box"  # the class's own code
