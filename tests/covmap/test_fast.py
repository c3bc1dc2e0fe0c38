"""The fast path (``covmap.fast``): the same tests as the full change analysis where the map vouches,
the full analysis with its reason where it does not; `mnemo tests` and `pytest --mnemo-select` agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from covmap_helpers import CALC, change, run_pytest
from helpers import git

from mnemo_core import render
from mnemo_core.cli import main
from mnemo_core.covmap.fast import NO_MAP, fast_change
from mnemo_core.engine import Engine

CHANGES = {
    "a function's body": CALC.replace("return LIMIT\n", "return LIMIT - 1\n"),
    "a function called through another": CALC.replace("return a + b", "return b + a"),
    "a signature": CALC.replace("def clamp(x):", "def clamp(x, limit=LIMIT):"),
    "a line appended to a function": CALC.replace(
        "    return add(x, x)\n", "    return add(x, x)\n    assert False\n"
    ),
    "module-level code": CALC.replace("LIMIT = 10", "LIMIT = 5"),
    "a deleted function": CALC.replace("def double(x):\n    return add(x, x)\n\n\n", ""),
}


def _full(repo: Path) -> list[str]:
    return render.test_ids(Engine.open(repo, memory=False).tests("HEAD~1"))


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_the_fast_path_selects_what_the_full_analysis_does(repo: Path, what: str) -> None:
    change(repo, {"src/pkg/calc.py": CHANGES[what]})
    fast = fast_change(repo, "HEAD~1")
    assert fast.ids is not None and "the fast path" in fast.note, fast.note
    assert list(fast.ids) == _full(repo)


def test_an_edited_test_file_runs_whole(repo: Path) -> None:
    tests = (repo / "tests/test_calc.py").read_text() + "\n\ndef test_new():\n    assert add(2, 2) == 4\n"
    change(repo, {"tests/test_calc.py": tests, "src/pkg/calc.py": CHANGES["a function's body"]})
    fast = fast_change(repo, "HEAD~1")
    assert fast.ids is not None
    # the file in place of its tests that ran the changed line, its new test among them
    assert fast.ids == ("tests/test_calc.py",)
    assert set(_full(repo)) <= {"tests/test_calc.py::test_new", *_collected(repo, fast.ids)}


def _collected(repo: Path, ids: tuple[str, ...]) -> set[str]:
    out = run_pytest(repo, "--collect-only", *ids).stdout
    return {line for line in out.splitlines() if "::" in line}


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"src/pkg/data.json": '{"k": 2}\n'}, "src/pkg/data.json changed, and it is not Python code"),
        ({"pyproject.toml": '[tool.mnemo]\ncoverage = ".coverage"\n'}, "the settings name coverage data"),
        ({"src/pkg/legacy.py": "print 'hello'\nx = 2\n"}, "src/pkg/legacy.py does not parse on the base"),
    ],
)
def test_what_the_map_cannot_vouch_for_goes_to_the_full_analysis(
    repo: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], reason: str
) -> None:
    if "src/pkg/legacy.py" in files:  # Python 2 at the base, in a map recorded there
        change(repo, {"src/pkg/legacy.py": "print 'hello'\nx = 1\n"}, "Python 2")
        assert run_pytest(repo, "--mnemo-record").returncode == 0
    change(repo, files)
    fast = fast_change(repo, "HEAD~1")
    assert fast.ids is None and reason in fast.note
    main(["tests", "HEAD~1", "--repo", str(repo), "--no-memory"])
    err = capsys.readouterr().err
    assert f"not from the coverage map alone ({fast.note}): the full analysis" in err


def test_a_map_of_an_older_commit_vouches_only_without_python_changes_since(repo: Path) -> None:
    change(repo, {"README.md": "# demo, described\n"}, "documentation only")
    change(repo, {"src/pkg/calc.py": CHANGES["a function's body"]})
    fast = fast_change(repo, "HEAD~1")
    assert fast.ids is not None and list(fast.ids) == _full(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    change(repo, {"src/pkg/loader.py": "import json\n"}, "Python since the map")
    change(repo, {"src/pkg/calc.py": CHANGES["a function's body"]})
    fast = fast_change(repo, "HEAD~1")
    assert fast.ids is None and "1 Python files changed from there to the base" in fast.note


def test_a_partial_map_and_no_map_go_to_the_full_analysis(repo: Path) -> None:
    change(repo, {"src/pkg/calc.py": CHANGES["a function's body"]})
    (repo / ".mnemo" / "coverage-map.db").unlink()
    assert fast_change(repo, "HEAD~1").note == NO_MAP
    assert run_pytest(repo, "--mnemo-record", "tests/test_loader.py").returncode == 0
    assert fast_change(repo, "HEAD~1").note == "the coverage map was not made by a full run"


def test_mnemo_tests_and_mnemo_select_run_the_same_tests_either_way(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for how, files in (
        ("the fast path", {"src/pkg/calc.py": CHANGES["module-level code"]}),
        ("the full analysis", {"src/pkg/data.json": '{"k": 2}\n'}),
    ):
        change(repo, files)
        assert main(["tests", "HEAD~1", "--repo", str(repo), "--no-memory"]) == 0
        out = capsys.readouterr()
        printed = out.out.split()
        assert how in out.err
        ran = run_pytest(repo, "--mnemo-select", "HEAD~1", "-vv")
        assert how in ran.stdout and _order(ran.stdout) == printed, ran.stdout


def _order(output: str) -> list[str]:
    words = (line.split() for line in output.splitlines())
    return [w[0] for w in words if len(w) > 1 and "::" in w[0] and w[1] in ("PASSED", "FAILED")]
