"""Coverage evidence end to end: a real package, real pytest tests, a real coverage run with per-test
contexts at one commit, then changes analysed against it (``mnemo_core/change/coverage.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ci_helpers import REPOSITORY, write_event
from coverage_helpers import run_coverage
from helpers import commit, git, make_repo

from ci.comment import main as ci_main
from ci.precommit import main as precommit_main
from mnemo_core.change.coverage import CoverageSource, open_coverage, parse_context
from mnemo_core.change.ownlines import own_lines
from mnemo_core.cli import main
from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError

# ``filter_shout`` is reached only through a registry filled from the module's own names and looked
# up by a name that comes from the template text: nothing static links it to a test
FILTERS = (
    "def filter_shout(text):\n"
    "    return text.upper() + '!'\n"
    "\n"
    "def filter_whisper(text):\n"
    "    return text.lower()\n"
    "\n"
    "def unused(text):\n"
    "    return text * 2\n"
    "\n"
    "FILTERS = {n[7:]: f for n, f in list(globals().items()) if n.startswith('filter_')}\n"
)
RENDER = (
    "from calc.filters import FILTERS\n"
    "\n"
    "def render(template):\n"
    "    name, _, value = template.partition(':')\n"
    "    return FILTERS[name](value)\n"
)
TESTS = (
    "from calc.render import render\n"
    "\n"
    "def test_shout():\n"
    "    assert render('shout:hi') == 'HI!'\n"
    "\n"
    "class TestWhisper:\n"
    "    def test_whisper(self):\n"
    "        assert render('whisper:HI') == 'hi'\n"
    "\n"
    "def test_nothing():\n"
    "    assert True\n"
)
BASE = {
    "calc/__init__.py": "",
    "calc/filters.py": FILTERS,
    "calc/render.py": RENDER,
    "tests/test_render.py": TESTS,
    ".gitignore": ".coverage\n.pytest_cache/\n",
}
SHOUT_TEST = "tests/test_render.py::test_shout"


@pytest.fixture(scope="module", params=["nodeid", "test_function"])
def measured(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository, coverage taken at its first commit (in one of the two context forms), then a
    second commit that edits a registry filter, adds a helper and edits an untested function."""
    base = tmp_path_factory.mktemp(f"cov-{request.param}")
    root = make_repo(base / "calc", BASE)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, request.param, base)
    commit(
        root,
        {
            "calc/filters.py": FILTERS.replace("text.upper() + '!'", "text.upper() + '!!'").replace(
                "text * 2", "text * 3"
            )
            + "\ndef shout_twice(text):\n    return filter_shout(filter_shout(text))\n",
            "tests/test_apply.py": "from calc.render import apply, render\n\ndef test_apply():\n"
            "    assert apply('whisper', 'A') == 'a'\n\ndef test_render_again():\n"
            "    assert render('whisper:A') == 'a'\n",
            "calc/render.py": RENDER.replace(
                "    return FILTERS[name](value)\n", "    return apply(name, value)\n"
            )
            + "\ndef apply(name, value):\n    return FILTERS[name](value)\n",
        },
        "louder, with a helper",
        date="2026-01-02T12:00:00+00:00",
    )
    return root, first


def pr_json(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def changed_named(data: dict[str, object], name: str) -> dict[str, object]:
    impact = data["impact"]
    assert isinstance(impact, dict)
    return next(s for s in impact["changed"] if s["name"] == name)


def test_coverage_finds_the_tests_the_static_graph_cannot(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    static = pr_json(root, capsys)
    assert changed_named(static, "filter_shout")["reached_by"] == []

    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"), "--coverage-commit", first)
    shout = changed_named(data, "filter_shout")
    assert shout["reached_by"] == [SHOUT_TEST]  # not test_whisper: it ran the other filter
    assert any("1 test ran its lines" in r for r in shout["reasons"])  # type: ignore[union-attr]
    tests = {t["name"]: t for t in data["impact"]["tests"]}  # type: ignore[index]
    assert tests["test_shout"]["source"] == "coverage"
    assert tests["test_shout"]["resolution"] == "coverage"
    assert "filter_shout" in tests["test_shout"]["evidence"]
    assert any(first[:10] in n for n in data["notes"])  # type: ignore[union-attr]
    # render ran in both old tests; a test added since is not in the data: the static graph keeps it
    assert changed_named(data, "render")["reached_by"] == [
        "tests/test_apply.py::test_render_again",
        "tests/test_render.py::TestWhisper::test_whisper",
        SHOUT_TEST,
    ]


def test_a_symbol_new_since_the_coverage_takes_the_tests_that_ran_its_callers(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"), "--coverage-commit", first)
    apply = changed_named(data, "apply")  # render calls it, and every test calls render (and test_apply it)
    assert apply["reached_by"] == [
        "tests/test_apply.py::test_apply",
        "tests/test_apply.py::test_render_again",
        "tests/test_render.py::TestWhisper::test_whisper",
        SHOUT_TEST,
    ]
    assert any("tests ran its callers' lines (it is new since)" in r for r in apply["reasons"])  # type: ignore[union-attr]
    twice = changed_named(data, "shout_twice")  # new, and nothing calls it
    assert any("no test reaches it" in r for r in twice["reasons"])  # type: ignore[union-attr]
    assert "no test reaches: shout_twice" in data["impact"]["reasons"]  # type: ignore[index]
    tests = {t["name"]: t for t in data["impact"]["tests"]}  # type: ignore[index]
    assert tests["test_apply"]["source"] == "static"
    assert tests["TestWhisper.test_whisper"]["source"] == "coverage"  # it ran render, changed too


def test_a_measured_symbol_no_test_ran_is_untested_and_says_so(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"), "--coverage-commit", first)
    unused = changed_named(data, "unused")
    assert unused["reached_by"] == []
    assert any("no test ran its lines" in r for r in unused["reasons"])  # type: ignore[union-attr]
    reasons = data["impact"]["reasons"]  # type: ignore[index]
    assert "no test ran, per the coverage data: unused" in reasons


def test_coverage_at_the_wrong_commit_maps_nothing_it_cannot_find(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Taken as HEAD (the default), the coverage still maps the symbols that exist there by name."""
    root, _ = measured
    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"))
    assert changed_named(data, "filter_shout")["reached_by"] == [SHOUT_TEST]


def test_mnemo_tests_json_says_where_each_test_came_from(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    args = ["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]
    assert main([*args, "--coverage", str(root / ".coverage"), "--coverage-commit", first]) == 0
    sources = {t["id"]: t["source"] for t in json.loads(capsys.readouterr().out)["tests"]}
    assert sources[SHOUT_TEST] == "coverage"
    assert sources["tests/test_apply.py::test_apply"] == "static"


def test_the_engine_verbs_take_the_coverage_data(measured: tuple[Path, str]) -> None:
    root, first = measured
    with Engine.open(root) as engine:
        static = engine.tests(base="HEAD~1")
        covered = engine.tests(base="HEAD~1", coverage=root / ".coverage", coverage_commit=first)
        files = engine.files(["calc/filters.py"], coverage=root / ".coverage", coverage_commit=first)
    assert {t.evidence.source for t in static if t.evidence is not None} == {"static"}
    sources = {t.symbol.name: t.evidence.source for t in covered if t.evidence is not None}
    assert sources["test_shout"] == "coverage"
    assert files.impact is not None
    assert {t.symbol.name for t in files.impact.tests} >= {"test_shout", "TestWhisper.test_whisper"}
    assert any(first[:10] in n for n in files.notes)


def test_mnemo_files_uses_the_coverage_too(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    cov = ["--coverage", str(root / ".coverage"), "--coverage-commit", first]
    assert main(["files", "calc/filters.py", "--repo", str(root), "--format", "json", *cov]) == 0
    data = json.loads(capsys.readouterr().out)
    assert changed_named(data, "filter_whisper")["reached_by"] == [
        "tests/test_render.py::TestWhisper::test_whisper"
    ]
    assert changed_named(data, "unused")["reached_by"] == []


def test_the_hook_counts_coverage_tests_for_require_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "calc", BASE)
    run_coverage(root, "nodeid", tmp_path)
    (root / "calc/filters.py").write_text(FILTERS.replace("'!'", "'?'"))
    git(root, "add", "calc/filters.py")
    policy = ["--repo", str(root), "--require-tests", "--fail-on", "never"]
    assert precommit_main(policy) == 5
    assert "require_tests: no test reaches filter_shout" in capsys.readouterr().out
    assert precommit_main([*policy, "--coverage", str(root / ".coverage")]) == 0
    assert "passed" in capsys.readouterr().out


def test_the_pull_request_comment_takes_its_tests_from_the_coverage(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, first = measured
    head = git(root, "rev-parse", "HEAD").strip()
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(write_event(tmp_path / "event.json", 3, first, head)),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SERVER_URL": "https://github.com",
    }
    cov = ["--coverage", str(root / ".coverage"), "--coverage-commit", first]
    assert ci_main(["--repo", str(root), "--dry-run", "--fail-on", "never", *cov], env=env) == 0
    comment = capsys.readouterr().out
    assert f"coverage data taken at {first[:10]}" in comment
    assert "no test ran, per the coverage data: unused" in comment
    assert (
        ci_main(["--repo", str(root), "--dry-run", "--fail-on", "never", "--require-tests", *cov], env=env)
        == 5
    )
    assert "require_tests: no test reaches unused, shout_twice" in capsys.readouterr().err


def test_a_foreign_file_is_one_line_and_exit_1(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, _ = measured
    foreign = tmp_path / "data.coverage"
    foreign.write_bytes(b"not sqlite at all\n" * 100)
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--coverage", str(foreign)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a coverage.py data file" in err
    assert foreign.read_bytes() == b"not sqlite at all\n" * 100
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--coverage", str(tmp_path / "none")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_a_file_without_per_test_contexts_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "calc", BASE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV", "PYTEST", "GIT_"))}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "run",
            "--source=calc",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    data = root / ".coverage"
    before = data.read_bytes()
    with pytest.raises(MnemoError, match="no per-test contexts"):
        open_coverage(CoverageSource(data))
    assert data.read_bytes() == before
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".coverage")) == [".coverage"]


def test_the_setting_names_the_file_inside_the_repository(
    measured: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = measured
    settings = root / "mnemo.toml"
    try:
        settings.write_text(f'coverage = ".coverage"\ncoverage_commit = "{first}"\n')
        assert changed_named(pr_json(root, capsys), "filter_shout")["reached_by"] == [SHOUT_TEST]
        settings.write_text('coverage = "missing/.coverage"\n')
        data = pr_json(root, capsys)
        assert changed_named(data, "filter_shout")["reached_by"] == []
        assert any("no coverage data at" in n for n in data["notes"])  # type: ignore[union-attr]
        settings.write_text('coverage = "../elsewhere/.coverage"\n')
        assert main(["pr", "--repo", str(root), "--base", "HEAD~1"]) == 1
        assert "outside the repository" in capsys.readouterr().err
    finally:
        settings.unlink()


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ("tests/test_x.py::TestC::test_y[a-1]|run", ("tests/test_x.py", "TestC.test_y")),
        ("tests/test_x.py::test_y[a::b|c]|setup", ("tests/test_x.py", "test_y")),
        ("tests/test_x.py::test_y|teardown", ("tests/test_x.py", "test_y")),
        ("tests.test_x.TestC.test_y", (None, "tests.test_x.TestC.test_y")),
        ("py3.11|test_x.test_y", (None, "test_x.test_y")),
        ("py3.11|tests/test_x.py::test_y|run", ("tests/test_x.py", "test_y")),
        ("", None),
        ("ci run 3", None),
    ],
)
def test_contexts_name_tests_in_both_forms(context: str, expected: tuple[str | None, str] | None) -> None:
    assert parse_context(context) == expected


def test_own_lines_leave_out_what_runs_at_import() -> None:
    source = (
        b"import functools\n"  # 1
        b"\n"  # 2
        b"@functools.cache\n"  # 3
        b"def outer(\n"  # 4
        b"    a=1,\n"  # 5
        b"):\n"  # 6
        b"    def inner():\n"  # 7
        b"        return a\n"  # 8
        b"    return inner\n"  # 9
        b"\n"  # 10
        b"class C:\n"  # 11
        b"    X = 1\n"  # 12
        b"    def m(self):\n"  # 13
        b"        return 2\n"  # 14
    )
    lines = own_lines("pkg/mod.py", source)
    assert lines["outer"] == frozenset({7, 9})
    assert lines["outer.inner"] == frozenset({8})
    assert lines["C.m"] == frozenset({14})
    assert lines["C"] == frozenset({12, 13, 14})


def test_a_test_moved_since_the_coverage_is_found_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "calc", BASE)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", tmp_path)
    commit(
        root,
        {
            "tests/test_render.py": None,
            "tests/test_render/test_shouting.py": TESTS,
            "calc/filters.py": FILTERS.replace("'!'", "'?'"),
        },
        "split the tests into a package",
    )
    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"), "--coverage-commit", first)
    assert changed_named(data, "filter_shout")["reached_by"] == [
        "tests/test_render/test_shouting.py::test_shout"
    ]


def test_own_lines_of_an_overloaded_function_are_its_implementations() -> None:
    source = (
        b"from typing import overload\n"  # 1
        b"@overload\n"  # 2
        b"def f(x: int) -> int: ...\n"  # 3
        b"@overload\n"  # 4
        b"def f(x: str) -> str: ...\n"  # 5
        b"def f(x):\n"  # 6
        b"    return x\n"  # 7
    )
    assert own_lines("pkg/mod.py", source)["f"] == frozenset({3, 5, 7})


def test_a_symbol_renamed_and_moved_since_is_carried_back_line_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "calc", BASE)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", tmp_path)
    git(root, "mv", "calc/filters.py", "calc/registry.py")
    renamed = "# the filters\n\n" + FILTERS.replace("def filter_shout(", "def filter_yell(")
    commit(
        root,
        {
            "calc/registry.py": renamed,
            "calc/render.py": RENDER.replace("calc.filters", "calc.registry"),
            "tests/test_render.py": TESTS.replace("shout:", "yell:"),
        },
        "filters -> registry, shout -> yell",
    )
    commit(root, {"calc/registry.py": renamed.replace("text.lower()", "text.lower() + ''")}, "whisper edit")
    cov = ["--coverage", str(root / ".coverage"), "--coverage-commit", first]
    assert main(["files", "calc/registry.py", "--repo", str(root), "--format", "json", *cov]) == 0
    data = json.loads(capsys.readouterr().out)
    assert changed_named(data, "filter_yell")["reached_by"] == [SHOUT_TEST]  # its lines, at a new place
    assert changed_named(data, "filter_whisper")["reached_by"] == [
        "tests/test_render.py::TestWhisper::test_whisper"
    ]


def test_old_lines_through_a_zero_context_diff() -> None:
    from mnemo_core.change.coverage import _old_line
    from mnemo_core.vcs.diff import Hunk

    hunks = [
        Hunk(0, 0, 1, 2),
        Hunk(5, 1, 7, 1),
        Hunk(10, 3, 11, 0),
    ]  # 2 added at the top, 1 rewritten, 3 deleted
    assert [_old_line(n, hunks) for n in (1, 2, 3, 6, 7, 8, 11, 12)] == [None, None, 1, 4, None, 6, 9, 13]


DISPATCH = {
    "calc/__init__.py": "",
    "calc/ops.py": (
        "def dispatch(kind, x):\n"
        "    if kind == 'a':\n"
        "        return first(x)\n"
        "    return second(x)\n"
        "\n"
        "def first(x):\n"
        "    return x + 1\n"
        "\n"
        "def second(x):\n"
        "    return x - 1\n"
    ),
    "tests/test_ops.py": (
        "from calc.ops import dispatch\n"
        "\n"
        "def test_a():\n"
        "    assert dispatch('a', 1) == 2\n"
        "\n"
        "def test_b():\n"
        "    assert dispatch('b', 1) == 0\n"
        "\n"
        "def test_b_again():\n"
        "    assert dispatch('b', 2) == 1\n"
    ),
    ".gitignore": ".coverage\n",
}


def first_reached_with_old_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], new_tests: str
) -> tuple[Path, list[str]]:
    """Coverage of ``files`` at their first commit; then ``tests/test_new.py`` and a change to
    ``first``: the tests that reach ``first`` with that data."""
    root = make_repo(tmp_path / "calc", files)
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", tmp_path)
    commit(
        root,
        {"tests/test_new.py": new_tests, "calc/ops.py": DISPATCH["calc/ops.py"].replace("x + 1", "x + 2")},
        "first adds two",
    )
    data = pr_json(root, capsys, "--coverage", str(root / ".coverage"), "--coverage-commit", first)
    return root, list(changed_named(data, "first")["reached_by"])


def test_a_new_test_is_kept_when_the_data_says_its_path_leads_to_the_symbol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New tests have no coverage: the static graph names them, and the data judges their path."""
    new_tests = (
        "from calc.ops import dispatch, first\n\n"
        "def test_new_b():\n    assert dispatch('b', 5) == 4\n\n"
        "def test_new_first():\n    assert first(1) == 2\n"
    )
    root, reached = first_reached_with_old_data(tmp_path, capsys, DISPATCH, new_tests)
    # dispatch calls first statically, but of the 3 tests that ran dispatch only test_a ran first
    assert reached == [
        "tests/test_new.py::test_new_first",
        "tests/test_ops.py::test_a",
    ]
    static = pr_json(root, capsys)
    assert "tests/test_new.py::test_new_b" in changed_named(static, "first")["reached_by"]


VARIANTS = (
    "def formatter(upper):\n"
    "    if upper:\n"
    "        def fmt(text):\n"
    "            return text.upper()\n"
    "    else:\n"
    "        def fmt(text):\n"
    "            return text.lower()\n"
    "    return fmt\n"
)
VARIANT_TESTS = (
    "from calc.fmt import formatter\n\n"
    "def test_upper():\n    assert formatter(True)('a') == 'A'\n\n"
    "def test_lower():\n    assert formatter(False)('A') == 'a'\n"
)


def test_variants_of_a_name_reordered_since_the_coverage_are_matched_by_their_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``if``/``else`` variants of a closure swapped since the data was taken: the edited variant's
    tests are those of the old variant with its text, not of the one at its rank."""
    root = make_repo(
        tmp_path / "calc",
        {"calc/__init__.py": "", "calc/fmt.py": VARIANTS, "tests/test_fmt.py": VARIANT_TESTS},
    )
    first = git(root, "rev-parse", "HEAD").strip()
    run_coverage(root, "nodeid", tmp_path)
    swapped = (
        "def formatter(upper):\n"
        "    if not upper:\n"
        "        def fmt(text):\n"
        "            return text.lower()\n"
        "    else:\n"
        "        def fmt(text):\n"
        "            return text.upper()\n"
        "    return fmt\n"
    )
    commit(root, {"calc/fmt.py": swapped}, "lower first")
    (root / "calc/fmt.py").write_text(
        swapped.replace(
            "            return text.upper()", "            pass\n            return text.upper()"
        )
    )
    args = ["tests", "--repo", str(root), "--worktree", "--format", "json", "--sure-only"]
    assert main([*args, "--coverage", str(root / ".coverage"), "--coverage-commit", first]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["id"] for t in data["tests"]] == ["tests/test_fmt.py::test_upper"]


def test_an_old_test_the_data_saw_run_nothing_is_not_taken_from_the_static_graph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test that returns before calling anything on the machine that took the data has no context
    in it; unchanged since, in a file the data ran, it is no new test: the data vouches for it."""
    files = dict(DISPATCH)
    files["tests/test_ops.py"] += (
        "\n\ndef test_elsewhere():\n"
        "    if sys.platform != 'plan9':\n        return\n    assert first(1) == 2\n"
    )
    files["tests/test_ops.py"] = "import sys\nfrom calc.ops import first\n" + files["tests/test_ops.py"]
    new_test = "from calc.ops import first\n\ndef test_new_first():\n    assert first(1) == 3\n"
    root, reached = first_reached_with_old_data(tmp_path, capsys, files, new_test)
    assert reached == [
        "tests/test_new.py::test_new_first",
        "tests/test_ops.py::test_a",
    ]
    static = pr_json(root, capsys)
    assert "tests/test_ops.py::test_elsewhere" in changed_named(static, "first")["reached_by"]
