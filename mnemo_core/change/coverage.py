"""Coverage evidence: the tests that ran a changed symbol's lines, from a coverage.py data file.

The way pytest-testmon selects tests. A coverage.py data file recorded with per-test contexts
(pytest-cov's ``--cov-context=test``: ``tests/test_x.py::TestC::test_y[p]|run``, also ``|setup`` and
``|teardown``; or coverage's own ``dynamic_context = test_function``: ``tests.test_x.TestC.test_y``)
says which tests executed each line. The file does not say which commit it was measured at, so the
caller names it (``--coverage-commit``, default ``HEAD``). Each changed symbol's file is read at that
commit from git objects (never the work tree) and extracted with the index's own extractor; a symbol of
the same path and qualified name found there gets, as its tests, every test whose contexts covered its
**own lines** (``change.ownlines``): a function's from its first body line to its last, minus the bodies
of functions nested in it (the lines a ``def`` runs at import time belong to whoever imported it); a
class's whole body. A name defined several times in a file (a property's getter and setter,
``if``/``else`` variants, ``@overload`` stubs) has the lines of the definitions the change touched,
matched by rank when the file there defines the name as many times, else of all of them. Contexts name
tests; each is mapped to a test symbol of the index (a parametrised test is its function; an inherited
test method the base class's method, printed under the ids pytest ran it by, ``path::TestSub::test_x``). The
data vouches only for the tests it saw run: a test of the static graph that no context names (added
since, renamed, or not part of that run) is kept beside them where the data agrees with its path, unless
it is unchanged since in a file the data ran other tests of (it ran then, and reached nothing measured);
a new test whose calls the index cannot resolve is kept when most tests of its class that do the same
ran the symbol. A symbol renamed or moved since (its name is not in its file at that commit) is carried
back line by line through the diff from that commit to the working tree (the index's side), when most of
its lines are unchanged. A symbol new since then, in a file the coverage never measured, or module-level
code (it runs at import, outside any test) gets no coverage evidence: its tests come from the static
graph.

The data file belongs to the repository being analysed: it is opened through coverage.py's API
read-only and immutable (SQLite ignores journals beside it, and nothing is ever written), after a
size check, and nothing in it is executed.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple, Protocol

from mnemo_core.change.impact import HOP_DECAY, Reach, ReachingTests, is_name_match, tests_reaching
from mnemo_core.change.measured import CALLS_NEW as CALLS_NEW
from mnemo_core.change.measured import CO_RAN as CO_RAN
from mnemo_core.change.measured import COVERAGE_RESOLUTION as COVERAGE_RESOLUTION
from mnemo_core.change.measured import DEFAULT_COMMIT as DEFAULT_COMMIT
from mnemo_core.change.measured import CoverageEvidence as CoverageEvidence
from mnemo_core.change.measured import CoverageSource as CoverageSource
from mnemo_core.change.measured import Touched as Touched
from mnemo_core.change.measured import coverage_source as coverage_source
from mnemo_core.change.ownlines import own_line_sets, own_lines
from mnemo_core.errors import MnemoError
from mnemo_core.index.discovery import PytestDiscovery, read_discovery
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol, symbol_test_id
from mnemo_core.vcs.diff import ChangeStatus, Hunk, changed_files, files_at
from mnemo_core.vcs.refs import Snapshot, resolve_ref

if TYPE_CHECKING:
    import coverage

MAX_COVERAGE_BYTES = 1 << 30  # a suite of tens of thousands of tests stays well under this
COVERAGE_WEIGHT = HOP_DECAY  # a test that ran the code weighs like a direct caller in the ranking
MIN_UNCHANGED = 0.5  # share of a renamed or moved symbol's lines that must be unchanged to map it back
CO_RUN = 0.5  # a new test reaches the symbol when most tests that ran its path ran the symbol
CO_RUN_PEERS = 0.5  # a new test that calls no code under test the index can resolve runs the symbol
# when more than this share of the tests of its class the data saw ran it
MIN_PEERS = 3  # fewer such tests beside it are no evidence
CALLER_HOPS = 3  # how far up the static graph a symbol new since the data looks for measured callers
CALLER_CONFIDENCE = 0.8  # a test that ran the caller runs the new code unless the call is conditional
CALLER_EDGES = frozenset({"calls", "references"})
TEXTS_CACHED = 256  # files whose definitions' lines and texts are kept
ENTRY_DEPTH = 3  # calls from a test through its fixtures and helpers to the code under test
PHASES = ("|run", "|setup", "|teardown")  # pytest-cov's test phases: fixtures count like the test
_DOTTED = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+$")
_DEFINED = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


class TestRef(NamedTuple):
    """A test a context names: a pytest node (``path`` and ``name``) or a dotted name (``path`` None)."""

    path: str | None
    name: str


def coverage_evidence(
    store: Store,
    root: Path,
    symbols: Iterable[Symbol],
    source: CoverageSource,
    touched: Mapping[int, Touched] | None = None,
) -> CoverageEvidence:
    """The tests that ran each of ``symbols`` according to the coverage data (see the module);
    ``touched``: for a symbol whose name has several definitions, those the change touched."""
    try:
        sha = resolve_ref(root, source.commit)
    except MnemoError as exc:
        raise MnemoError(f"the commit the coverage was taken at: {exc}") from exc
    if not source.required and not source.path.exists():
        note = f"no coverage data at {source.path} ({source.named_by}): tests from the static graph"
        return CoverageEvidence(sha, {}, (note,))
    wanted = [s for s in symbols if s.kind != "module" and s.path.endswith((".py", ".pyi"))]
    with opened_coverage(source) as data:
        ran = _Runs(data, store, root, sha)
        found = {
            sid: ReachingTests({t: _reach(t, sid, ran.runs(sid, t)) for t in sorted(tests)}, {})
            for sid, tests in ran.of(wanted, touched).items()
        }
        found |= _through_callers(store, ran, [s for s in wanted if s.id not in found])
        # a complete map's unseen tests are new since: ``covmap.select`` adds those of a class that ran
        # the change, and they are kept here on their static path alone (not by their class's peers)
        found = _with_unseen_tests(store, found, ran, by_peers=not _complete(data))
    what = "mnemo's coverage map" if source.is_map else "coverage data"
    note = (
        f"tests of {len(found)} of {len(wanted)} changed symbols from {what} taken at {sha[:10]} "
        f"({source.path.name}); the others from the static graph (new since, or not measured)"
    )
    return CoverageEvidence(sha, found, (note,))


class CoverageReader(Protocol):
    """What the tests are read from: coverage.py's ``CoverageData``, or mnemo's coverage map."""

    def measured_files(self) -> set[str]: ...
    def measured_contexts(self) -> set[str]: ...
    def contexts_by_lineno(self, filename: str) -> dict[int, list[str]]: ...


def _complete(data: CoverageReader) -> bool:
    """Whether the data is a map of mnemo's recorded by a full run (see ``covmap.store``)."""
    return bool(getattr(data, "complete", False))


class TestLookup(NamedTuple):
    """Contexts (pytest node ids, dotted names) -> the test symbols of the index they name (``ids``),
    and of those, the ids pytest ran a test by where they are not its own (``made``: call it after
    ``ids`` with the same contexts; see ``_TestLookup.made``)."""

    ids: Callable[[Iterable[str]], set[int]]
    made: Callable[[Iterable[str]], dict[int, set[str]]]


def test_lookup(store: Store, root: Path, sha: str) -> TestLookup:
    """The lookup of tests by context, with the test files of the data's commit ``sha``."""
    lookup = _TestLookup(store, read_discovery(root), _Defined(root, sha))
    return TestLookup(lookup.ids, lookup.made)


class _Runs:
    """The tests the coverage data saw run symbols of the index (see the module)."""

    def __init__(self, data: CoverageReader, store: Store, root: Path, sha: str) -> None:
        self._data, self._store, self._root, self._sha = data, store, root, sha
        self.tests = _TestLookup(store, read_discovery(root), _Defined(root, sha))
        self._by_file: dict[str, dict[int, list[str]]] = {}
        self._measured = data.measured_files()
        self.made: dict[int, dict[int, set[str]]] = {}  # symbol -> test file -> the ids it made that ran it

    def seen(self) -> set[int]:
        """Every test of the index the data saw run."""
        return self.tests.ids(self._data.measured_contexts())

    def ran_nothing(self, tests: set[int], seen: set[int]) -> set[int]:
        """Of ``tests`` (none of them in the data), those the data's run had, unchanged, in a file
        it ran other tests of: they ran then and reached none of the measured code (a test that
        returns early on this platform), so the data vouches for them like for the tests it saw."""
        symbols = self._store.symbols_by_ids(tests | seen)
        files = {symbols[t].path for t in seen if t in symbols}
        wanted = [symbols[t] for t in tests if t in symbols and symbols[t].path in files]
        paths = {s.path for s in wanted}
        then, now = files_at(self._root, self._sha, paths), files_at(self._root, Snapshot.WORKTREE, paths)
        texts_then = {p: _texts(p, c) for p, c in then.items() if c is not None}
        texts_now = {p: _texts(p, c) for p, c in now.items() if c is not None}
        return {
            s.id
            for s in wanted
            if s.name in texts_then.get(s.path, {})
            and texts_then[s.path][s.name] == texts_now.get(s.path, {}).get(s.name)
        }

    def of(self, symbols: list[Symbol], touched: Mapping[int, Touched] | None = None) -> dict[int, set[int]]:
        """The tests that ran each symbol the data measured (the symbol itself left out)."""
        spans = _spans_by_name(self._root, self._sha, symbols, touched)
        missing = [s for s in symbols if s.id not in spans]
        if missing:
            spans |= _spans_by_lines(self._store, self._root, self._sha, missing)
        located = measured_paths(self._measured, self._root, {path for path, _ in spans.values()})
        found: dict[int, set[int]] = {}
        for sid, (path, lines) in sorted(spans.items()):
            if path not in located:
                continue
            if path not in self._by_file:
                self._by_file[path] = self._data.contexts_by_lineno(located[path])
            contexts = {c for line in lines for c in self._by_file[path].get(line, ())}
            found[sid] = self.tests.ids(contexts) - {sid}
            made = self.tests.made(contexts)
            if made:
                self.made[sid] = made
        return found

    def runs(self, symbol: int, test: int) -> tuple[str, ...]:
        """The ids of the tests file ``test`` made at run time that ran ``symbol`` (see ``of``)."""
        return tuple(sorted(self.made.get(symbol, {}).get(test, ())))


def _through_callers(store: Store, ran: _Runs, symbols: list[Symbol]) -> dict[int, ReachingTests]:
    """For each symbol the data never measured (new since it was taken), the tests that ran its
    nearest callers the data did measure, up the static graph's sure edges for ``CALLER_HOPS``: the
    code that calls it ran then, and runs it now. A caller the data measured is the end of its path,
    whether or not a test ran it."""
    found: dict[int, ReachingTests] = {}
    for symbol in symbols:
        frontier, seen = {symbol.id}, {symbol.id}
        via: dict[int, tuple[int, ...]] = {symbol.id: (symbol.id,)}
        tests: dict[int, Reach] = {}
        for _ in range(CALLER_HOPS):
            callers = {
                e.src: e.dst
                for e in store.edges_touching(frontier, "in")
                if e.type in CALLER_EDGES and not is_name_match(e.confidence) and e.src not in seen
            }
            named = store.symbols_by_ids(callers)
            code = [named[c] for c in sorted(callers) if c in named and not named[c].is_test]
            if not code:
                break
            seen |= set(callers)
            for c in code:
                via[c.id] = (c.id, *via[callers[c.id]])
            measured = ran.of(code)
            for sid, ran_it in measured.items():
                for test in sorted(ran_it):
                    tests.setdefault(test, _ran_caller(test, via[sid], ran.runs(sid, test)))
            frontier = {c.id for c in code} - set(measured)
        if tests:
            found[symbol.id] = ReachingTests(tests, {})
    return found


def _spans_by_name(
    root: Path, sha: str, symbols: list[Symbol], touched: Mapping[int, Touched] | None
) -> dict[int, tuple[str, frozenset[int]]]:
    """Each symbol's path and own lines at ``sha``, where its file there defines its name."""
    contents = files_at(root, sha, {s.path for s in symbols})
    touched = touched or {}
    several = {s.path for s in symbols if s.id in touched and touched[s.id].namesakes > 1}
    current = files_at(root, Snapshot.WORKTREE, several)
    spans: dict[int, tuple[str, frozenset[int]]] = {}
    for path, content in contents.items():
        lines = own_line_sets(path, content) if content is not None else {}
        now = current.get(path)
        for s in symbols:
            if s.path != path or s.name not in lines:
                continue
            old = Namesakes(content or b"", lines[s.name])
            new = Namesakes(now, own_line_sets(path, now).get(s.name, [])) if now is not None else None
            spans[s.id] = (path, _chosen(old, touched.get(s.id), new))
    return spans


class Namesakes(NamedTuple):
    """The definitions of one name in one version of a file: the file and each one's own lines."""

    content: bytes
    definitions: list[frozenset[int]]

    def text(self, rank: int) -> Counter[bytes]:
        """The stripped text of a definition's own lines, as a multiset."""
        lines = self.content.splitlines()
        return Counter(lines[n - 1].strip() for n in self.definitions[rank] if 0 < n <= len(lines))


@functools.lru_cache(maxsize=TEXTS_CACHED)
def _texts(path: str, content: bytes) -> dict[str, Counter[bytes]]:
    """The text of each name's definitions in one file (see ``Namesakes.text``); kept for the next
    change, which reads the same test files."""
    found: dict[str, Counter[bytes]] = {}
    for name, definitions in own_line_sets(path, content).items():
        namesakes = Namesakes(content, definitions)
        found[name] = sum((namesakes.text(r) for r in range(len(definitions))), Counter())
    return found


def _chosen(old: Namesakes, touched: Touched | None, new: Namesakes | None) -> frozenset[int]:
    """The own lines, at the data's commit, of the definitions of a name the change touched: for
    each touched definition the one whose text it shares most (``if``/``else`` variants reordered
    since), else the one of the same rank when the file has as many as the change's side, else all
    of them (which is which is unknown)."""
    definitions = old.definitions
    if touched is None or not touched.ranks or len(definitions) == 1:
        return frozenset().union(*definitions)
    if new is not None and len(new.definitions) == touched.namesakes:
        matched = [_most_alike(old, new.text(r), r) for r in sorted(touched.ranks) if r < touched.namesakes]
        if matched and None not in matched:
            return frozenset().union(*(definitions[m] for m in matched if m is not None))
    if touched.namesakes == len(definitions):
        return frozenset().union(*(definitions[r] for r in touched.ranks if r < len(definitions)))
    return frozenset().union(*definitions)


def _most_alike(old: Namesakes, text: Counter[bytes], rank: int) -> int | None:
    """The old definition sharing most lines with ``text`` (of equals, the one of the same rank);
    None when none shares any, or equals do not include that rank."""
    shared = [sum((old.text(i) & text).values()) for i in range(len(old.definitions))]
    alike = [i for i, n in enumerate(shared) if n == max(shared) and n > 0]
    if len(alike) == 1:
        return alike[0]
    return rank if rank in alike else None


def _spans_by_lines(
    store: Store, root: Path, sha: str, symbols: list[Symbol]
) -> dict[int, tuple[str, frozenset[int]]]:
    """For symbols renamed or moved since ``sha`` (their name is not in their file there): the same
    name in the file's old path (git's rename detection), else the symbol they were, found by
    carrying their lines in the working tree (the index's side) back through the diff from ``sha``.
    That old symbol must be gone from the file now, and at least ``MIN_UNCHANGED`` of the lines of
    each must be the other's."""
    changes = {c.path: c for c in changed_files(root, sha, Snapshot.WORKTREE)}
    current = files_at(root, Snapshot.WORKTREE, {s.path for s in symbols})
    olds = {(c.old_path or path): c for path, c in changes.items() if c.status != ChangeStatus.ADDED}
    before = files_at(root, sha, [old for old, c in olds.items() if c.path in current])
    spans: dict[int, tuple[str, frozenset[int]]] = {}
    for s in symbols:
        change, content = changes.get(s.path), current.get(s.path)
        old_path = change.old_path or s.path if change is not None else s.path
        old_content = before.get(old_path)
        if content is None or old_content is None:
            continue
        before_lines = own_lines(old_path, old_content)
        if s.name in before_lines:  # the same name in the file it was renamed from
            spans[s.id] = (old_path, before_lines[s.name])
            continue
        own = own_lines(s.path, content).get(s.name, frozenset())
        hunks = sorted(change.hunks, key=lambda h: h.new_start) if change is not None else []
        carried = {line for line in (_old_line(n, hunks) for n in own) if line is not None}
        now = {x.name for x in store.symbols_in_file(s.path)}
        for name, lines in before_lines.items():
            shared = len(carried & lines)
            if name not in now and shared and shared >= MIN_UNCHANGED * max(len(own), len(lines)):
                spans[s.id] = (old_path, lines)
                break
    return spans


def _old_line(line: int, hunks: list[Hunk]) -> int | None:
    """The old-side number of a new-side line of a zero-context diff; None for a changed line."""
    offset = 0
    for h in hunks:
        last = h.new_start + h.new_count - 1 if h.new_count else h.new_start
        if h.new_count and h.new_start <= line <= last:
            return None
        if last >= line:
            break
        offset += h.new_count - h.old_count
    return line - offset


def _with_unseen_tests(
    store: Store, found: dict[int, ReachingTests], ran: _Runs, by_peers: bool = True
) -> dict[int, ReachingTests]:
    """Add to each symbol's tests those the coverage data never saw run (added or renamed since, or
    left out of that run): it can vouch only for the tests it saw. Such a test is kept when the data
    agrees it leads to the symbol:

    - on its static path: at least ``CO_RUN`` of the tests the data saw run the first measured
      symbol on that path (the test's callee, or past its fixtures and helpers) also ran the symbol
      (a new test calling ``CliRunner.invoke`` reaches everything statically, but runs only what
      invoking its own command runs);
    - or, for a test none of whose calls the index resolves into the code under test (directly or
      through its fixtures and helpers: ``self.parser.parse(...)`` on an attribute of unknown type),
      when more than ``CO_RUN_PEERS`` of the tests of its class the data saw that, like it, call
      nothing the index resolves (``MIN_PEERS`` at least) ran the symbol: a test of ``v.scan(...)``
      beside others of ``v.scan(...)``, not a test of the standard library beside tests of the code
      (not ``by_peers``: a complete map's class peers are ``covmap.since``'s).
    """
    static = tests_reaching(store, found)
    seen = ran.seen()
    unseen = set(store.test_cases_under("")) - seen
    unseen -= ran.ran_nothing(unseen, seen)
    candidates = {
        sid: {
            t: r
            for t, r in (*static[sid].sure.items(), *static[sid].possible.items())
            if t in unseen and t not in found[sid].sure
        }
        for sid in found
    }
    between = {n for reaches in candidates.values() for r in reaches.values() for n in r.path[1:-1]}
    entries = _entries(store, unseen) if by_peers else {}
    peers = _peers(store, {t for t in unseen if by_peers and not entries[t]}, seen)
    alike = _entries(store, {p for group in peers.values() for p in group})
    peers = {t: {p for p in group if not alike[p]} for t, group in peers.items()}
    grouped = sorted(t for t, group in peers.items() if len(group) >= MIN_PEERS)
    callees = store.symbols_by_ids(between)
    runs = ran.of([s for s in callees.values() if s.kind != "module" and s.path.endswith((".py", ".pyi"))])
    merged: dict[int, ReachingTests] = {}
    for sid, covered in found.items():
        ran_it = set(covered.sure)

        def share(callers: set[int], ran_it: set[int] = ran_it) -> float:
            return len(callers & ran_it) / len(callers) if callers else 1.0

        kept = {
            t: r
            for t, r in candidates[sid].items()
            if share(next((runs[n] for n in r.path[1:-1] if runs.get(n)), set())) >= CO_RUN
        }
        sure = covered.sure | {t: r for t, r in kept.items() if t in static[sid].sure}
        for t in grouped:
            if t not in sure and t != sid and share(peers[t]) > CO_RUN_PEERS:
                sure[t] = _co_ran(t, sid, share(peers[t]))
        merged[sid] = ReachingTests(sure, {t: r for t, r in kept.items() if t not in sure})
    return merged


def _peers(store: Store, tests: set[int], seen: set[int]) -> dict[int, set[int]]:
    """The tests the data saw beside each of ``tests``: those of its class (for a test outside any
    class, the others of its file outside classes)."""
    symbols = store.symbols_by_ids(tests | seen)
    groups: dict[tuple[str, str], set[int]] = {}
    for t in seen:
        if t in symbols:
            groups.setdefault((symbols[t].path, symbols[t].name.rpartition(".")[0]), set()).add(t)
    return {
        t: groups.get((s.path, s.name.rpartition(".")[0]), set()) - {t}
        for t, s in ((t, symbols[t]) for t in tests if t in symbols)
    }


def _entries(store: Store, tests: Iterable[int]) -> dict[int, set[int]]:
    """The code under test each test calls, as far as the index resolves it: the symbols outside
    test files its calls lead to, directly or through fixtures and helpers in test files (at most
    ``ENTRY_DEPTH`` calls away; calls resolved by name alone are left out)."""
    found: dict[int, set[int]] = {}
    with store.remembering():
        for test in tests:
            frontier, visited, entries = {test}, {test}, set()
            for _ in range(ENTRY_DEPTH):
                edges = store.edges_touching(frontier, "out")
                targets = {e.dst for e in edges if e.type == "calls" and not is_name_match(e.confidence)}
                symbols = store.symbols_by_ids(targets - visited)
                visited |= set(symbols)
                entries |= {i for i, s in symbols.items() if not s.is_test}
                frontier = {i for i, s in symbols.items() if s.is_test and not s.is_test_case}
                if not frontier:
                    break
            found[test] = entries
    return found


@contextmanager
def opened_coverage(source: CoverageSource) -> Iterator[CoverageReader]:
    """The tests' lines ``source`` names: mnemo's coverage map, or a coverage.py file."""
    if not source.is_map:
        yield open_coverage(source)
        return
    from mnemo_core.covmap.store import reading

    with reading(source.path) as coverage_map:
        yield coverage_map


def open_coverage(source: CoverageSource) -> coverage.CoverageData:
    """The coverage data, read-only; a MnemoError when it is missing, too big, or not coverage.py
    data with per-test contexts."""
    path = source.path
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MnemoError(f"{source.named_by}: cannot read {path}: {exc.strerror}") from exc
    if not path.is_file():
        raise MnemoError(f"{source.named_by}: {path} is not a file")
    if size > MAX_COVERAGE_BYTES:
        raise MnemoError(
            f"{source.named_by}: {path} is {size} bytes, more than the {MAX_COVERAGE_BYTES} read"
        )
    import coverage  # only when there is data to read: a change without it never loads coverage.py
    from coverage.exceptions import CoverageException

    data = coverage.CoverageData(basename=os.fspath(path), read_only=True)
    try:
        data.read()
        contexts = data.measured_contexts()
    except (CoverageException, sqlite3.Error) as exc:
        raise MnemoError(f"{source.named_by}: {path} is not a coverage.py data file ({exc})") from exc
    if not contexts - {""}:
        raise MnemoError(
            f"{source.named_by}: {path} has no per-test contexts; record it with "
            "`pytest --cov --cov-context=test` or `[run] dynamic_context = test_function`"
        )
    return data


def measured_paths(measured: Iterable[str], root: Path, paths: set[str]) -> dict[str, str]:
    """The measured file name of each of ``paths`` (repository-relative) that the data has. The data
    names files as they were on the machine that ran the tests (often another checkout), so a name
    matches the path it ends with; one under ``root`` is preferred."""
    here = root.resolve().as_posix().rstrip("/") + "/"
    found: dict[str, str] = {}
    for name in sorted(measured):
        posix = name.replace("\\", "/")
        relative = posix[len(here) :] if posix.startswith(here) else None
        for path in paths:
            if relative == path or (path not in found and (posix == path or posix.endswith("/" + path))):
                found[path] = name
    return found


def parse_context(context: str) -> TestRef | None:
    """The test a context names, or None for the empty context and labels that name no test."""
    if "::" in context:
        for phase in PHASES:
            if context.endswith(phase):
                context = context[: -len(phase)]
                break
        path, _, rest = context.partition("::")
        path = path.rsplit("|", 1)[-1]  # after a static context (``coverage run --context``)
        names = [n for n in rest.split("[", 1)[0].split("::") if n]  # parameters may hold anything
        return TestRef(path, ".".join(names)) if names else None
    dotted = context.rsplit("|", 1)[-1]
    if _DOTTED.match(dotted):
        return TestRef(None, dotted)
    return None


class _Defined:
    """Whether a file as it was at the commit the data was taken at defines a name (``def name``,
    ``class name``, at any depth)."""

    def __init__(self, root: Path, sha: str) -> None:
        self._root, self._sha = root, sha
        self._words: dict[str, frozenset[str]] = {}

    def __call__(self, path: str, name: str) -> bool:
        if path not in self._words:
            content = files_at(self._root, self._sha, [path]).get(path) or b""
            self._words[path] = frozenset(_DEFINED.findall(content.decode("utf-8", "replace")))
        return name in self._words[path]


class _TestLookup:
    """Contexts -> test symbol ids of the index, cached per context and per file."""

    def __init__(self, store: Store, discovery: PytestDiscovery, defined: _Defined) -> None:
        self._store, self._discovery, self._defined = store, discovery, defined
        self._files: list[str] | None = None
        self._tests: list[str] | None = None
        self._symbols: dict[str, dict[str, Symbol]] = {}
        self._known: dict[str, int | None] = {}
        self._made: dict[str, str] = {}  # context -> the pytest id of a test its file made at run time
        self._via_base: set[tuple[str, str]] = set()  # (path, Sub.test_x) found as a base's method

    def ids(self, contexts: Iterable[str]) -> set[int]:
        """The test symbols the contexts name (those the index does not have are left out)."""
        found: set[int] = set()
        for context in contexts:
            if context not in self._known:
                ref = parse_context(context)
                self._known[context] = self._find(context, ref) if ref else None
            sid = self._known[context]
            if sid is not None:
                found.add(sid)
        return found

    def made(self, contexts: Iterable[str]) -> dict[int, set[str]]:
        """Of the contexts ``ids`` was given, those naming tests pytest runs under another id than
        their test symbol's: per test symbol, the pytest ids that ran (a test its file made at run
        time: its class, ``path::TestPlugin_table``, or function; a test a class inherits:
        ``path::TestSub::test_x`` for ``Base.test_x``), and its own id beside them when some context
        named the symbol itself."""
        found: dict[int, set[str]] = {}
        plain: set[int] = set()
        for context in contexts:
            sid, made = self._known.get(context), self._made.get(context)
            if sid is not None and made is not None:
                found.setdefault(sid, set()).add(made)
            elif sid is not None:
                plain.add(sid)
        for sid, symbol in self._store.symbols_by_ids(plain & set(found)).items():
            found[sid].add(symbol_test_id(symbol))
        return found

    def _find(self, context: str, ref: TestRef) -> int | None:
        if ref.path is not None:
            paths = self._paths_ending(ref.path)
            for path in paths:
                named = self._named(path, ref.name)
                if named is not None:
                    if (path, ref.name) in self._via_base:  # pytest runs it under the subclass's id
                        self._made[context] = f"{path}::{ref.name.replace('.', '::')}"
                    return named
            named = self._elsewhere(ref)
            if named is not None:
                return named
            made = self._made_in(paths, ref.name.split(".", 1)[0])
            if made is None:
                return None
            self._made[context] = f"{made.path}::{ref.name.split('.', 1)[0]}"
            return made.id
        parts = ref.name.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module, name = ".".join(parts[:split]), ".".join(parts[split:])
            for path in self._module_files(module):
                sid = self._named(path, name)
                if sid is not None:
                    return sid
        return None

    def _named(self, path: str, name: str, exact: bool = False) -> int | None:
        """The test ``name`` in ``path``; else (unless ``exact``) the method a class there inherits
        (pytest runs ``Base.test_x`` as ``Sub::test_x``), else the nearest enclosing test."""
        if path not in self._symbols:
            self._symbols[path] = {s.name: s for s in self._store.symbols_in_file(path) if s.is_test}
        symbols = self._symbols[path]
        symbol = symbols.get(name)
        if symbol is not None and symbol.kind != "module":
            return symbol.id
        if exact:
            return None
        owner, _, method = name.rpartition(".")
        if owner in symbols:
            inherited = self._inherited(symbols[owner].id, method)
            if inherited is not None:
                self._via_base.add((path, name))
                return inherited
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            symbol = symbols.get(".".join(parts[:end]))
            if symbol is not None and symbol.kind != "module":
                return symbol.id
        return None

    def _inherited(self, cls: int, method: str) -> int | None:
        """The test ``method`` of the nearest base class of ``cls`` that defines it (breadth first
        over the index's ``inherits`` edges, as Python's method resolution mostly finds it)."""
        queue, seen = [cls], {cls}
        while queue:
            bases = [b for _, b in self._store.bases_of([queue.pop(0)], set()) if b not in seen]
            for base in self._store.symbols_by_ids(bases).values():
                found = self._named(base.path, f"{base.name}.{method}", exact=True)
                if found is not None:
                    return found
            seen.update(bases)
            queue.extend(bases)
        return None

    def _elsewhere(self, ref: TestRef) -> int | None:
        """A test its file does not define: one imported from another module (pytest collects it
        where it is imported), or one whose file is gone since the data was taken. The test of that
        qualified name in the package that replaced the module (``tests/test_utils.py`` ->
        ``tests/test_utils/``), else the only test of that name anywhere."""
        if ref.path is None:
            return None
        package = str(PurePosixPath(ref.path).with_suffix("")) + "/"
        tests = [p for p in self._test_files() if p.startswith(package)] or self._test_files()
        found = {sid for sid in (self._named(p, ref.name, exact=True) for p in tests) if sid is not None}
        return found.pop() if len(found) == 1 else None

    def _made_in(self, paths: list[str], name: str) -> Symbol | None:
        """A test its file made at run time under a name no ``def`` or ``class`` of it had when the
        data was taken (a class built in a function and published with ``globals()[name] = cls``): the test
        file's module, which stands for such tests (``mnemo tests`` prints the ids the data names).
        A test whose name the file defined then has been removed or renamed since: none."""
        for path in paths:
            if path in self._test_files() and not self._defined(path, name):
                module = self._store.module_of(path)
                if module is not None:
                    return module
        return None

    def _test_files(self) -> list[str]:
        if self._tests is None:
            specs = {p: language_for_path(p) for p in self._all_files()}
            self._tests = [
                p
                for p, spec in specs.items()
                if spec is not None and spec.hooks.is_test_file(p, self._discovery)
            ]
        return self._tests

    def _all_files(self) -> list[str]:
        if self._files is None:
            self._files = sorted(p for p in self._store.files() if p.endswith(".py"))
        return self._files

    def _paths_ending(self, path: str) -> list[str]:
        files = self._all_files()
        return [path] if path in files else [p for p in files if p.endswith("/" + path)]

    def _module_files(self, module: str) -> list[str]:
        """Files whose dotted module name ends with ``module`` (pytest may import a test file under
        its bare name, ``test_x``, or its package path, ``tests.test_x``)."""
        tail = "/" + module.replace(".", "/")
        return [
            p
            for p in self._all_files()
            if ("/" + _without_suffix(p)).endswith(tail)
            or ("/" + _without_suffix(p)).endswith(tail + "/__init__")
        ]


def _without_suffix(path: str) -> str:
    return str(PurePosixPath(path).with_suffix(""))


def _co_ran(test: int, symbol: int, share: float) -> Reach:
    """A test the data never saw, of which ``share`` of the tests beside it ran ``symbol``."""
    return Reach(
        test,
        1,
        COVERAGE_WEIGHT * HOP_DECAY,
        (test, symbol),
        (CO_RAN,),
        confidence=round(share, 2),
        resolution=COVERAGE_RESOLUTION,
    )


def _ran_caller(test: int, path: tuple[int, ...], runs: tuple[str, ...]) -> Reach:
    """A test that ran ``path[0]``, a measured caller of ``path[-1]``, a symbol new since the data."""
    return Reach(
        test,
        len(path),
        COVERAGE_WEIGHT * HOP_DECAY ** (len(path) - 1),
        (test, *path),
        ("ran", *[CALLS_NEW] * (len(path) - 1)),
        confidence=CALLER_CONFIDENCE,
        resolution=COVERAGE_RESOLUTION,
        runs=runs,
    )


def _reach(test: int, symbol: int, runs: tuple[str, ...]) -> Reach:
    return Reach(
        test,
        1,
        COVERAGE_WEIGHT,
        (test, symbol),
        ("ran",),
        confidence=1.0,
        resolution=COVERAGE_RESOLUTION,
        runs=runs,
    )
