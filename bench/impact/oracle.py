"""The dynamic oracle of the impact benchmark: which tests execute each function of a repository.

The repository's own test suite runs once under coverage (in the repository's own virtualenv),
with a small pytest plugin (``plugin/mnemo_impact_plugin.py``) that switches coverage's dynamic
context to ``<nodeid>|setup``, ``<nodeid>|run`` and ``<nodeid>|teardown`` around each phase of
each test - the labels pytest-cov's ``--cov-context=test`` writes - and records where each test
function is defined and how each phase ended. The data file is then read back through coverage's
``CoverageData`` API (``contexts_by_lineno``) and folded onto functions found with ``ast``:

* a function's **own lines** run from its first body statement to its last line, minus the bodies
  of functions nested in it (those are functions of their own; their ``def`` lines stay, since
  defining a closure is work the outer function does);
* a **test** is a test *function*: ``path::Class::test`` of where it is defined, without
  parametrisation; the variants of a parametrised test and the runs of an inherited test method
  are one test, the one a reader of the code sees;
* a function's **oracle tests** are the tests whose contexts (all three phases: fixtures count)
  cover at least one of its own lines. Code that runs outside any test (imports at collection,
  session-scoped teardown) has the empty context and belongs to no test.

The result is cached as ``bench/out/impact-oracle-<repo>.json`` and reused while the commit and
the phases match, because the coverage run is the slow part of the benchmark.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import OUT_DIR
from bench.impact.repos import (
    ImpactRepo,
    argument_parser,
    clone_of,
    lookup,
    package_sources,
    venv_python,
)

PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
PLUGIN_NAME = "mnemo_impact_plugin"
TESTS_ENV = "MNEMO_IMPACT_TESTS"  # where the plugin writes its test records
CALLS_ENV = "MNEMO_IMPACT_CALLS"  # where the plugin writes dynamic call edges (diagnosis only)
PHASES = ("setup", "run", "teardown")
ORACLE_VERSION = 4  # bump when the oracle's definition changes, to invalidate cached files
RAN, SKIPPED, DESELECTED = "ran", "skipped", "deselected"


# -- contexts and test identities (pure) --------------------------------------------------------
def split_context(context: str) -> tuple[str, str | None]:
    """``'tests/t.py::T::test_a[x]|run'`` -> ``('tests/t.py::T::test_a[x]', 'run')``; no phase -> None."""
    nodeid, bar, phase = context.rpartition("|")
    if bar and phase in PHASES:
        return nodeid, phase
    return context, None


def normalise_nodeid(nodeid: str) -> str:
    """A pytest node id without parametrisation: ``'t.py::T::test_a[1-x::y]'`` -> ``'t.py::T::test_a'``.

    The path is everything before the first ``::`` (file names do not contain it); the ids of a
    parametrised test start at the first ``[`` after it (Python names cannot contain one)."""
    path, sep, rest = nodeid.partition("::")
    if not sep:
        return nodeid
    return f"{path}::{rest.split('[', 1)[0]}"


def normalise_context(context: str) -> str | None:
    """A coverage context as a test: ``'tests/t.py::T::test_b[p]|run'`` -> ``'tests/t.py::T::test_b'``.

    The empty context (code run outside any test) is no test: None."""
    nodeid, _ = split_context(context)
    return normalise_nodeid(nodeid) if nodeid else None


def test_key(path: str, qualname: str) -> str:
    """The benchmark's identity of a test function: ``path::Class::name`` (``<locals>`` dropped)."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    return "::".join([path, *parts])


def definition_key(record: Mapping[str, Any], rootdir: Path) -> str | None:
    """The test key of where a collected test's function is defined, when it is inside ``rootdir``."""
    definition = record.get("definition") or {}
    if not definition.get("file") or not definition.get("qualname"):
        return None
    try:
        relative = Path(definition["file"]).resolve().relative_to(rootdir.resolve())
    except ValueError:
        return None
    return test_key(relative.as_posix(), definition["qualname"])


def test_identity(nodeid: str, record: Mapping[str, Any], rootdir: Path) -> str:
    """The benchmark's key of a collected test: where its function is defined (parametrised variants
    and the inherited copies of a test are one test), except for a function made at run time (defined
    inside another function, ``<locals>`` in its name: one definition attached as many tests, as a
    fixture file's cases or a metaclass's generated methods), which has no name in the source to
    select it by: that test is the class pytest collected it in (``path::Class``, what a user runs),
    or its own node id outside a class."""
    definition = record.get("definition") or {}
    if "<locals>" not in str(definition.get("qualname", "")):
        return definition_key(record, rootdir) or normalise_nodeid(nodeid)
    path, _, rest = normalise_nodeid(nodeid).partition("::")
    names = rest.split("::")
    return "::".join([path, *names[:-1]]) if len(names) > 1 else normalise_nodeid(nodeid)


def test_status(outcomes: Mapping[str, str], deselected: bool) -> str:
    """``ran`` when the test's call phase ran (passed, failed or xfailed), else why it did not."""
    if deselected and not outcomes:
        return DESELECTED
    return RAN if "call" in outcomes else SKIPPED


# -- functions and their own lines (pure) --------------------------------------------------------
@dataclass(frozen=True)
class Function:
    """A function or method of the measured code, and the lines that are its own work."""

    path: str
    name: str  # qualified within the file: Class.method, outer.inner
    line: int  # the ``def`` line (decorators sit above it)
    end_line: int
    body_line: int  # the first body statement
    own_lines: frozenset[int] = frozenset()


def _own_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[int]:
    lines = set(range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1))
    for inner in ast.walk(node):
        if inner is not node and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines -= set(range(inner.body[0].lineno, (inner.end_lineno or inner.lineno) + 1))
    return frozenset(lines)


def source_functions(text: str, path: str) -> list[Function]:
    """Every function and method in a Python file, with qualified names (``Class.method``)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found: list[Function] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append(
                    Function(
                        path,
                        name,
                        child.lineno,
                        child.end_lineno or child.lineno,
                        child.body[0].lineno,
                        _own_lines(child),
                    )
                )
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def tests_of(
    function: Function,
    contexts_by_line: Mapping[int, Iterable[str]],
    key_of: Mapping[str, str | None],
    phases: frozenset[str],
) -> set[str]:
    """The tests whose contexts (in ``phases``) cover one of the function's own lines."""
    found: set[str] = set()
    for line in function.own_lines:
        for context in contexts_by_line.get(line, ()):
            nodeid, phase = split_context(context)
            if not nodeid or (phase is not None and phase not in phases):
                continue
            key = key_of.get(nodeid) or normalise_nodeid(nodeid)
            if key:
                found.add(key)
    return found


# -- the coverage run -------------------------------------------------------------------------
@dataclass(frozen=True)
class RunFiles:
    """Where one coverage run of a suite writes."""

    rcfile: Path
    data: Path
    tests: Path
    log: Path


def run_files(repo: ImpactRepo, workdir: Path) -> RunFiles:
    """The scratch files of ``repo``'s coverage run (outside the clone)."""
    base = workdir / f"oracle-{repo.name}"
    return RunFiles(
        base.with_suffix(".coveragerc"),
        base.with_suffix(".coverage"),
        base.with_suffix(".tests.json"),
        base.with_suffix(".log"),
    )


def coverage_command(python: Path, files: RunFiles, repo: ImpactRepo) -> list[str]:
    """``coverage run`` of the suite with the context-switching plugin."""
    return [
        str(python),
        "-m",
        "coverage",
        "run",
        f"--rcfile={files.rcfile}",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        PLUGIN_NAME,
        *repo.pytest_args,
    ]


def _plugin_env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        **extra,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN_DIR), os.environ.get("PYTHONPATH")])),
    }
    env.pop("COVERAGE_PROCESS_START", None)
    return env


def _run_logged(
    command: list[str], clone: Path, env: dict[str, str], log_path: Path, what: str
) -> tuple[float, str]:
    """Run a suite command with its output in ``log_path``; wall time and the last line."""
    started = time.perf_counter()
    with log_path.open("w", encoding="utf-8") as log:
        done = subprocess.run(command, cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - started
    lines = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    if done.returncode not in (0, 1):  # 1: some tests failed, still an oracle
        raise SystemExit(f"{what} did not run (exit {done.returncode}); see {log_path}")
    return elapsed, lines[-1] if lines else ""


def run_suite(repo: ImpactRepo, clone: Path, python: Path, files: RunFiles) -> tuple[float, str]:
    """Run the suite under coverage; returns the wall time and pytest's last line."""
    # Our own rc file: the repository's coverage settings (branch, parallel, source lists that
    # include the tests) are for its CI, not for this oracle.
    files.rcfile.write_text(
        f"[run]\nsource = {clone / repo.package}\nbranch = false\ndata_file = {files.data}\n",
        encoding="utf-8",
    )
    files.data.unlink(missing_ok=True)
    elapsed, summary = _run_logged(
        coverage_command(python, files, repo),
        clone,
        _plugin_env(**{TESTS_ENV: str(files.tests)}),
        files.log,
        f"the test suite of {repo.name}",
    )
    if not files.data.exists():
        raise SystemExit(f"the test suite of {repo.name} wrote no coverage data; see {files.log}")
    return elapsed, summary


def calls_path(repo: ImpactRepo) -> Path:
    """Where the dynamic call edges of ``repo``'s suite are cached (for the diagnosis)."""
    return OUT_DIR / f"impact-calls-{repo.name}.json"


def record_calls(repo: ImpactRepo, workdir: Path, refresh: bool = False) -> dict[str, Any]:
    """The suite's dynamic call edges per test (a second run, without coverage), cached by commit.

    Returns ``{"commit", "rootdir", "codes": [[file, qualname, line]], "edges": {nodeid: [[caller,
    line, callee, external]]}, "tests": {nodeid: record}}``; caller -1 is pytest itself."""
    path = calls_path(repo)
    if path.exists() and not refresh:
        cached: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if cached.get("commit") == repo.commit and cached.get("version") == ORACLE_VERSION:
            return cached
    clone = clone_of(repo, workdir)
    python = venv_python(repo, workdir)
    base = workdir / f"calls-{repo.name}"
    calls, tests = base.with_suffix(".json"), base.with_suffix(".tests.json")
    command = [
        str(python),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        PLUGIN_NAME,
        *repo.pytest_args,
    ]
    print(f"[{repo.name}] recording dynamic calls ...", flush=True)
    env = _plugin_env(**{CALLS_ENV: str(calls), TESTS_ENV: str(tests)})
    elapsed, summary = _run_logged(
        command, clone, env, base.with_suffix(".log"), f"the call recording of {repo.name}"
    )
    records = json.loads(tests.read_text(encoding="utf-8"))
    data = {
        "version": ORACLE_VERSION,
        "commit": repo.commit,
        "rootdir": records["rootdir"],
        "elapsed_s": round(elapsed, 1),
        "pytest_summary": summary,
        **json.loads(calls.read_text(encoding="utf-8")),
        "tests": records["tests"],
    }
    OUT_DIR.mkdir(exist_ok=True)
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    return data


# -- folding the data onto functions ----------------------------------------------------------------
def test_table(
    records: Mapping[str, Mapping[str, Any]], rootdir: Path
) -> tuple[dict[str, str | None], dict[str, dict[str, Any]]]:
    """Node id -> test key, and test key -> {status, nodeids, line} (a key ran if any variant ran)."""
    key_of: dict[str, str | None] = {}
    tests: dict[str, dict[str, Any]] = {}
    order = {DESELECTED: 0, SKIPPED: 1, RAN: 2}
    for nodeid, record in records.items():
        key = test_identity(nodeid, record, rootdir)
        key_of[nodeid] = key
        status = test_status(record.get("outcomes", {}), bool(record.get("deselected")))
        entry = tests.setdefault(
            key, {"status": status, "nodeids": 0, "line": (record.get("definition") or {}).get("line")}
        )
        entry["nodeids"] += 1
        if order[status] > order[entry["status"]]:
            entry["status"] = status
    return key_of, tests


def fold(repo: ImpactRepo, clone: Path, files: RunFiles, phases: frozenset[str]) -> dict[str, Any]:
    """The oracle from a finished run: tests, and every function of the package with its tests."""
    import coverage  # the one that runs mnemo's benchmark reads data files of any 7.x

    records = json.loads(files.tests.read_text(encoding="utf-8"))
    key_of, tests = test_table(records["tests"], Path(records["rootdir"]))
    data = coverage.CoverageData(basename=str(files.data))
    data.read()
    measured = {Path(f).resolve(): f for f in data.measured_files()}
    names = sorted(tests)
    index = {k: i for i, k in enumerate(names)}
    functions = []
    for source in package_sources(repo, clone):
        relative = source.relative_to(clone).as_posix()
        by_line = data.contexts_by_lineno(measured[source.resolve()]) if source.resolve() in measured else {}
        for f in source_functions(source.read_text(encoding="utf-8", errors="replace"), relative):
            covered = tests_of(f, by_line, key_of, phases)
            functions.append(
                {
                    "path": f.path,
                    "name": f.name,
                    "line": f.line,
                    "end_line": f.end_line,
                    "body_line": f.body_line,
                    "tests": sorted(index[k] for k in covered if k in index),
                }
            )
    return {
        "test_names": names,
        "tests": [tests[k] for k in names],
        "functions": functions,
        "contexts": len(data.measured_contexts()),
    }


# -- the cached oracle ------------------------------------------------------------------------
def oracle_path(repo: ImpactRepo) -> Path:
    """Where the oracle of ``repo`` is cached."""
    return OUT_DIR / f"impact-oracle-{repo.name}.json"


def load_cached(repo: ImpactRepo, phases: frozenset[str]) -> dict[str, Any] | None:
    """The cached oracle when it was built for this commit, phases and oracle version."""
    path = oracle_path(repo)
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if (data.get("version"), data.get("commit"), sorted(data.get("phases", ()))) != (
        ORACLE_VERSION,
        repo.commit,
        sorted(phases),
    ):
        return None
    return data


def build(
    repo: ImpactRepo, workdir: Path, phases: frozenset[str] = frozenset(PHASES), refresh: bool = False
) -> dict[str, Any]:
    """The oracle of ``repo``: cached, or made by running its suite under coverage (minutes)."""
    cached = None if refresh else load_cached(repo, phases)
    if cached is not None:
        return cached
    clone = clone_of(repo, workdir)
    python = venv_python(repo, workdir)
    files = run_files(repo, workdir)
    print(f"[{repo.name}] running the test suite under coverage (log: {files.log}) ...", flush=True)
    elapsed, summary = run_suite(repo, clone, python, files)
    print(f"[{repo.name}] {summary} ({elapsed:.0f} s)", flush=True)
    folded = fold(repo, clone, files, phases)
    oracle = {
        "version": ORACLE_VERSION,
        "repo": repo.name,
        "source": repo.source,
        "commit": repo.commit,
        "package": repo.package,
        "phases": sorted(phases),
        "created": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": coverage_command(python, files, repo),
        "elapsed_s": round(elapsed, 1),
        "pytest_summary": summary,
        **folded,
    }
    OUT_DIR.mkdir(exist_ok=True)
    oracle_path(repo).write_text(json.dumps(oracle) + "\n", encoding="utf-8")
    return oracle


def ran_tests(oracle: Mapping[str, Any]) -> list[str]:
    """The test keys of the tests that ran."""
    return [k for k, t in zip(oracle["test_names"], oracle["tests"], strict=True) if t["status"] == RAN]


def function_tests(oracle: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], set[str]]]:
    """Each function of the oracle with its tests (as keys)."""
    names = oracle["test_names"]
    for f in oracle["functions"]:
        yield f, {names[i] for i in f["tests"]}


def describe(oracle: Mapping[str, Any]) -> str:
    """One line about an oracle: tests by status, functions covered."""
    statuses = [t["status"] for t in oracle["tests"]]
    covered = sum(1 for f in oracle["functions"] if f["tests"])
    return (
        f"{oracle['repo']} @ {oracle['commit'][:10]}: {statuses.count(RAN)} tests ran "
        f"({statuses.count(SKIPPED)} skipped, {statuses.count(DESELECTED)} deselected), "
        f"{covered}/{len(oracle['functions'])} functions covered; suite {oracle['elapsed_s']} s "
        f"under coverage: {oracle['pytest_summary']}"
    )


def main(argv: list[str] | None = None) -> int:
    """Build (or show) the oracles of the benchmark's repositories."""
    parser = argument_parser(__doc__, "clones, venvs and coverage files")
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="test phases whose lines count (default: setup,run,teardown)",
    )
    parser.add_argument("--refresh", action="store_true", help="run the suite again even when cached")
    args = parser.parse_args(argv)
    phases = frozenset(p for p in args.phases.split(",") if p)
    if not phases <= set(PHASES):
        parser.error(f"--phases: choose from {', '.join(PHASES)}")
    for name in args.repos.split(","):
        print(describe(build(lookup(name), args.workdir, phases, args.refresh)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
