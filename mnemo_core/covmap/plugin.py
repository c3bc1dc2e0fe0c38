"""mnemo's pytest plugin: ``--mnemo-record`` keeps the coverage map, ``--mnemo-select`` runs a change's tests.

Registered through the ``pytest11`` entry point, so it loads into every pytest run of an environment
mnemo is installed in: without one of its options it adds them to ``pytest --help`` and does
nothing else (no import of coverage.py or of the engine, no hook beyond these two).

``--mnemo-record`` measures each test's lines (``covmap.record``) and stores them in the map
(``covmap.store``): a full run (no arguments beyond the configured test paths, nothing deselected
but by the project's own settings, not stopped early) replaces the map, numbered at HEAD; any other
run replaces the rows of the tests it ran, numbered at the map's commit. Under pytest-xdist each
worker measures its own tests and hands them to the controller, which writes the map once.

``--mnemo-select RANGE`` keeps only the tests ``mnemo tests RANGE`` prints, in its order, and
deselects the others, so ``pytest --mnemo-select main`` and ``pytest $(mnemo tests main)`` run the
same tests in the same order: both ask the map alone first (``covmap.fast``), then the full change
analysis.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

    from mnemo_core.covmap.record import Collector
    from mnemo_core.covmap.store import RecordedTest

WORKER_KEY = "mnemo_map"  # where an xdist worker hands its tests' lines to the controller
RELATIVE_CACHED = 4096  # test files whose path relative to the repository is kept (one per item otherwise)
FULL_EXITS = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)  # a run that reached its end
# options of an invocation that deselect tests (pytest's own and ``--mnemo-select``)
NARROWING = (
    "-k",
    "-m",
    "--deselect",
    "--lf",
    "--last-failed",
    "--sw",
    "--stepwise",
    "--mnemo-select",
    "--testmon",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mnemo", "mnemo: test selection from a coverage map")
    group.addoption(
        "--mnemo-record",
        action="store_true",
        help="record the lines each test runs into mnemo's coverage map (a full run replaces it, "
        "a partial run updates its tests)",
    )
    group.addoption(
        "--mnemo-map",
        metavar="PATH",
        help="the coverage map to record into (default: coverage-map.db in mnemo's state directory)",
    )
    group.addoption(
        "--mnemo-select",
        metavar="RANGE",
        help="run only the tests `mnemo tests RANGE` selects, in its order (e.g. main, or A..B)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("mnemo_record"):
        config.pluginmanager.register(Recorder(config), "mnemo-record")
    spec = config.getoption("mnemo_select")
    if spec:
        config.pluginmanager.register(Selector(spec), "mnemo-select")


def _root(config: pytest.Config) -> Path:
    from mnemo_core.errors import MnemoError
    from mnemo_core.vcs.git import require_toplevel

    try:
        return require_toplevel(config.rootpath)
    except MnemoError as exc:
        raise pytest.UsageError(f"mnemo: {exc}") from exc


def _repository_id(root: Path, item: pytest.Item) -> str:
    """An item's node id relative to the repository's top level (pytest's is to its rootdir)."""
    nodeid = item.nodeid
    if "::" not in nodeid:
        return nodeid
    path = _relative(root, item.path)
    return nodeid if path is None else f"{path}::{nodeid.split('::', 1)[1]}"


@functools.lru_cache(maxsize=RELATIVE_CACHED)
def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def _narrowed(config: pytest.Config) -> bool:
    """Whether this invocation (its command line or ``PYTEST_ADDOPTS``) asked for fewer tests than
    the suite: a deselection the project's own settings make (``addopts = -m 'not slow'``) defines
    its suite, and a run of that suite is full."""
    words = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    return any(w == option or w.startswith(option) for w in words for option in NARROWING)


class Recorder:
    """``--mnemo-record`` (see the module)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.root = _root(config)
        self.controller = not hasattr(config, "workerinput") and bool(
            getattr(config.option, "numprocesses", 0)
        )
        self.collector: Collector | None = None
        self.failed: set[str] = set()
        self.skipped: set[str] = set()
        self.deselected = 0
        self.partial = False
        self.gathered: list[RecordedTest] = []
        self.message = ""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        if not self.controller:
            from mnemo_core.covmap.record import Collector

            self.collector = Collector(self.root)
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        if self.collector is None:
            return (yield)
        self.collector.switch(_repository_id(self.root, item))
        try:
            return (yield)
        finally:
            self.collector.switch(None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        if report.failed:
            self.failed.add(nodeid)
        elif report.skipped:
            self.skipped.add(nodeid)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """An xdist worker finished: take its tests' lines."""
        from mnemo_core.covmap.store import RecordedTest

        sent = json.loads(getattr(node, "workeroutput", {}).get(WORKER_KEY, "null") or "null")
        if sent is None:
            self.partial = True
            return
        self.partial |= sent["partial"]
        self.gathered += [
            RecordedTest(t["nodeid"], t["outcome"], {p: frozenset(ls) for p, ls in t["files"].items()})
            for t in sent["tests"]
        ]

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        partial = (
            self.partial
            or (self.deselected > 0 and _narrowed(self.config))
            or bool(session.shouldfail or session.shouldstop)
            or exitstatus not in FULL_EXITS
        )
        runs = self._stopped()
        if hasattr(self.config, "workerinput"):  # its arguments are the controller's to judge
            self.config.workeroutput[WORKER_KEY] = json.dumps(  # type: ignore[attr-defined]
                {
                    "partial": partial,
                    "tests": [
                        {
                            "nodeid": r.nodeid,
                            "outcome": r.outcome,
                            "files": {p: sorted(ls) for p, ls in r.files.items()},
                        }
                        for r in runs
                    ],
                }
            )
            return
        partial |= self.config.args_source == pytest.Config.ArgsSource.ARGS
        self.message = self._save([*self.gathered, *runs], not partial)

    def _stopped(self) -> list[RecordedTest]:
        from mnemo_core.covmap.store import RecordedTest

        if self.collector is None:
            return []
        lines = self.collector.stop()
        self.collector = None
        ran = sorted(set(lines) | self.failed | self.skipped)
        return [RecordedTest(n, self._outcome(n), lines.get(n, {})) for n in ran]

    def _outcome(self, nodeid: str) -> str:
        return "failed" if nodeid in self.failed else "skipped" if nodeid in self.skipped else "passed"

    def _save(self, runs: list[RecordedTest], full: bool) -> str:
        from mnemo_core.covmap.record import at_commit
        from mnemo_core.covmap.store import map_path, open_map
        from mnemo_core.errors import MnemoError
        from mnemo_core.vcs.git import head_commit

        commit = head_commit(self.root)
        if commit is None:
            return "mnemo: no coverage map recorded: the repository has no commit yet"
        option = self.config.getoption("mnemo_map")
        try:
            path = Path(option).absolute() if option else map_path(self.root, create=True)
            with open_map(path) as coverage_map:
                at = commit if full or coverage_map.commit is None else coverage_map.commit
                written = coverage_map.write(at, at_commit(self.root, at, runs), replace=full)
        except MnemoError as exc:
            return f"mnemo: the coverage map was not written: {exc}"
        kind = "a full run, the map replaced" if full else "a partial run, their rows updated"
        return f"mnemo: recorded {written} tests into {path} ({kind}; lines numbered at {at[:10]})"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.message:
            terminalreporter.write_line(self.message)


class Selector:
    """``--mnemo-select RANGE`` (see the module)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.message = ""
        self.how = ""

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        from mnemo_core.covmap.select import selection_order

        root = _root(config)
        order = self._selected(root)
        ranked = [
            (selection_order(order, _repository_id(root, item)), i, item) for i, item in enumerate(items)
        ]
        kept = sorted((r, i, item) for r, i, item in ranked if r is not None)
        dropped = [item for r, _, item in ranked if r is None]
        items[:] = [item for _, _, item in kept]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        self.message = (
            f"mnemo: {len(items)} tests selected for {self.spec}, {len(dropped)} deselected ({self.how})"
        )

    def _selected(self, root: Path) -> dict[str, int]:
        """``mnemo tests RANGE``'s ids: from the map alone when it vouches (``covmap.fast``), else
        from the full change analysis."""
        from mnemo_core.covmap.fast import fast_change

        answer = fast_change(root, self.spec)
        ids = list(answer.ids) if answer.ids is not None else self._analysed(root)
        self.how = answer.note if answer.ids is not None else f"the full analysis: {answer.note}"
        return {test: rank for rank, test in enumerate(ids)}

    def _analysed(self, root: Path) -> list[str]:
        from mnemo_core.engine import Engine
        from mnemo_core.errors import MnemoError
        from mnemo_core.render import test_ids

        try:
            engine = Engine.open(root, memory=False)
            base, head = engine.commits(self.spec)
            return test_ids(engine.tests(base, head))
        except MnemoError as exc:
            raise pytest.UsageError(f"mnemo: --mnemo-select {self.spec}: {exc}") from exc

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_line(self.message)
