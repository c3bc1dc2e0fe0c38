"""Blast radius and impacted tests: walks backwards from changed symbols over the graph.

A symbol is impacted by a change when it depends on it: it calls it, overrides it, inherits from
it, imports it, or is reached from it by dynamic dispatch (callers of a base method may land in an
overriding method that changed). Each hop multiplies the impact by the edge's confidence and by
``HOP_DECAY``; a symbol keeps its strongest path back to the change, which is what the answer
shows. Tests are found the same way, further out (``TEST_DEPTH``), through test helpers and pytest
fixtures, and stop at the first test case on each path. On the way to tests a path remembers the
classes its dispatch hops assumed, and a test keeps it only if it names them (``receivers``); a call
matched to a method by its name alone assumes the method's class the same way, unless the call site
names that class (``si = app.session_interface; si.open_session()``). A
call on ``self`` (or through ``super()``) in one class dispatches only into overrides of its own
class family: ``FileError.__init__`` calling ``super().__init__()`` never lands in a sibling's.

A path through a keyed registry (``FILTERS = {"upper": do_upper}``), or through a function handed
over under a keyword or beside a predicate (``update(upper=do_upper)``, ``register(is_counter,
gen_counter)``), assumes the entry the same way: the test must name the key or the function
(``registry_keys``); a path through a name-built dispatch into a handler named after a keyword
(``visit_For``) assumes the handler, and the test's strings must spell the keyword (``syntax_keys``).

Every path remembers its weakest link (the confidence and resolution of its least sure edge). A
dependant reached only through a link that is not ``is_sure`` (below ``SURE_FROM``) is a *possible*
caller or test: it is listed, but counts in no verdict. ``tests_reaching`` is the one definition of
the tests of a symbol.
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import NamedTuple

from mnemo_core.change.assumptions import Assumption
from mnemo_core.change.beside import Beside
from mnemo_core.change.evidence import NeedsEvidence, evidenced
from mnemo_core.change.flags import OptInFlags
from mnemo_core.change.hierarchy import hierarchy
from mnemo_core.change.receivers import ReceiverNames
from mnemo_core.change.steps import (
    DISPATCHES_TO,
    LOOKS_UP,
    PASSES,
    REFERENCE_LABELS,
    SUBCLASSES,
    Step,
    Steps,
    assumes_class,
)
from mnemo_core.index.store import Store
from mnemo_core.index.store.schema import connect_read_only
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.memo import BoundedCache
from mnemo_core.model import (
    PathResolution,
    Symbol,
)

# a link the resolver matched by name alone has at most this confidence: a unique match 0.5, a name
# defined 2 or 3 times 0.25 or 0.167 (resolve.CONFIDENCE["name"] shared among the definitions)
NAME_MATCH_MAX = 0.5
# a link at least this sure counts in verdicts: a unique name match (0.5) and everything above it; a
# match split between 2 or 3 definitions is as likely another symbol's as this one's
SURE_FROM = 0.5
MAX_NAME_MATCHES = 2  # a path through more name-only links is more likely wrong than right
HOP_DECAY = 0.6  # each hop away from the change makes a dependency less likely to break
OWN_RUN = ""  # in a test's ``runs``: its own id too (merged with a reach naming no runs: it runs as itself)
TEST_DEPTH = 12  # tests reach the code they exercise through helpers, fixtures and layers
# receiver assumptions kept per symbol: each layer of overrides a path climbs multiplies them
# (six layers of eight overrides: 32,768 for one method), so only the strongest are walked on
MAX_ASSUMPTIONS = 16
# a decorator is applied by each function it decorates: only the registry it writes leads on
AFTER_DECORATOR = frozenset({*REFERENCE_LABELS.values(), LOOKS_UP})
_DECORATOR = REFERENCE_LABELS["decorator"]
_SUBCLASS = REFERENCE_LABELS["subclass"]
_NOTHING: frozenset[Assumption] = frozenset()  # the assumptions of a path that assumed nothing


def is_name_match(confidence: float) -> bool:
    """Whether a link was matched by name alone (a unique match is one, and sure as well)."""
    return confidence <= NAME_MATCH_MAX


def is_sure(confidence: float) -> bool:
    """Whether a link counts in verdicts; what only links below it reach is *possible*."""
    return confidence >= SURE_FROM


State = tuple[int, frozenset[Assumption]]  # a symbol, and what its path assumed


@dataclass(frozen=True, slots=True)
class Reach:
    """An impacted symbol: hops from the change, strength, and its path back (self first)."""

    symbol_id: int
    depth: int
    weight: float
    path: tuple[int, ...]
    labels: tuple[str, ...]  # how each hop of ``path`` depends on the next (a step's ``Label``, or "ran")
    name_matches: int = 0  # hops matched by name alone on the way
    assumes: frozenset[Assumption] = frozenset()  # what its steps assumed, which a test must name
    receiver: int | None = None  # the class the last run of "dispatches to" hops went down to
    confidence: float = 1.0  # of the least sure edge of ``path``
    resolution: PathResolution = "changed"  # how that edge was resolved ("changed": the change itself)
    runs: tuple[str, ...] = ()  # the pytest ids that ran it (tests made at run time, a subclass's); OWN_RUN


@dataclass(slots=True)
class WalkBudget:
    """How many more states the walks that share it may reach; ``cut`` once one of them ran out
    (its answer is then partial, and whoever set the budget says so and answers more broadly)."""

    states: int
    cut: bool = False

    def spend(self, states: int) -> bool:
        """Take ``states`` from the budget; whether it ran out (then ``cut`` is set)."""
        self.states -= states
        self.cut = self.cut or self.states < 0
        return self.cut


def walk_back(
    store: Store,
    changed: Iterable[int],
    depth: int,
    stop_at_tests: bool = False,
    min_confidence: float = 0.0,
    budget: WalkBudget | None = None,
) -> dict[int, Reach]:
    """Everything within ``depth`` reverse hops of ``changed``, each with its strongest path. On the
    way to tests, paths that assume different receiver classes are walked apart, and each test keeps
    its strongest path among those it gives evidence for. Edges below ``min_confidence`` are not
    followed. With a ``budget``, the walk stops after the hop that spends it (``budget.cut``)."""
    return _strongest(store, *_walk(store, changed, depth, stop_at_tests, min_confidence, budget))


def _walk(
    store: Store,
    changed: Iterable[int],
    depth: int,
    stop_at_tests: bool,
    min_confidence: float,
    budget: WalkBudget | None,
) -> tuple[dict[State, _Path], set[int]]:
    """``walk_back``'s states, each with its strongest path, and the test cases among them."""
    reached: dict[State, _Path] = {
        (c, _NOTHING): _Path(c, 0, 1.0, None, "", 0, _NOTHING, None, 1.0, "changed") for c in changed
    }
    states: Counter[int] = Counter()  # per symbol, the states that assume classes so far
    frontier = sorted(reached, key=_state_order)
    test_cases: set[int] = set()
    readers = _readers(store)
    needs = NeedsEvidence(store) if stop_at_tests else None  # what a test must name
    receivers = readers.receivers if stop_at_tests else None
    flags = readers.flags if stop_at_tests else None
    known_steps = Steps(store, min_confidence)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        origins: dict[int, list[_Path]] = {}
        for state in frontier:
            origins.setdefault(state[0], []).append(reached[state])
        steps = known_steps(origins, receivers, flags)
        if needs is not None:
            needs.add((s.into, assumes_class(s), s.label != PASSES) for s in steps if s.into is not None)
        assumable = needs.needed if needs is not None else set()
        extended = _extend(reached, origins, steps, hop, assumable, readers.related, states)
        candidates = _bounded(extended, states)
        if stop_at_tests and candidates:
            symbols = store.symbols_by_ids({sid for sid, _ in candidates})
            test_cases |= {sid for sid, s in symbols.items() if s.is_test_case}
        reached.update(candidates)
        if budget is not None and budget.spend(len(candidates)):
            break
        frontier = sorted((state for state in candidates if state[0] not in test_cases), key=_state_order)
    return reached, test_cases


class _Path(NamedTuple):
    """A path being walked: ``Reach`` up to ``resolution``, as a tuple, each linked to the path it
    extends (a walk makes tens of thousands of them, and spells out the symbols and labels of a path
    only for those it answers with: ``_reach``)."""

    symbol_id: int
    depth: int
    weight: float
    prev: _Path | None  # the path one hop shorter, from the dependency of ``symbol_id`` (None: the change)
    label: str  # how ``symbol_id`` depends on ``prev``'s symbol ("" for the change)
    name_matches: int
    assumes: frozenset[Assumption]
    receiver: int | None
    confidence: float
    resolution: PathResolution


# a path made from its fields in C: a named tuple's own constructor is Python code, called once per
# state a walk reaches (a tenth of a walk's time)
_new_path = tuple.__new__


def _extend(
    reached: dict[State, _Path],
    origins: dict[int, list[_Path]],
    steps: list[Step],
    hop: int,
    assumable: set[Assumption],
    related: _Kinship,
    states: Counter[int],
) -> dict[State, _Path]:
    """The states one hop further, each with its strongest path, but those that assume something
    of a symbol with ``MAX_ASSUMPTIONS`` such states already (``states``: ``_bounded`` keeps none
    of them). (The walks' inner loop: what a step decides alone is settled once per step, what an
    origin's path begins with once per hop.)"""
    candidates: dict[State, _Path] = {}
    firsts = {node: [(o, o.label) for o in group] for node, group in origins.items()}
    for node, dependant, label, confidence, into, on_self, resolution in steps:
        if (dependant, _NOTHING) in reached:
            continue  # reached sooner assuming nothing: no path through this step is kept (below)
        overrides = label == "overrides"
        past_decorator = label not in AFTER_DECORATOR
        subclasses = label == SUBCLASSES
        dispatches = label == DISPATCHES_TO
        name_match = is_name_match(confidence)
        assumed = frozenset({into}) if into is not None and into in assumable else None
        full = states.get(dependant, 0) >= MAX_ASSUMPTIONS
        if full and assumed is not None:
            continue  # every path through it assumes something of a symbol with no room left
        for origin, first in firsts[node]:
            _, depth, weight, _, _, name_matches, assumes, receiver, weakest, weakest_how = origin
            if overrides and first == DISPATCHES_TO:
                continue  # up to a base method, then down to a sibling override: another class
            if past_decorator and first == _DECORATOR:
                continue  # from a decorator to the other functions it decorates: unrelated
            if subclasses and first == _SUBCLASS:
                continue  # from a hook to the other subclasses it runs for: they register themselves
            if on_self is not None and receiver is not None and not related(on_self, receiver):
                continue  # a call on self (or super()) in one class cannot land in an unrelated class
            name_matches += name_match
            if name_matches > MAX_NAME_MATCHES:
                continue
            if assumed is not None:
                assumes = assumes | assumed
            elif full and assumes:
                continue
            state = (dependant, assumes)
            if state in reached:
                continue  # reached sooner
            weight = weight * confidence * HOP_DECAY  # in this order: the same float every run
            known = candidates.get(state)
            if known is not None and known.weight >= weight:
                continue
            if dispatches:
                receiver = receiver if first == DISPATCHES_TO else into.symbol if into else None
            else:
                receiver = None
            if depth == 0 or confidence < weakest:
                weakest, weakest_how = confidence, resolution
            candidates[state] = _new_path(
                _Path,
                (
                    dependant,
                    hop,
                    weight,
                    origin,
                    label,
                    name_matches,
                    assumes,
                    receiver,
                    weakest,
                    weakest_how,
                ),
            )
    return candidates


def _bounded(candidates: dict[State, _Path], states: Counter[int]) -> dict[State, _Path]:
    """The candidates, with at most ``MAX_ASSUMPTIONS`` states that assume classes per symbol,
    counting those reached before (``states``, updated): the strongest paths, then the fewest
    classes. A state that assumes nothing is always kept."""
    kept = {state: reach for state, reach in candidates.items() if not state[1]}
    by_symbol: dict[int, list[State]] = {}
    for state in candidates:
        if state[1]:
            by_symbol.setdefault(state[0], []).append(state)
    for sid, options in by_symbol.items():
        room = MAX_ASSUMPTIONS - states[sid]
        if room <= 0:
            continue  # full: none is kept, whatever their order
        if len(options) > room:  # one symbol's: ordered by weight, then by their assumptions
            options.sort(key=lambda s: (-candidates[s].weight, len(s[1]), _assumptions_order(s[1])))
            del options[room:]
        states[sid] += len(options)
        kept.update((state, candidates[state]) for state in options)
    return kept


class _Kinship:
    """Whether two classes are one, or one inherits from the other (through the repository)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lineage: dict[int, set[int]] = {}

    def __call__(self, a: int, b: int) -> bool:
        return b in self._bases(a) or a in self._bases(b)

    def _bases(self, cls: int) -> set[int]:
        if cls not in self._lineage:
            self._lineage[cls] = hierarchy(self._store, cls, "out")
        return self._lineage[cls]


@dataclass(frozen=True, slots=True)
class _Readers:
    """What the walks over one index generation read of the repository besides the graph (kept
    while the generation lasts: each is a pure function of the index and the files it indexed)."""

    related: _Kinship
    receivers: ReceiverNames
    flags: OptInFlags


READERS_CACHED = 4  # stores whose readers (and the lines of the files they read) are kept: a server's threads
_READERS: BoundedCache[tuple[int, str, int], _Readers] = BoundedCache(READERS_CACHED)


def _readers(store: Store) -> _Readers:
    """The readers of ``store``'s generation, shared by its walks (each reads a caller's source once,
    not once per walk); per store object, as a connection serves the thread that made it."""
    key = (id(store), str(store.path), store.generation())  # the entry holds the store: its id stays its own
    known = _READERS.get(key)
    return (
        known
        if known is not None
        else _READERS.put(key, _Readers(_Kinship(store), ReceiverNames(store), OptInFlags(store)))
    )


def _strongest(store: Store, reached: dict[State, _Path], test_cases: set[int]) -> dict[int, Reach]:
    """Each symbol's shortest (then strongest) path; a test's among those it gives evidence for."""
    paths: dict[int, list[_Path]] = {}
    for state in sorted(reached, key=_state_order):
        paths.setdefault(state[0], []).append(reached[state])
    for options in paths.values():
        options.sort(key=lambda r: (r.depth, -r.weight))
    found = {sid: _reach(options[0]) for sid, options in paths.items() if sid not in test_cases}
    return found | _strongest_tests(store, {sid: paths[sid] for sid in test_cases})


def _strongest_tests(store: Store, paths: Mapping[int, list[_Path]]) -> dict[int, Reach]:
    """Each test's shortest (then strongest) path among those it gives evidence for, tests in id
    order (``paths``: each test's states, in any order)."""
    tests = {sid: sorted(paths[sid], key=_path_order) for sid in sorted(paths)}
    chosen = evidenced(store, {sid: [r.assumes for r in options] for sid, options in tests.items()})
    return {sid: _reach(tests[sid][i]) for sid, i in chosen.items()}


def _reach(walked: _Path) -> Reach:
    """A walked path as an answer: its symbols from ``walked``'s back to the change, and how each
    depends on the next."""
    path: list[int] = []
    labels: list[str] = []
    at: _Path | None = walked
    while at is not None:
        path.append(at.symbol_id)
        if at.prev is not None:
            labels.append(at.label)
        at = at.prev
    return Reach(
        walked.symbol_id,
        walked.depth,
        walked.weight,
        tuple(path),
        tuple(labels),
        walked.name_matches,
        walked.assumes,
        walked.receiver,
        walked.confidence,
        walked.resolution,
    )


def _path_order(path: _Path) -> tuple[int, float, AssumptionOrder]:
    """The order ``_strongest`` gives one symbol's paths: shortest, strongest, then by assumptions."""
    return (path.depth, -path.weight, _assumptions_order(path.assumes) if path.assumes else ())


AssumptionOrder = tuple[tuple[str, int, tuple[str, ...]], ...]
ORDERS_CACHED = 4096  # sets of assumptions whose order is known (a walk's states share a few sets)


def _state_order(state: State) -> tuple[int, AssumptionOrder]:
    """The symbol, then its assumptions sorted as ``Assumption`` orders them (its fields in turn)."""
    return (state[0], _assumptions_order(state[1]) if state[1] else ())


@lru_cache(maxsize=ORDERS_CACHED)
def _assumptions_order(assumes: frozenset[Assumption]) -> AssumptionOrder:
    return tuple(sorted((a.kind, a.symbol, a.words) for a in assumes))


@dataclass(frozen=True, slots=True)
class ReachingTests:
    """The test cases that reach one symbol: ``sure`` through edges of ``SURE_FROM`` or more
    only, ``possible`` only through a weaker guess; each test with its strongest path."""

    sure: dict[int, Reach]
    possible: dict[int, Reach]


TESTS_CACHED = 4096  # symbols whose reaching tests are kept (lenses and hovers ask again and again)
_TESTS: BoundedCache[tuple[str, int, int], ReachingTests] = BoundedCache(TESTS_CACHED)


def tests_reaching(
    store: Store, ids: Iterable[int], beside: Beside[tuple[int, ...]] | None = None
) -> dict[int, ReachingTests]:
    """The one definition of "the tests that reach a symbol", for every front end and verdict.

    A test case reaches a symbol when a reverse path of at most ``TEST_DEPTH`` hops leads from the
    symbol to it over ``RELATIONS`` (calls, overrides both ways, inherits, imports of modules and
    constants) and ``defines`` (a nested function's definer), stopping at the first test case; at
    most ``MAX_NAME_MATCHES`` hops of a path may be name matches (confidence ``NAME_MATCH_MAX`` or
    less), and a path through a dispatch needs the test to name the class (``receivers``). A test is
    ``sure`` when such a path uses only edges of confidence ``SURE_FROM`` or more, else
    ``possible``. Each symbol is walked alone, so its tests do not depend on what else changed.
    The symbol itself is never among its tests. With ``beside`` (``tests_beside`` of the same ids),
    a forked child walks some of them meanwhile.
    """
    generation = store.generation()
    found: dict[int, ReachingTests] = {}
    with store.remembering():  # the walks of a file's symbols cross the same callers and helpers
        if beside is not None:
            for group in beside.mine():
                for sid in group:
                    _tests_cached(store, (str(store.path), generation, sid))
            _keep_walked(beside.results())
        for sid in ids:
            found[sid] = _tests_cached(store, (str(store.path), generation, sid))
    return found


def _tests_cached(store: Store, key: tuple[str, int, int]) -> ReachingTests:
    cached = _TESTS.get(key)
    return cached if cached is not None else _TESTS.put(key, _tests_of(store, key[2]))


# what a child walked for ``tests_reaching``: per symbol its tests, and its sure tests as ``_SURE`` keeps them
Walked = dict[tuple[str, int, int], tuple[ReachingTests, tuple[dict[int, Reach], int] | None]]


def tests_beside(store: Store, ids: Iterable[int]) -> Beside[tuple[int, ...]] | None:
    """A forked child that walks to the tests of some of ``ids`` (those not known yet) while this
    process goes on, for ``tests_reaching(store, ids, beside)`` to take the rest and join their
    answers; None where no child can be forked (``beside``). The symbols of a file go to one
    process: their walks cross the same callers, whose steps each process reads once. To be called
    before any thread starts."""
    generation = store.generation()
    todo = [sid for sid in ids if _TESTS.get((str(store.path), generation, sid)) is None]
    files: dict[str, list[int]] = {}
    for sid, symbol in sorted(store.symbols_by_ids(todo).items()):
        files.setdefault(symbol.path, []).append(sid)
    path, root = store.path, store.root

    def child(taken: Iterator[tuple[int, ...]]) -> bytes:
        own = Store(connect_read_only(path), path, root)  # not the parent's connection: SQLite forbids it
        own.read_only = True
        walked: Walked = {}
        with own.remembering():
            for group in taken:
                for sid in group:
                    key = (str(path), generation, sid)
                    walked[key] = (_tests_cached(own, key), _SURE.get(key))
        return pickle.dumps(walked, protocol=pickle.HIGHEST_PROTOCOL)

    return Beside.start([tuple(group) for group in files.values()], child)


def _keep_walked(sent: bytes | None) -> None:
    """Remember what the child walked as if walked here (nothing, if it failed: then it is walked here)."""
    walked: Walked = pickle.loads(sent) if sent is not None else {}
    for key, (tests, sure) in walked.items():
        _TESTS.put(key, tests)
        if sure is not None:
            _SURE.put(key, sure)


def sure_tests_reaching(
    store: Store, ids: Iterable[int], budget: WalkBudget | None = None
) -> dict[int, dict[int, Reach]]:
    """The ``sure`` half of ``tests_reaching``, without walking the name guesses for the other half
    (where only sure tests count, as in ``dynamic.fallback_tests``). With a ``budget`` shared by the
    walks, it stops at the symbol whose walk spends it (``budget.cut``): that symbol's tests are
    partial, and the symbols after it are left out. A walk remembered from before spends what it
    spent then, so whether a budget runs out does not depend on what was asked before."""
    generation = store.generation()
    found: dict[int, dict[int, Reach]] = {}
    with store.remembering():
        for sid in ids:
            key = (str(store.path), generation, sid)
            known = _TESTS.get(key) if budget is None else None
            found[sid] = known.sure if known is not None else _sure_tests_of(store, sid, key, budget)
            if budget is not None and budget.cut:
                break
    return found


# each symbol's sure tests, and the states its walk reached (what it spends of a budget)
_SURE: BoundedCache[tuple[str, int, int], tuple[dict[int, Reach], int]] = BoundedCache(TESTS_CACHED)
UNBOUNDED = 2**62  # a budget no walk spends: it only counts the states


def _sure_tests_of(
    store: Store, sid: int, key: tuple[str, int, int], budget: WalkBudget | None = None
) -> dict[int, Reach]:
    known = _SURE.get(key)
    if known is not None:
        if budget is not None:
            budget.spend(known[1])
        return known[0]
    inside = _inside_test(store, sid)
    if inside is not None:  # code written inside a test runs in that test alone
        return _SURE.put(key, ({inside.symbol_id: inside}, 0))[0]
    counting = budget if budget is not None else WalkBudget(UNBOUNDED)
    before = counting.states
    tests = _tests_walked(store, sid, SURE_FROM, counting)
    if counting.cut:
        return tests  # partial: not remembered
    return _SURE.put(key, (tests, before - counting.states))[0]


def _tests_of(store: Store, sid: int) -> ReachingTests:
    # every test first: the sure walk then reads its steps from the wider walk's (``Steps``)
    every = _tests_walked(store, sid, 0.0, None) if _inside_test(store, sid) is None else None
    sure = _sure_tests_of(store, sid, (str(store.path), store.generation(), sid))
    if every is None:
        return ReachingTests(sure, {})
    return ReachingTests(sure, {t: r for t, r in every.items() if t not in sure})


def _tests_walked(
    store: Store, sid: int, min_confidence: float, budget: WalkBudget | None
) -> dict[int, Reach]:
    """The test cases of ``walk_back`` from ``sid`` to tests, but ``sid`` itself: the tests
    ``_strongest`` answers with, without the paths of the other symbols the walk crossed."""
    reached, test_cases = _walk(store, [sid], TEST_DEPTH, True, min_confidence, budget)
    paths: dict[int, list[_Path]] = {t: [] for t in test_cases}
    for state, path in reached.items():
        if state[0] in paths:
            paths[state[0]].append(path)
    return {t: r for t, r in _strongest_tests(store, paths).items() if t != sid}


def _inside_test(store: Store, sid: int) -> Reach | None:
    """The path from the test case a symbol is written in (a class or helper defined in a test
    function), when it is: walking back from it through its bases would reach every test."""
    path = [sid]
    symbol = store.symbols_by_ids([sid]).get(sid)
    while symbol is not None and symbol.is_test and symbol.parent_id is not None:
        symbol = store.symbols_by_ids([symbol.parent_id]).get(symbol.parent_id)
        if symbol is None or symbol.kind == "module":
            return None
        path.insert(0, symbol.id)
        if symbol.is_test_case:
            hops = len(path) - 1
            return Reach(symbol.id, hops, HOP_DECAY**hops, tuple(path), ("defines",) * hops)
    return None


@dataclass(frozen=True, slots=True)
class BlastRadius:
    """Impacted non-test symbols and impacted test cases, strongest first; ``possible_*`` are those
    reached only through a name match below ``SURE_FROM``. ``tests_of`` gives each changed symbol all
    of its own tests (``tests_reaching``), ``dependants_of`` how many of the callers depend on it (a
    caller of a changed class depends on its changed ``__init__`` too, though its path names one)."""

    callers: list[Reach]
    tests: list[Reach]
    symbols: dict[int, Symbol]
    possible_callers: list[Reach] = field(default_factory=list)
    possible_tests: list[Reach] = field(default_factory=list)
    tests_of: dict[int, ReachingTests] = field(default_factory=dict)
    dependants_of: dict[int, int] = field(default_factory=dict)  # each changed symbol's own callers
    unseen: frozenset[int] = frozenset()  # changed modules whose importers cannot see the change


def blast_radius(
    store: Store,
    changed: list[int],
    depth: int,
    measured: Mapping[int, ReachingTests] | None = None,
    unseen: frozenset[int] = frozenset(),
    beside: Beside[tuple[int, ...]] | None = None,
) -> BlastRadius:
    """Callers (transitively, to ``depth``) and the test cases that reach the change: the union of
    each changed symbol's tests, plus the changed test cases themselves. A symbol's tests are those
    ``measured`` gives it (coverage evidence), else its ``tests_reaching``. What depends on the
    ``unseen`` changed symbols alone (a module whose change touches only its imports, comments or
    private names: its importers read nothing new) is only possible. With ``beside`` (``tests_beside``
    of the changed symbols not ``measured``), a forked child walks to some of their tests meanwhile."""
    with store.remembering():  # the walks of the change and of each changed symbol overlap
        return _blast_radius(store, changed, depth, measured or {}, unseen, beside)


def _blast_radius(
    store: Store,
    changed: list[int],
    depth: int,
    given: Mapping[int, ReachingTests],
    unseen: frozenset[int],
    beside: Beside[tuple[int, ...]] | None,
) -> BlastRadius:
    own = store.symbols_by_ids(changed)
    code = [c for c in changed if c not in own or not own[c].is_test]  # what calls test code is no radius
    every = walk_back(store, code, depth)  # first: the sure walks read their steps from its (``Steps``)
    sure = walk_back(store, [c for c in code if c not in unseen], depth, min_confidence=SURE_FROM)
    tests_of = tests_reaching(store, [c for c in changed if c not in given], beside)
    tests_of.update({c: given[c] for c in changed if c in given})
    sure_tests = _union(r.sure for r in tests_of.values())
    possible_tests = _union(r.possible for r in tests_of.values())
    on_paths = {i for r in (*sure_tests.values(), *possible_tests.values()) for i in r.path}
    symbols = store.symbols_by_ids(
        {*every, *on_paths, *changed}
    )  # a test's path names helpers beyond ``depth``
    sure_tests.update(
        {
            c: Reach(c, 0, 1.0, (c,), (), runs=_with_own(sure_tests[c].runs) if c in sure_tests else ())
            for c in changed
            if c in symbols and symbols[c].is_test_case
        }
    )
    possible_tests = {t: r for t, r in possible_tests.items() if t not in sure_tests}
    changed_set = set(changed)

    def non_test(reached: dict[int, Reach]) -> list[Reach]:
        """The code that depends on the change: not tests, and not through them (a decorator that
        registers a test's function does not depend on what that function calls)."""
        return [
            r
            for sid, r in reached.items()
            if sid not in changed_set and not any(i not in symbols or symbols[i].is_test for i in r.path)
        ]

    order = _strongest_first
    topical = _topical_first(own.values(), symbols)
    callers = non_test(sure)
    return BlastRadius(
        sorted(callers, key=order),
        sorted(sure_tests.values(), key=topical),
        symbols,
        sorted(non_test({sid: r for sid, r in every.items() if sid not in sure}), key=order),
        sorted(possible_tests.values(), key=topical),
        tests_of,
        _dependants_of(store, code, depth, {r.symbol_id for r in callers}),
        unseen,
    )


def _dependants_of(store: Store, code: list[int], depth: int, callers: set[int]) -> dict[int, int]:
    """For each changed symbol, how many of the change's callers it reaches on its own (its own
    walk: each caller is counted for every changed symbol it depends on, not only for the one its
    strongest path ends at)."""
    if len(code) == 1:
        return {code[0]: len(callers)}
    return {
        c: len(callers.intersection(walk_back(store, [c], depth, min_confidence=SURE_FROM))) for c in code
    }


def folded(blast: BlastRadius, definitions: Mapping[int, list[int]]) -> BlastRadius:
    """``blast`` of a change walked from each touched definition, with each name's definitions
    (``definitions``: the symbol standing for the name -> its touched definitions, a property's
    getter and setter) folded into the one symbol: its tests, those of every touched definition."""
    tests_of = dict(blast.tests_of)
    dependants_of = dict(blast.dependants_of)
    for sid, ids in definitions.items():
        if ids == [sid]:
            continue
        groups = [blast.tests_of[i] for i in ids if i in blast.tests_of]
        sure = _union(g.sure for g in groups)
        possible = _union(g.possible for g in groups)
        for i in ids:
            tests_of.pop(i, None)
        tests_of[sid] = ReachingTests(sure, {t: r for t, r in possible.items() if t not in sure})
        dependants_of[sid] = max((dependants_of.pop(i, 0) for i in ids), default=0)
    return replace(blast, tests_of=tests_of, dependants_of=dependants_of)


def _union(groups: Iterable[dict[int, Reach]]) -> dict[int, Reach]:
    """Each test's strongest path over several changed symbols."""
    merged: dict[int, Reach] = {}
    for group in groups:
        for sid, r in group.items():
            known = merged.get(sid)
            if known is None or _strongest_first(r) < _strongest_first(known):
                merged[sid] = r
            if known is not None and (known.runs or r.runs):
                runs = (*known.runs, *r.runs) if known.runs and r.runs else _with_own((*known.runs, *r.runs))
                merged[sid] = replace(merged[sid], runs=tuple(sorted(set(runs))))
    return merged


def _with_own(runs: tuple[str, ...]) -> tuple[str, ...]:
    """A test's run ids and its own id (``OWN_RUN``), where a reach that names none joins them: the
    static graph (or the change, editing the test) reaches it whatever id pytest runs it by."""
    return tuple(sorted({*runs, OWN_RUN})) if runs else runs


def _strongest_first(r: Reach) -> tuple[float, int, int]:
    return (-r.weight, r.depth, r.symbol_id)


def _topical_first(
    changed: Iterable[Symbol], symbols: Mapping[int, Symbol]
) -> Callable[[Reach], tuple[int, float, int, int]]:
    """Tests whose file and name share the most words with the changed definitions' names first
    (``DefaultInetAddressTypeAdapterTest`` for a change to ``INET_ADDRESS``, before the hundreds of
    tests that merely build the object it is registered in), then the strongest."""
    words = {
        w
        for s in changed
        if not s.is_test and s.kind != "module"
        for w in identifier_words(s.short_name)
        if len(w) > 2
    }

    def key(r: Reach) -> tuple[int, float, int, int]:
        test = symbols.get(r.symbol_id)
        shared = len(words.intersection(identifier_words(f"{test.path} {test.name}"))) if test else 0
        return (-shared, -r.weight, r.depth, r.symbol_id)

    return key
