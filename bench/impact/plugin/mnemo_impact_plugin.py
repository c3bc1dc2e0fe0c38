"""A pytest plugin for the impact benchmark's oracle, loaded into the *measured* repository's run.

Under ``coverage run -m pytest -p mnemo_impact_plugin`` it does two things:

* switches coverage's dynamic context to ``<nodeid>|setup``, ``<nodeid>|run`` and
  ``<nodeid>|teardown`` around each phase of each test (the labels pytest-cov's
  ``--cov-context=test`` writes), so the data file says which test executed which line;
* writes, to the JSON file named by ``MNEMO_IMPACT_TESTS``, every collected test with where its
  function is *defined* (file, first line, qualified name) and the outcome of each phase. The
  definition is what a static tool sees: an inherited test method runs under the subclass's node
  id but lives in the base class, and parametrised variants share one function.

With ``MNEMO_IMPACT_CALLS`` set it also records, per test, the dynamic call edges between functions
defined under the root directory (caller, call line, callee, and whether code outside the root ran
in between: a third-party test client, the standard library), for the benchmark's diagnosis of
mnemo's misses. That mode uses ``sys.setprofile`` and runs without coverage.

It imports only pytest and coverage, because it runs inside the measured repository's virtualenv.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

OUTPUT_ENV = "MNEMO_IMPACT_TESTS"
CALLS_ENV = "MNEMO_IMPACT_CALLS"
PYTEST_CALLER = -1  # the caller id of functions that pytest calls (fixtures, test functions)
PHASE_LABELS = {"setup": "setup", "call": "run", "teardown": "teardown"}  # pytest-cov's names

_records: dict[str, dict[str, Any]] = {}


def _coverage() -> Any:
    try:
        import coverage
    except ImportError:  # pragma: no cover - the oracle always runs under coverage
        return None
    return coverage.Coverage.current()


def _inner_test(function: Any) -> Any:
    """The function a test's decorators wrap. Hypothesis's ``@given`` returns a function it writes
    itself (``accept.<locals>.test_x``, with the test's file and line but not its qualified name)
    and keeps the test as ``.hypothesis.inner_test``, not as ``__wrapped__``."""
    while True:
        function = inspect.unwrap(function)
        inner = getattr(getattr(function, "hypothesis", None), "inner_test", None)
        if not callable(inner) or inner is function:
            return function
        function = inner


def _definition(item: pytest.Item) -> dict[str, Any]:
    """Where the test function of ``item`` is defined, when it is a Python function."""
    function = getattr(item, "function", None) or getattr(item, "obj", None)
    function = _inner_test(function) if callable(function) else None
    code = getattr(function, "__code__", None)
    if code is None:
        return {}
    return {
        "file": str(Path(code.co_filename).resolve()),
        "line": code.co_firstlineno,
        "qualname": getattr(function, "__qualname__", getattr(function, "__name__", "")),
    }


def pytest_collection_finish(session: pytest.Session) -> None:
    """Record every test that will run (after deselection), with its definition."""
    for item in session.items:
        _records.setdefault(item.nodeid, {"definition": _definition(item), "outcomes": {}})


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Record deselected tests too: a tool that names one is not wrong, just unjudgeable."""
    for item in items:
        _records[item.nodeid] = {"definition": _definition(item), "outcomes": {}, "deselected": True}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Make sure a test run outside the collected list still gets a record."""
    _records.setdefault(item.nodeid, {"definition": _definition(item), "outcomes": {}})
    yield


class _CallRecorder:
    """Dynamic call edges per test between functions defined under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = str(root.resolve()) + os.sep
        self.current: str | None = None
        self.inside: dict[str, bool] = {}
        self.code_ids: dict[Any, int] = {}
        self.codes: list[list[Any]] = []  # id -> [file, qualname, first line]
        self.edges: dict[str, set[tuple[int, int, int, bool]]] = {}

    def _is_inside(self, filename: str) -> bool:
        known = self.inside.get(filename)
        if known is None:
            # "<frozen runpy>", "<string>": no file, never inside (abspath would put it in the cwd)
            known = self.inside[filename] = not filename.startswith("<") and os.path.abspath(
                filename
            ).startswith(self.root)
        return known

    def _id(self, code: Any) -> int:
        found = self.code_ids.get(code)
        if found is None:
            found = self.code_ids[code] = len(self.codes)
            self.codes.append(
                [
                    os.path.abspath(code.co_filename),
                    getattr(code, "co_qualname", code.co_name),
                    code.co_firstlineno,
                ]
            )
        return found

    def profile(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call" or self.current is None or not self._is_inside(frame.f_code.co_filename):
            return
        caller, external = frame.f_back, False
        while caller is not None and not self._is_inside(caller.f_code.co_filename):
            caller, external = caller.f_back, True
        # No caller under the root: pytest itself called it (a fixture, the test function): -1.
        edge = (
            self._id(caller.f_code) if caller is not None else PYTEST_CALLER,
            caller.f_lineno if caller is not None else 0,
            self._id(frame.f_code),
            external,
        )
        self.edges.setdefault(self.current, set()).add(edge)

    def dump(self) -> dict[str, Any]:
        return {"codes": self.codes, "edges": {k: sorted(v) for k, v in self.edges.items()}}


_recorder: _CallRecorder | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start recording calls when asked to."""
    global _recorder
    if os.environ.get(CALLS_ENV):
        _recorder = _CallRecorder(session.config.rootpath)
        threading.setprofile(_recorder.profile)
        sys.setprofile(_recorder.profile)


def _switching(item: pytest.Item, phase: str) -> Generator[None, None, None]:
    cov = _coverage()
    if cov is not None:
        cov.switch_context(f"{item.nodeid}|{PHASE_LABELS[phase]}")
    if _recorder is not None:
        _recorder.current = item.nodeid
    yield
    if cov is not None:
        cov.switch_context("")
    if _recorder is not None:
        _recorder.current = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """Label the setup phase (fixtures) with the test's node id."""
    yield from _switching(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Label the call phase with the test's node id."""
    yield from _switching(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """Label the teardown phase with the test's node id."""
    yield from _switching(item, "teardown")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep each phase's outcome (passed, failed, skipped)."""
    record = _records.setdefault(report.nodeid, {"definition": {}, "outcomes": {}})
    record["outcomes"][report.when] = report.outcome


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the records where the oracle asked for them."""
    if _recorder is not None:
        sys.setprofile(None)
        Path(os.environ[CALLS_ENV]).write_text(json.dumps(_recorder.dump()), encoding="utf-8")
    target = os.environ.get(OUTPUT_ENV)
    if target:
        Path(target).write_text(
            json.dumps({"rootdir": str(session.config.rootpath), "tests": _records}), encoding="utf-8"
        )
