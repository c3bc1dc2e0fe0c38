"""Selection from the coverage map: the change pipeline's tests, made safe where the map can vouch.

The change pipeline (``change.context``) already takes each changed symbol's tests from the map
as from a coverage.py file (``change.coverage``: the tests that ran the symbol's own lines at the
map's commit, found by its name there; callers' tests for symbols new since; the static graph
for the rest). What a symbol-by-symbol answer cannot see, this module adds, each with its reason:

- the tests the change adds or edits, and those added or edited since the map's commit (the map
  has never seen them run as they are; a test moved or reformatted since is not new) in a test file
  the map saw no test of, or one (a class, or its file's functions outside classes; for a test added
  in a class new since, its file) with a test the change reaches by the map, its rules or the static
  graph (the others are the static graph's to reach, as with no map: ``covmap.since``);
- every test under a directory whose ``conftest.py`` changed, every test of a test file whose
  module-level code (imports, fixtures' registration, constants) changed;
- for module-level code of any other Python file (it runs at import: no test's lines), the tests
  that ran any line of that file, and the same for a file deleted or a symbol deleted or renamed
  (the tests that ran its lines at the map's commit now fail to find it);
- a changed symbol no test reaches, by the map or the static graph: the tests that ran its file;
- a changed file that is not Python (data, templates, configuration: tests may read it) selects
  everything, unless it is documentation.

The tests are then ordered for a fast failure: those that ran a line the change rewrites first,
then those the map says ran a changed symbol or a rule added, then the static graph's by distance,
the guesses last; ties go to the test that failed most recently (any of its parameters), then, among
the map's, to the id (the order ``covmap.fast`` gives the same tests).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from mnemo_core.change.context import ChangeAnalysis
from mnemo_core.change.coverage import CoverageSource, TestLookup, test_lookup
from mnemo_core.change.diffmap import ChangedSymbol
from mnemo_core.change.ownlines import own_line_sets
from mnemo_core.covmap.fast import function_failures
from mnemo_core.covmap.record import line_map
from mnemo_core.covmap.since import PYTHON_SUFFIXES, TestIds, test_group, tests_since
from mnemo_core.covmap.store import CoverageMap, map_path, reading
from mnemo_core.index.store import Store
from mnemo_core.model import CALLABLE_KINDS, CLASS_KINDS, Evidence, Impact, ScoredSymbol, Symbol
from mnemo_core.render import test_id
from mnemo_core.vcs.diff import ChangeStatus, FileChange, files_at
from mnemo_core.vcs.refs import Snapshot

DOCUMENTATION = ("docs/*", "doc/*", "*.md", "*.rst", "LICENSE*", "AUTHORS*", ".github/*", ".gitignore")
CONFTEST = "conftest.py"
RULE_WEIGHT = 0.5  # a test a rule adds scores like a test two hops away: below those the map saw run the code
EVERYTHING_WEIGHT = 0.1  # the rest of the suite, when the change cannot be decided
TIER_RAN_LINE, TIER_RAN_SYMBOL, TIER_SURE, TIER_POSSIBLE, TIER_REST = range(5)


@dataclass
class _Found:
    """Tests a rule added (test symbol id -> reason), the ids pytest ran those the map names by
    where they are not their own (a subclass's run of an inherited test), and why everything runs,
    if it must."""

    tests: dict[int, str]
    everything: str | None = None
    runs: dict[int, set[str]] = field(default_factory=dict)

    def add(self, ids: Iterable[int], reason: str) -> None:
        for sid in ids:
            self.tests.setdefault(sid, reason)

    def ran(self, contexts: Iterable[str], lookup: TestLookup, reason: str) -> None:
        """The tests of the map's ``contexts``, by the ids pytest ran them under."""
        contexts = set(contexts)
        self.add(lookup.ids(contexts), reason)
        for sid, runs in lookup.made(contexts).items():
            self.runs.setdefault(sid, set()).update(runs)


def widen(
    store: Store,
    root: Path,
    analysis: ChangeAnalysis,
    change: tuple[list[FileChange], list[ChangedSymbol]],
    source: CoverageSource,
    sides: tuple[str, str | Snapshot],
) -> ChangeAnalysis:
    """``analysis`` with the tests the map's rules add, ordered for a fast failure (see the module).
    ``change``: the changed files and symbols; ``sides``: the change's base commit and new side."""
    changes, changed = change
    with reading(source.path) as coverage_map:
        commit = coverage_map.commit or source.commit
        lookup = test_lookup(store, root, commit)
        found = _Found({})
        _by_file(store, changes, changed, coverage_map, lookup, found)
        _by_symbol(root, changed, coverage_map, lookup, found, commit)
        reached = {test_group(t.symbol) for t in analysis.impact.tests}
        reached |= {test_group(t) for t in store.symbols_by_ids(set(found.tests)).values()}
        _edited_tests(store, root, (changed, reached), (coverage_map, lookup.ids), (commit, sides[1]), found)
        _unreached(root, analysis.impact, changed, coverage_map, lookup, found, commit)
        first = _ran_changed_lines(root, changes, coverage_map, lookup.ids, sides[0], commit)
        failures = coverage_map.failures()
    impact = _ordered(store, analysis.impact, found, first, failures)
    notes = [*analysis.notes]
    if found.tests:
        notes.append(f"the coverage map's rules selected {len(found.tests)} tests (new, edited, or by file)")
    if found.everything:
        notes.append(f"every test selected by the coverage map's rules: {found.everything}")
    return replace(analysis, impact=impact, notes=tuple(notes))


def _by_file(
    store: Store,
    changes: list[FileChange],
    changed: list[ChangedSymbol],
    coverage_map: CoverageMap,
    lookup: TestLookup,
    found: _Found,
) -> None:
    """The rules that look at whole files: conftest, test files' and modules' top-level code,
    deleted files, files that are not Python."""
    module_changed = {c.path for c in changed if _runs_at_import(c)}
    test_files = {c.path for c in changed if c.is_test}
    for change in changes:
        path = change.path
        if not path.endswith(PYTHON_SUFFIXES):
            if not any(fnmatch(path, pattern) for pattern in DOCUMENTATION) and found.everything is None:
                found.everything = f"{path} changed, and it is not Python code: tests may read it"
            continue
        old = change.old_path or path
        if PurePosixPath(path).name == CONFTEST:
            directory = path.rpartition("/")[0]
            why = f"{path} changed: the tests under it"
            found.add(store.test_cases_under(directory), why)
            # and those the map saw run there by other ids (an inherited test, a subclass's run)
            found.ran({c for c in coverage_map.measured_contexts() if _under(c, directory)}, lookup, why)
        elif change.status == ChangeStatus.DELETED or (change.status == ChangeStatus.RENAMED and old != path):
            found.ran(
                coverage_map.tests_in_file(old), lookup, f"{old} was deleted or moved: the tests that ran it"
            )
        elif path in module_changed and path in test_files:
            tests = [s.id for s in store.symbols_in_file(path) if s.is_test_case]
            found.add(tests, f"code of {path} outside its functions changed: its tests")
        elif path in module_changed:
            found.ran(
                coverage_map.tests_in_file(old),
                lookup,
                f"code of {path} outside its functions changed (it runs at import, in no test): "
                f"the tests that ran {path}",
            )
        if change.status == ChangeStatus.ADDED:
            tests = [s.id for s in store.symbols_in_file(path) if s.is_test_case]
            found.add(tests, f"{path} is new")


def _under(context: str, directory: str) -> bool:
    """Whether a map's node id names a test in a file under ``directory`` ("" for the root)."""
    return not directory or context.startswith(f"{directory}/")


def _runs_at_import(c: ChangedSymbol) -> bool:
    """Whether a changed symbol is code that runs when its module is imported, which no test's
    lines show: a module's own lines, a constant, a class's body (not a class the change adds:
    nothing used it before)."""
    if c.kind in CALLABLE_KINDS or c.comments_only or c.status == "deleted":
        return False
    return not (c.kind in CLASS_KINDS and c.status == "added")


def _by_symbol(
    root: Path,
    changed: list[ChangedSymbol],
    coverage_map: CoverageMap,
    lookup: TestLookup,
    found: _Found,
    commit: str,
) -> None:
    """The tests that ran a deleted or renamed symbol at the map's commit (they now reach a name
    that is gone), by its old name and path."""
    gone = [c for c in changed if c.status in ("deleted", "renamed") and c.kind != "module"]
    paths = {c.old_path or c.path for c in gone}
    contents = files_at(root, commit, paths)
    for c in gone:
        path, name = c.old_path or c.path, c.old_name or c.name
        content = contents.get(path)
        if content is None:
            continue
        lines = {n for span in own_line_sets(path, content).get(name, []) for n in span}
        if lines:
            by_line = coverage_map.contexts_by_lineno(path)
            ran = {t for n in lines for t in by_line.get(n, ())}
            found.ran(ran, lookup, f"ran {name}, which the change {c.status}")


def _edited_tests(
    store: Store,
    root: Path,
    change: tuple[list[ChangedSymbol], set[tuple[str, str]]],
    lookup: tuple[CoverageMap, TestIds],
    sides: tuple[str, str | Snapshot],
    found: _Found,
) -> None:
    """The tests the change adds or edits, and those added or edited since the map's commit that
    ``covmap.since`` takes (``reached``: the groups of tests the selection has a test of; ``sides``: the
    map's commit and the change's new side)."""
    changed, reached = change
    keys = [(c.path, c.name, c.kind) for c in changed if c.is_test_case and c.status != "deleted"]
    found.add((s.id for s in store.symbols_by_keys(keys).values()), "added or edited by the change")
    since = tests_since(store, root, *lookup, sides, reached)
    found.add((s.id for s in since.added), f"added since the coverage map's commit {sides[0][:10]}")
    found.add((s.id for s in since.edited), f"edited since the coverage map's commit {sides[0][:10]}")


def _unreached(
    root: Path,
    impact: Impact,
    changed: list[ChangedSymbol],
    coverage_map: CoverageMap,
    lookup: TestLookup,
    found: _Found,
    commit: str,
) -> None:
    """A changed symbol the map never measured (new since its commit, or in a file it has no lines
    of) that the static graph reaches no test of either: the tests that ran its file (the stated
    fallback; none when no test ran the file). A symbol the map measured and no test ran needs none."""
    keys = {
        (c.path, c.name)
        for c in changed
        if not c.is_test and not c.comments_only and c.kind != "module" and c.status != "deleted"
    }
    lonely = [
        s.symbol
        for s in impact.changed
        if (s.symbol.path, s.symbol.name) in keys and not s.reached_by and not s.possibly_reached_by
    ]
    measured = coverage_map.measured_files()
    contents = files_at(root, commit, {s.path for s in lonely if s.path in measured})
    for symbol in lonely:
        content = contents.get(symbol.path)
        if content is not None and symbol.name in own_line_sets(symbol.path, content):
            continue
        found.ran(
            coverage_map.tests_in_file(symbol.path),
            lookup,
            f"nothing reaches {symbol.name}, new since the coverage map: the tests that ran its file",
        )


def _ran_changed_lines(
    root: Path,
    changes: list[FileChange],
    coverage_map: CoverageMap,
    ids: TestIds,
    base: str,
    commit: str,
) -> set[int]:
    """The tests that ran a line the change rewrites (the base side's lines, at the map's commit)."""
    modified = [c for c in changes if c.path.endswith(PYTHON_SUFFIXES) and c.status == ChangeStatus.MODIFIED]
    paths = {c.path for c in modified}
    before, then = files_at(root, base, paths), files_at(root, commit, paths)
    found: set[str] = set()
    for change in modified:
        moves = line_map(before.get(change.path), then.get(change.path))
        rewritten = {
            n
            for h in change.hunks
            for n in (
                range(h.old_start, h.old_start + h.old_count)
                if h.old_count
                else (h.old_start, h.old_start + 1)
            )
        }
        by_line = coverage_map.contexts_by_lineno(change.path)
        found |= {t for n in rewritten if n in moves for t in by_line.get(moves[n], ())}
    return ids(found)


def _ordered(
    store: Store, impact: Impact, found: _Found, first: set[int], failures: Mapping[str, int]
) -> Impact:
    listed = {s.symbol.id for s in (*impact.tests, *impact.possible_tests)}
    symbols = store.symbols_by_ids(set(found.tests) - listed)
    added = [
        _added(symbols[sid], why, found.runs.get(sid, ()))
        for sid, why in found.tests.items()
        if sid in symbols
    ]
    impact = replace(
        impact,
        tests=tuple(_as_itself(s, found) for s in impact.tests),
        possible_tests=tuple(_as_itself(s, found) for s in impact.possible_tests),
    )
    everything = set(store.test_cases_under("")) - listed - set(found.tests) if found.everything else set()
    why = f"every test runs: {found.everything}"
    rest = [
        _added(s, why, weight=EVERYTHING_WEIGHT, possible=True)
        for s in store.symbols_by_ids(everything).values()
    ]
    candidates = [*impact.tests, *added, *impact.possible_tests, *rest]

    def tier(s: ScoredSymbol) -> int:
        if s.symbol.id in first:
            return TIER_RAN_LINE
        if s.evidence is not None and s.evidence.source == "coverage" and s.distance <= 1:
            return TIER_RAN_SYMBOL
        if s.evidence is None or not s.evidence.possible:
            return TIER_SURE
        return TIER_REST if s.symbol.id in everything else TIER_POSSIBLE

    last_failed = function_failures(failures)

    def key(p: tuple[int, ScoredSymbol]) -> tuple[int, int, int, str, int]:
        rank, s = tier(p[1]), test_id(p[1])
        return rank, p[1].distance, -last_failed.get(s, 0), s if rank <= TIER_RAN_SYMBOL else "", p[0]

    keyed = sorted(enumerate(candidates), key=key)
    ordered = [s for _, s in keyed]
    sure = tuple(s for s in ordered if tier(s) <= TIER_SURE)
    possible = tuple(s for s in ordered if tier(s) > TIER_SURE)
    return replace(impact, tests=sure, possible_tests=possible)


def _as_itself(test: ScoredSymbol, found: _Found) -> ScoredSymbol:
    """A test listed by the ids the map saw run the change (a subclass's run of an inherited test)
    that a rule also adds: under the ids the rule's map contexts name too, or, for a rule that takes
    the test itself (edited since, its file new), its own id too (pytest runs it as itself)."""
    if test.symbol.id not in found.tests or not test.runs:
        return test
    more = found.runs.get(test.symbol.id) or ({test_id(test)} if test.symbol.is_test_case else set())
    return replace(test, runs=tuple(sorted({*test.runs, *more})))


def _added(
    symbol: Symbol, why: str, runs: Iterable[str] = (), weight: float = RULE_WEIGHT, possible: bool = False
) -> ScoredSymbol:
    return ScoredSymbol(
        symbol,
        weight,
        {"impact": weight},
        (why,),
        distance=1,
        evidence=Evidence("coverage", 1.0, why, possible, "coverage"),
        runs=tuple(sorted(runs)),
    )


def selection_order(order: Mapping[str, int], nodeid: str) -> int | None:
    """Where a collected test falls in a selection of test ids (``order``: id -> rank): its own id,
    else that of its function (parameters stripped), its class, its file, or a directory above it."""
    candidates = [nodeid, nodeid.split("[", 1)[0]]
    parts = candidates[-1].split("::")
    candidates += ["::".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)]
    directories = parts[0].split("/")[:-1]
    candidates += ["/".join(directories[:end]) for end in range(len(directories), 0, -1)]
    return next((order[c] for c in candidates if c in order), None)


def map_source(root: Path) -> CoverageSource | None:
    """mnemo's coverage map of ``root`` as the source of a change's tests, when there is one."""
    path = map_path(root)
    if not path.is_file():
        return None
    with reading(path) as coverage_map:
        commit = coverage_map.commit
    return CoverageSource(path, commit or "HEAD", "mnemo's coverage map", required=True, is_map=True)
