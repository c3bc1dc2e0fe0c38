"""Change context: changed symbols -> blast radius -> impacted tests -> history -> risk -> answer.

``analyse`` runs the steps for a list of changed symbols (from a diff or from whole files) and
returns an :class:`Impact` plus the ranked symbols that go into the budgeted answer: the changed
symbols first, then their callers and their tests, strongest dependency first.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.change.diffmap import ChangedSymbol, FileSummary
from mnemo_core.change.dynamic import (
    FALLBACK_STATES,
    IMPORTS_MODULE,
    NAMED_AFTER,
    NAMED_FOR_MODULE,
    WALK_CUT,
    DynamicReach,
    called_through_uncalled,
    fallback_source,
    fallback_tests,
    reached_dynamically,
    uncalled,
)
from mnemo_core.change.impact import OWN_RUN, BlastRadius, Reach, blast_radius, folded, tests_beside
from mnemo_core.change.measured import (
    CALLS_NEW,
    CO_RAN,
    COVERAGE_RESOLUTION,
    CoverageEvidence,
    CoverageSource,
    Touched,
)
from mnemo_core.change.references import dangling_references, dropped_imports
from mnemo_core.change.risk import Dangling, RiskInput, verdict
from mnemo_core.index.store import Store
from mnemo_core.model import (
    TYPE_ONLY_KINDS,
    Evidence,
    Impact,
    LeftReference,
    ScoredSymbol,
    Symbol,
    symbol_test_id,
)
from mnemo_core.vcs.blame import (
    Blame,
    blame_files,
    churn_in_ranges,
    newest_commit_in_ranges,
    times_in_ranges,
)
from mnemo_core.vcs.history import relative_date

BLAME_CALLER_FILES = 8  # line-level history for the files of the strongest callers only
PATH_SHOWN = 4  # hops of a dependency path spelled out in a reason
CHANGED_SCORE = 1.0
COMMENTS_ONLY = (
    "only its comments, docstrings, layout or the spelling of its annotations changed: nothing that calls "
    "or tests it can tell"
)
UNSEEN_REASON = "changed only what its importers cannot see (imports, private names, new exports)"


@dataclass(frozen=True)
class ChangeAnalysis:
    """The impact section and the ranked symbols of a change."""

    impact: Impact
    ranked: list[ScoredSymbol]
    dangling: list[Dangling]
    notes: tuple[str, ...] = ()  # where the tests came from, when coverage data was given
    made: int = 0  # when the answer was made (Unix seconds): its relative dates are as of then
    dated: tuple[int, ...] = ()  # the commit times its relative dates and churn were read from


def analyse(
    store: Store,
    root: Path,
    changed: list[ChangedSymbol],
    files: list[FileSummary],
    depth: int,
    base: str | None,
    coverage: CoverageSource | None = None,
) -> ChangeAnalysis:
    """Blast radius, tests, history and risk of a set of changed symbols; with ``coverage``, the
    tests of each symbol it measured are those that ran it (``change.coverage``)."""
    indexed = _indexed(store, changed)
    touched = _touched(changed, indexed)
    changed = _once(changed)
    evidence = _measured(store, root, indexed.values(), coverage, touched) if coverage else None
    measured = evidence.tests if evidence else {}
    definitions = _definitions(store, indexed, touched, measured)
    quiet = frozenset(indexed[c.key].id for c in changed if c.comments_only and c.key in indexed)
    walked = sorted({d for sid, ids in definitions.items() if sid not in quiet for d in ids})
    unseen = frozenset(indexed[c.key].id for c in changed if c.unseen and c.key in indexed)
    beside = tests_beside(store, [d for d in walked if d not in measured])  # forked before any thread
    try:
        old_paths = sorted({c.old_path for c in changed if c.old_path and c.old_lines})
        base_blame = _blaming(root, old_paths if base is not None else [], base)  # beside the walks
        blast = folded(blast_radius(store, walked, depth, measured, unseen, beside), definitions)
    finally:
        if beside is not None:
            beside.close()  # only if the walks stopped before they took the child's answer
    caller_files = list(dict.fromkeys(blast.symbols[r.symbol_id].path for r in blast.callers))
    head_blame = _blaming(root, caller_files[:BLAME_CALLER_FILES], None)  # beside the fallback's walks
    reached_by_tests = {sid for sid, tests in blast.tests_of.items() if tests.sure}
    existing = [
        indexed[c.key]
        for c in changed
        if c.key in indexed and c.status not in ("added", "deleted") and not c.comments_only
    ]
    unreached = {  # no test reaches them, not even through a guess
        s.id: definitions.get(s.id, [s.id]) for s in existing if not s.is_test and not _any_test(blast, s.id)
    }
    dynamic = {
        **called_through_uncalled(store, unreached),
        **_uncalled(store, existing, definitions),
        **reached_dynamically(store, [s.id for s in indexed.values() if s.id not in quiet]),
    }
    offered = {  # coverage data that measured a symbol is the answer: no fallback for it
        s.id: fallback_tests(store, s, dynamic[s.id])
        for s in indexed.values()
        if s.id in dynamic and s.id not in reached_by_tests and not s.is_test and s.id not in measured
    }
    fallback = {sid: tests for sid, (tests, _) in offered.items()}
    untested = [
        c
        for c in changed
        if c.status != "deleted"
        and not c.comments_only
        and c.kind != "module"
        and c.kind not in TYPE_ONLY_KINDS
        and not c.is_test
        and (c.key not in indexed or indexed[c.key].id not in reached_by_tests)
    ]
    measured_keys = frozenset(key for key, s in indexed.items() if s.id in measured)
    undeterminable = [
        c
        for c in untested
        if c.key in indexed and indexed[c.key].id in dynamic and c.key not in measured_keys
    ]
    untested = [c for c in untested if c not in undeterminable]
    dangling = dangling_references(store, [c for c in changed if c.status in ("deleted", "renamed")])
    dangling += dropped_imports(store, [c for c in changed if c.dropped])
    history = _History(changed, base_blame.result(), head_blame.result())
    risk, reasons = verdict(
        RiskInput(
            changed,
            len(blast.callers),
            untested,
            dangling,
            history.churn,
            measured_keys,
            [c for c in undeterminable if not dynamic[indexed[c.key].id].uncalled],
            len(blast.tests),
            [c for c in undeterminable if dynamic[indexed[c.key].id].uncalled],
        )
    )
    left_behind = Counter(d.symbol.key for d in dangling)
    dynamically = _Dynamic(
        dynamic,
        fallback,
        store.symbols_by_ids(
            {i for tests in fallback.values() for t, r in tests.items() for i in (t, r.path[-1])}
        ),
        {sid: narrowed for sid, (_, narrowed) in offered.items() if narrowed},
    )
    changed_scored = [
        _changed_symbol(
            c,
            indexed.get(c.key),
            i,
            blast,
            reached_by_tests,
            history,
            left_behind[c.key],
            dynamically,
            evidence,
            touched.get(indexed[c.key].id) if c.key in indexed else None,
        )
        for i, c in enumerate(changed)
    ]
    # the changed definitions first: a module's edited imports or top-level lines are its context
    changed_scored.sort(key=lambda s: s.symbol.kind == "module")
    callers = [_reach_symbol(r, blast, history, "caller") for r in blast.callers]
    tests = [_reach_symbol(r, blast, history, "test") for r in blast.tests]
    listed = {r.symbol_id for r in (*blast.tests, *blast.possible_tests)}
    guessed = _fallback_symbols(indexed, dynamically, listed)
    impact = Impact(
        tuple(changed_scored),
        tuple(callers),
        tuple(tests),
        risk,
        tuple(reasons),
        tuple(f"{f.status} {f.path}" + (f" ({f.note})" if f.note else "") for f in files),
        tuple(_reach_symbol(r, blast, history, "possible") for r in blast.possible_callers),
        tuple(_reach_symbol(r, blast, history, "possible") for r in blast.possible_tests) + guessed,
        tuple(LeftReference(d.symbol.old_name or d.symbol.name, d.path, d.line, d.scope) for d in dangling),
    )
    notes = evidence.notes if evidence else ()
    ranked: dict[int, ScoredSymbol] = {}
    for s in (*changed_scored, *callers, *tests):  # a test the change adds is listed once, as changed
        ranked.setdefault(s.symbol.id, s)
    dated = tuple(sorted(history.dated))
    return ChangeAnalysis(impact, list(ranked.values()), dangling, notes, history.now, dated)


@dataclass(frozen=True)
class _Dynamic:
    """The changed symbols dynamic dispatch reaches, and for those no test reaches statically,
    the fallback tests (``change.dynamic``)."""

    reach: dict[int, DynamicReach]
    fallback: dict[int, dict[int, Reach]]
    symbols: dict[int, Symbol]  # the fallback tests and the neighbours they test
    narrowed: dict[int, str]  # how a symbol's fallback was narrowed ("that name it", ...)


def _fallback_symbols(
    indexed: dict[str, Symbol], dynamic: _Dynamic, listed: set[int]
) -> tuple[ScoredSymbol, ...]:
    """The fallback tests, as possible tests with the reason they are offered (each once)."""
    chosen: dict[int, tuple[Reach, Symbol]] = {}
    for symbol in sorted(indexed.values(), key=lambda s: s.id):
        for sid, r in dynamic.fallback.get(symbol.id, {}).items():
            if sid not in listed and sid not in chosen:
                chosen[sid] = (r, symbol)
    symbols = dynamic.symbols
    found = []
    for sid, (r, changed) in chosen.items():
        if sid not in symbols:
            continue
        neighbour = symbols[r.path[-1]].name if r.path[-1] in symbols else "?"
        where = {
            IMPORTS_MODULE: f"in a test file that imports the module of {changed.name}",
            NAMED_AFTER: f"named after {changed.name}",
            NAMED_FOR_MODULE: f"in a test file named after the module of {changed.name}",
            WALK_CUT: f"every test: the walks from the other symbols of the module of {changed.name} were "
            f"cut after {FALLBACK_STATES:,} states",
        }.get(fallback_source([r]), f"tests {neighbour}, in the module of {changed.name}")
        why = f"{where}, which is {dynamic.reach[changed.id].reason}; tests not determinable statically"
        found.append(
            ScoredSymbol(
                symbols[sid],
                round(r.weight * r.confidence, 4),
                {"impact": round(r.weight * r.confidence, 4), "hops": float(r.depth)},
                (why, f"possible: a stated fallback ({r.resolution}, confidence {r.confidence:.2f})"),
                distance=r.depth,
                evidence=Evidence(r.resolution, r.confidence, why, True),
            )
        )
    return tuple(sorted(found, key=lambda s: (-s.score, s.symbol.id)))


def _once(changed: list[ChangedSymbol]) -> list[ChangedSymbol]:
    """Each changed name once: overloads (or a property's getter and setter) are one symbol here."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for c in changed:
        if (c.key, c.status) not in seen:
            seen.add((c.key, c.status))
            kept.append(c)
    return kept


def _indexed(store: Store, changed: list[ChangedSymbol]) -> dict[str, Symbol]:
    keys = [(c.path, c.name, c.kind) for c in changed if c.status != "deleted"]
    found = store.symbols_by_keys(keys)
    return {f"{path}:{name}": s for (path, name, _), s in found.items()}


def _definitions(
    store: Store, indexed: dict[str, Symbol], touched: dict[int, Touched], measured: Mapping[int, object]
) -> dict[int, list[int]]:
    """For each changed symbol, the definitions of its name the change touched (its namesakes in
    source order: a property's setter when only the setter changed), where the index has as many as
    the change does; the symbol alone otherwise, or where coverage data measured it."""
    found: dict[int, list[int]] = {}
    for symbol in indexed.values():
        ranks = touched.get(symbol.id)
        ids = store.namesakes(symbol.id) if ranks is not None and ranks.namesakes > 1 else []
        if ranks is None or symbol.id in measured or len(ids) != ranks.namesakes:
            found[symbol.id] = [symbol.id]
        else:
            found[symbol.id] = [ids[r] for r in sorted(ranks.ranks)]
    return found


def _any_test(blast: BlastRadius, sid: int) -> bool:
    """Whether a test reaches the changed symbol, surely or through a guess."""
    tests = blast.tests_of.get(sid)
    return tests is not None and bool(tests.sure or tests.possible)


def _uncalled(
    store: Store, existing: list[Symbol], definitions: Mapping[int, list[int]]
) -> dict[int, DynamicReach]:
    """The changed methods whose touched definitions nothing in the repository calls (a property's
    setter that only an outside object's attribute is assigned through)."""
    touched = store.symbols_by_ids({d for s in existing for d in definitions.get(s.id, [s.id])})
    quiet = uncalled(store, touched.values())
    return {
        s.id: quiet[ids[0]]
        for s in existing
        if (ids := definitions.get(s.id, [s.id])) and all(d in quiet for d in ids)
    }


def _measured(
    store: Store, root: Path, symbols: Iterable[Symbol], coverage: CoverageSource, touched: dict[int, Touched]
) -> CoverageEvidence:
    """The coverage reader's evidence (loaded only for a change that has coverage data to read)."""
    from mnemo_core.change.coverage import coverage_evidence

    return coverage_evidence(store, root, symbols, coverage, touched)


def _touched(changed: list[ChangedSymbol], indexed: dict[str, Symbol]) -> dict[int, Touched]:
    """For each changed symbol, which definitions of its name the change touched."""
    found: dict[int, Touched] = {}
    for c in changed:
        if c.key in indexed and c.status != "deleted":
            sid = indexed[c.key].id
            before = found.get(sid, Touched(frozenset(), c.namesakes))
            found[sid] = Touched(before.ranks | {c.rank}, c.namesakes)
    return found


def _blaming(root: Path, paths: list[str], rev: str | None) -> Future[dict[str, Blame]]:
    """The blames of ``paths`` at ``rev`` (None: the working tree), begun in a thread: git's
    processes (a history walk per file not kept) run on another core while the walks, which need
    none of them, run on this one."""
    if not paths:
        done: Future[dict[str, Blame]] = Future()
        done.set_result({})
        return done
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-blame")
    try:
        return pool.submit(blame_files, root, paths, rev=rev)
    finally:
        pool.shutdown(wait=False)  # the blames go on; ``result()`` waits for them


class _History:
    """Line-level history: for changed symbols, of the base version (what the change replaced)."""

    def __init__(
        self, changed: list[ChangedSymbol], base_blame: dict[str, Blame], head_blame: dict[str, Blame]
    ) -> None:
        self.now = int(time.time())
        self.dated: set[int] = set()  # the commit times the answer's words depend on (``change.answers``)
        self.churn: dict[str, int] = {}
        self.base_blame = base_blame  # of the changed symbols' files at the base
        self.head_blame = head_blame  # of the strongest callers' files in the working tree
        for c in changed:
            blame = self.base_blame.get(c.old_path or "")
            if blame and c.old_lines:
                self.churn[c.key] = churn_in_ranges(blame, [c.old_lines], self.now)
                self.dated |= times_in_ranges(blame, [c.old_lines])

    def last_change(self, path: str | None, lines: tuple[int, int] | None, base_side: bool) -> str | None:
        blame = (self.base_blame if base_side else self.head_blame).get(path or "")
        commit = newest_commit_in_ranges(blame, [lines]) if blame and lines else None
        if commit is None:
            return None
        if commit.uncommitted:
            return "has uncommitted edits"
        when = relative_date(commit.time, self.now)
        self.dated.add(commit.time)
        return f"last changed {when} by {commit.author} ({commit.sha[:7]}: {commit.summary})"


def _changed_symbol(
    c: ChangedSymbol,
    symbol: Symbol | None,
    ordinal: int,
    blast: BlastRadius,
    tested: set[int],
    history: _History,
    dangling: int,
    dynamic: _Dynamic,
    evidence: CoverageEvidence | None = None,
    touched: Touched | None = None,
) -> ScoredSymbol:
    """A changed symbol with its reasons; its components also count what it affects (``callers``,
    ``tests``; ``dangling`` references for a deleted or renamed one), for renderers' tables."""
    sym = symbol or _placeholder(c, ordinal)
    reasons = [_describe(c)]
    if touched is not None and touched.namesakes > 1:
        short = c.name.rsplit(".", 1)[-1]
        reasons.append(f"{len(touched.ranks)} of the {touched.namesakes} definitions of {short} here")
    if c.signature_changed:
        old = (c.old_signature or "").rstrip(";")  # a statement's end: the reasons are joined by "; "
        reasons.append(f"{'value' if c.kind == 'constant' else 'signature'} was: {old}")
    before = history.last_change(c.old_path, c.old_lines, base_side=True)
    if before:
        reasons.append(before.replace("last changed", "before this change, last changed", 1))
    churn = history.churn.get(c.key)
    if churn:
        reasons.append(f"{churn} commit{'s' if churn != 1 else ''} on these lines in the last 90 days")
    components = {"change": CHANGED_SCORE, "churn": float(churn or 0)}
    reaching = blast.tests_of.get(sym.id)
    sure = _test_ids(reaching.sure if reaching else {}, blast.symbols)
    possible = _test_ids(reaching.possible if reaching else {}, blast.symbols)
    how = dynamic.reach.get(sym.id)
    if c.comments_only:
        reasons.append(COMMENTS_ONLY)
    elif c.status != "deleted" and c.kind != "module" and not c.is_test:
        dependants = blast.dependants_of.get(sym.id, 0)
        tests = len(sure)
        reasons.append(
            f"{dependants} dependant{'s' if dependants != 1 else ''}, "
            + (
                f"{tests} test{'s reach' if tests != 1 else ' reaches'} it"
                if sym.id in tested
                else "a type: no code of its own for a test to run"
                if c.kind in TYPE_ONLY_KINDS
                else "no test reaches it statically"
                if how
                else "no test reaches it"
            )
        )
        if evidence is not None and sym.id in evidence.tests:
            through = any(r.labels[-1] == CALLS_NEW for r in evidence.tests[sym.id].sure.values())
            ran = "its callers' lines (it is new since)" if through else "its lines"
            reasons.append(
                f"coverage data of {evidence.commit[:10]}: "
                + (f"{tests} test{'s' if tests != 1 else ''} ran {ran}" if tests else "no test ran its lines")
            )
        if possible:
            reasons.append(f"{len(possible)} more possible (only through a name guess)")
        components.update(callers=float(dependants), tests=float(tests))
        measured = evidence is not None and sym.id in evidence.tests
        if how is not None and (sym.id in tested or measured):
            reasons.append(how.reason)
        elif how is not None:
            fallback = dynamic.fallback.get(sym.id, {})
            possible = tuple(sorted({*possible, *_test_ids(fallback, dynamic.symbols)}))
            named = f" {dynamic.narrowed[sym.id]}" if sym.id in dynamic.narrowed else ""
            whose = {
                IMPORTS_MODULE: f"the tests{named} in the test files that import its module",
                NAMED_AFTER: "the tests named after it",
                NAMED_FOR_MODULE: "the tests in the test files named after its module",
                WALK_CUT: "every test of the repository (the walks from its module's other symbols were cut "
                f"after {FALLBACK_STATES:,} states: more are offered, none left out)",
            }.get(fallback_source(fallback.values()), f"the tests of its module's other symbols{named}")
            reasons.append(
                f"{how.reason}; tests not determinable statically: {whose} are possible ({len(fallback)})"
                if fallback
                else f"{how.reason}; tests not determinable statically, and none to offer: no test reaches "
                "its module's other symbols, imports its module or is named after it or its module"
            )
            components["dynamic"] = 1.0
    if dangling:
        components["dangling"] = float(dangling)
    return ScoredSymbol(
        sym,
        CHANGED_SCORE,
        components,
        tuple(reasons),
        distance=0,
        changed=True,
        reached_by=sure,
        possibly_reached_by=possible,
    )


def _test_ids(tests: dict[int, Reach], symbols: dict[int, Symbol]) -> tuple[str, ...]:
    """Runnable ids (``path::Class::test``, a test file's path) of some tests, sorted."""
    return tuple(sorted(symbol_test_id(symbols[t]) for t in tests if t in symbols))


def _describe(c: ChangedSymbol) -> str:
    if c.kind == "module":
        return f"module-level code {c.status}" + (" (imports)" if c.imports_changed else "")
    if c.status == "renamed":
        return f"renamed from {c.old_name}" + (f" in {c.old_path}" if c.old_path != c.path else "")
    return f"{c.status} (no behaviour change)" if c.comments_only else c.status


def _placeholder(c: ChangedSymbol, ordinal: int) -> Symbol:
    """A symbol the index no longer has (deleted), described from the base side."""
    return Symbol(
        id=-(ordinal + 1),
        path=c.path,
        name=c.name,
        kind=c.kind,
        language="",
        signature=c.signature,
        docstring="",
        start_line=c.start_line,
        end_line=c.end_line,
        size=0,
        is_test=c.is_test,
        is_test_case=c.is_test_case,
        exported=c.exported,
    )


def _reach_symbol(r: Reach, blast: BlastRadius, history: _History, role: str) -> ScoredSymbol:
    """An impacted caller or test (``role``: "caller", "test", or "possible": reached only through
    a guess), with its evidence."""
    sym = blast.symbols[r.symbol_id]
    covered = r.resolution == COVERAGE_RESOLUTION
    path = _coverage_reason(r, blast.symbols) if covered else _path_reason(r, blast.symbols)
    reasons = [path]
    if role == "possible" and r.path[-1] in blast.unseen:
        reasons.append(f"possible: {blast.symbols[r.path[-1]].name} {UNSEEN_REASON}")
    elif role == "possible":
        reasons.append(f"possible: through a guess ({r.resolution}, confidence {r.confidence:.2f})")
    if role == "caller":
        last = history.last_change(sym.path, (sym.start_line, sym.end_line), base_side=False)
        if last:
            reasons.append(last)
    return ScoredSymbol(
        sym,
        round(r.weight, 4),
        {"impact": round(r.weight, 4), "hops": float(r.depth)},
        tuple(reasons),
        distance=r.depth,
        evidence=Evidence(
            r.resolution, r.confidence, path, role == "possible", "coverage" if covered else "static"
        ),
        runs=_runs(r, sym),
    )


def _runs(r: Reach, sym: Symbol) -> tuple[str, ...]:
    """The ids the test is printed by: its runs, ``OWN_RUN`` as its own id (a test pytest collects)."""
    own = (symbol_test_id(sym),) if OWN_RUN in r.runs and sym.is_test_case else ()
    return tuple(sorted({*(i for i in r.runs if i != OWN_RUN), *own}))


def _coverage_reason(r: Reach, symbols: dict[int, Symbol]) -> str:
    changed = symbols[r.path[-1]].name if r.path[-1] in symbols else "?"
    if r.labels[-1] == CALLS_NEW:
        caller = symbols[r.path[1]].name if r.path[1] in symbols else "?"
        return f"ran {caller}, which calls {changed}, new since the coverage data (coverage data)"
    if r.labels[-1] != CO_RAN:
        return f"ran the lines of {changed} (coverage data)"
    return (
        f"new since the coverage data, calling nothing the index resolves; "
        f"{r.confidence:.0%} of the tests of its class that do the same ran {changed} (coverage data)"
    )


def _path_reason(r: Reach, symbols: dict[int, Symbol]) -> str:
    if r.depth == 0:
        return "changed test"
    names = [symbols[i].name if i in symbols else "?" for i in r.path]
    hops = [
        f"{label} {name}"
        for label, name in zip(r.labels[:PATH_SHOWN], names[1 : PATH_SHOWN + 1], strict=True)
    ]
    more = " ..." if r.depth > PATH_SHOWN else ""
    return f"{' -> '.join(hops)}{more} (changed, {r.depth} hop{'s' if r.depth != 1 else ''})"


def file_symbols_as_changed(
    store: Store, paths: Iterable[str]
) -> tuple[list[ChangedSymbol], list[FileSummary]]:
    """Every definition of some files, treated as changed (``mnemo files``)."""
    changed: list[ChangedSymbol] = []
    summaries: list[FileSummary] = []
    for path in paths:
        symbols = [s for s in store.symbols_in_file(path) if s.kind != "module"]
        summaries.append(
            FileSummary(
                path,
                "selected",
                None,
                symbols[0].language if symbols else None,
                len(symbols),
                "" if symbols else "no symbols in the index",
            )
        )
        changed += [
            ChangedSymbol(
                path,
                s.name,
                s.kind,
                "selected",
                s.start_line,
                s.end_line,
                s.signature,
                s.exported,
                s.is_test,
                s.is_test_case,
            )
            for s in symbols
        ]
    return changed, summaries
