"""The pytest plugin with pytest itself: inert without its options, recording, selecting."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from covmap_helpers import CALC, change, project, run_pytest

from mnemo_core.cli import main
from mnemo_core.covmap.store import reading

MAP = Path(".mnemo") / "coverage-map.db"


def _rows(root: Path) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(root / MAP) as conn:
        return {n: (o, r) for n, o, r in conn.execute("SELECT nodeid, outcome, recorded FROM tests")}


def test_without_its_options_the_plugin_does_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    check = (
        "import sys\n\n\ndef test_nothing_loaded():\n"
        "    assert 'coverage' not in sys.modules and 'mnemo_core.engine' not in sys.modules\n"
    )
    change(root, {"tests/test_inert.py": check})
    ran = run_pytest(root, "tests/test_inert.py")
    assert ran.returncode == 0, ran.stdout
    assert not (root / ".mnemo").exists()
    assert "--mnemo-record" in run_pytest(root, "--help").stdout


def test_a_partial_run_updates_its_tests_and_a_full_run_replaces_the_map(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    first = run_pytest(root, "--mnemo-record")
    assert "recorded 6 tests" in first.stdout and "a full run" in first.stdout
    before = _rows(root)
    failing = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 4\n"
    change(root, {"tests/test_calc.py": failing, "src/pkg/calc.py": "\n\n" + CALC}, "two lines down")
    partial = run_pytest(root, "--mnemo-record", "tests/test_calc.py::test_add")
    assert "a partial run" in partial.stdout, partial.stdout
    after = _rows(root)
    assert after["tests/test_calc.py::test_add"][0] == "failed"
    assert {n: r for n, r in after.items() if n != "tests/test_calc.py::test_add"} == {
        n: r for n, r in before.items() if n != "tests/test_calc.py::test_add"
    }
    # add's line ran two lines further down: it is stored as numbered at the map's (first) commit
    with reading(root / MAP) as coverage_map:
        ran = {r.nodeid: r.files for r in coverage_map.runs()}["tests/test_calc.py::test_add"]
    assert ran["src/pkg/calc.py"] == {CALC.splitlines().index("    return a + b") + 1}
    full = run_pytest(root, "--mnemo-record")
    assert "a full run, the map replaced" in full.stdout
    assert set(_rows(root)) == {"tests/test_calc.py::test_add", "tests/test_loader.py::test_load"}


def test_a_deselection_the_project_configures_is_a_full_run(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    slow = "import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n"
    settings = (
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n'
        'markers = ["slow"]\naddopts = "-m \'not slow\'"\n'
    )
    change(root, {"tests/test_slow.py": slow, "pyproject.toml": settings}, "a slow test, left out")
    ran = run_pytest(root, "--mnemo-record")
    assert "1 deselected" in ran.stdout and "a full run, the map replaced" in ran.stdout, ran.stdout
    ran = run_pytest(root, "--mnemo-record", "-m", "not slow and not nothing")
    assert "a partial run" in ran.stdout, ran.stdout
    ran = run_pytest(root, "--mnemo-record", "-k", "clamp")
    assert "a partial run" in ran.stdout, ran.stdout


def test_select_runs_what_mnemo_tests_prints_in_its_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "repo")
    assert run_pytest(root, "--mnemo-record").returncode == 0
    change(root, {"src/pkg/calc.py": CALC.replace("return LIMIT\n", "return LIMIT - 1\n")})
    assert main(["tests", "HEAD~1", "--repo", str(root), "--no-memory"]) == 0
    printed = capsys.readouterr().out.split()
    ran = run_pytest(root, "--mnemo-select", "HEAD~1", "-vv")
    assert _order(ran.stdout) == printed and len(printed) == 3, ran.stdout
    assert "3 deselected" in ran.stdout
    assert _order(run_pytest(root, "-vv", *printed).stdout) == printed


def _order(output: str) -> list[str]:
    """The tests a verbose pytest run ran, in order."""
    words = (line.split() for line in output.splitlines())
    return [w[0] for w in words if len(w) > 1 and "::" in w[0] and w[1] in ("PASSED", "FAILED")]


def test_maps_of_shards_merge_into_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo")
    for shard, tests in (("a.db", "tests/test_calc.py"), ("b.db", "tests/test_loader.py")):
        assert run_pytest(root, "--mnemo-record", "--mnemo-map", str(tmp_path / shard), tests).returncode == 0
    assert (
        main(["coverage", "merge", str(tmp_path / "a.db"), str(tmp_path / "b.db"), "--repo", str(root)]) == 0
    )
    assert "merged 6 tests" in capsys.readouterr().out
    assert main(["coverage", "show", "--repo", str(root), "--format", "json"]) == 0
    assert '"tests": 6' in capsys.readouterr().out


def test_show_without_a_map_says_how_to_record_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "repo")
    assert main(["coverage", "show", "--repo", str(root)]) == 0
    assert "no coverage map" in capsys.readouterr().out


def test_merging_a_file_that_is_no_map_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "repo")
    (tmp_path / "junk.db").write_text("junk")
    assert main(["coverage", "merge", str(tmp_path / "junk.db"), "--repo", str(root)]) == 1
    err = capsys.readouterr().err
    assert "not a coverage map" in err and "Traceback" not in err


def test_select_with_an_unknown_ref_is_one_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    ran = run_pytest(root, "--mnemo-select", "no-such-branch")
    assert ran.returncode == pytest.ExitCode.USAGE_ERROR
    assert "mnemo: --mnemo-select no-such-branch:" in ran.stderr and "Traceback" not in ran.stderr


def test_xdist_workers_hand_their_lines_to_one_map(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    root = project(tmp_path / "repo")
    ran = run_pytest(root, "-p", "xdist.plugin", "-n", "2", "--mnemo-record")
    assert "recorded 6 tests" in ran.stdout and "a full run" in ran.stdout, ran.stdout + ran.stderr
    with reading(root / MAP) as coverage_map:
        clamp = {r.nodeid: r.files for r in coverage_map.runs()}["tests/test_calc.py::test_clamp"]
    assert clamp["src/pkg/calc.py"] >= {CALC.splitlines().index("        return LIMIT") + 1}


def test_a_link_planted_at_the_map_is_never_written_through(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"precious")
    (root / ".mnemo").mkdir(exist_ok=True)
    (root / MAP).symlink_to(target)
    ran = run_pytest(root, "--mnemo-record", "tests/test_loader.py")
    assert ran.returncode == 0 and "the coverage map was not written" in ran.stdout, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr
    assert target.read_bytes() == b"precious"
