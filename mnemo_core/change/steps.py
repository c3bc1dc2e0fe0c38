"""The reverse dependencies of a walk: what depends on each symbol of a frontier, and how.

A step reads one edge backwards (a caller calls the node, an override is dispatched to from its
base's callers, a registry registers a function, a test runs its set-up), labels it, and on the way
to tests says what it assumes (``assumptions``): the first answer of ``ASSUMING``, one small function
per kind of assumption, in the order they take precedence. Steps are read once per symbol and index
generation (``Steps``): a symbol's steps do not depend on the rest of the frontier.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Literal, NamedTuple

from mnemo_core.change.assumptions import Assumption
from mnemo_core.change.flags import OptInFlags
from mnemo_core.change.hierarchy import hierarchy
from mnemo_core.change.receivers import ReceiverNames
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.languages.base import mark_name
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    DYNAMIC_RESOLUTIONS,
    Edge,
    Resolution,
    Symbol,
    SymbolKind,
)

Label = Literal[
    "calls",
    "overrides",
    "dispatches to",
    "inherits from",
    "imports",
    "references",
    "registers",
    "registers (decorator)",
    "registers (subclass hook)",
    "passes",
    "hands over the class of",
    "registers the class of",
    "looks up",
    "uses",
    "dispatches by name to",
    "runs the subclass hook",
    "runs",
    "applies the decorator",
    "defines",
]
IMPORT_IMPACT_KINDS: frozenset[SymbolKind] = frozenset({"module", "constant"})
# reverse relations: (edge type, direction to follow, label); "in" follows the edge back to its source
RELATIONS: tuple[tuple[str, Literal["in", "out"], Label], ...] = (
    ("calls", "in", "calls"),
    ("overrides", "in", "overrides"),
    ("overrides", "out", "dispatches to"),  # callers of the base method may reach the override
    ("inherits", "in", "inherits from"),
    ("imports", "in", "imports"),
    ("references", "in", "references"),  # labelled by how it was resolved: REFERENCE_LABELS
)
# how a "references" edge (dynamic dispatch that static code shows) reads, by its resolution
REFERENCE_LABELS: dict[Resolution, Label] = {
    "registry": "registers",  # FILTERS registers do_upper; a registry's writer registers what it stores
    "decorator": "registers (decorator)",
    "subclass": "registers (subclass hook)",
    "value": "passes",  # sort_things passes do_upper (to code that calls it)
}
PASSES = REFERENCE_LABELS["value"]  # a function handed over, not looked up
# a class handed over is built and its interface called by the code it goes to (``_handed_over``); like a
# dispatch into an override, the path assumes the class, which a test must name
HANDED_LABELS: dict[Resolution, Label] = {
    "value": "hands over the class of",
    "registry": "registers the class of",
}
DISPATCHES_TO: Label = (
    "dispatches to"  # the label of ("overrides", "out"): callers of a base may reach the override
)
ASSUMING_LABELS = frozenset({DISPATCHES_TO, *HANDED_LABELS.values()})
KEYABLE = frozenset({REFERENCE_LABELS["registry"], REFERENCE_LABELS["value"]})  # may be stored under a key
LOOKS_UP: Label = "looks up"  # a registry reader (render looks up FILTERS)
USES: Label = "uses"  # a module constant's reader (fetch uses TIMEOUT)
DISPATCHES: Label = "dispatches by name to"  # getattr(self, "visit_" + ...) calls
SUBCLASSES: Label = (
    "runs the subclass hook"  # a class defined in a function runs its base's __init_subclass__
)
RUNS: Label = "runs"  # a test runs its class's setUp, its module's setup_module, an autouse fixture in scope
RUNNER_CONFIDENCE = 0.9  # the runner calls them for every test of their scope (a fixture's confidence)
# a nested function is reached through what defines it: a function (a closure it returns), or a
# constant holding an object with methods (Java's ``ADDRESS = new Adapter() { read(...) }``)
DEFINERS = frozenset({*CALLABLE_KINDS, "constant"})
# a method's decorator runs in its class's body: when the class is defined in a function (a test's
# local ``class MySchema(Schema)`` with a ``@validates_schema`` method), each time that function runs
APPLIES_DECORATOR: Label = "applies the decorator"


class Site(NamedTuple):
    """One reverse dependency being read on the way to tests, with what its call site says."""

    edge: Edge
    label: Label
    node: int
    callee: Symbol | None  # the node's symbol
    caller: Symbol | None  # the dependant, where it calls the node
    receivers: ReceiverNames | None
    flags: OptInFlags | None


def _keyed_entry(site: Site) -> Assumption | None:
    """A registry's entry, a handed function, a handler of a name-built dispatch: if keyed, a test
    names it (``registry_keys``, ``syntax_keys``)."""
    if site.label in KEYABLE or (site.receivers is not None and site.label == DISPATCHES):
        return Assumption.of_symbol(site.node)
    return None


def _dispatched_class(site: Site) -> Assumption | None:
    """The class of the override a base method's caller is dispatched to (``receivers``)."""
    if site.label == DISPATCHES_TO and site.callee is not None and site.callee.parent_id is not None:
        return Assumption.of_symbol(site.callee.parent_id)
    return None


def _guessed(site: Site) -> Assumption | None:
    """The class of a method a call was matched to by name alone, unless the call site names it."""
    if site.receivers is not None and site.edge.resolution == "name" and site.label == "calls":
        cls = _guessed_class(site.receivers, site.caller, site.edge.line, site.callee)
        return Assumption.of_symbol(cls) if cls is not None else None
    return None


def _opt_in(site: Site) -> Assumption | None:
    """The opt-in flag (or syntax guard) whose ``if`` holds the call (``flags``)."""
    if site.flags is not None and site.label in ("calls", DISPATCHES) and site.caller is not None:
        return site.flags.guard(site.caller, site.edge.line)
    return None


# what a step assumes on the way to tests: the first of these to answer
ASSUMING: tuple[Callable[[Site], Assumption | None], ...] = (
    _keyed_entry,
    _dispatched_class,
    _guessed,
    _opt_in,
)


class Step(NamedTuple):
    """One reverse dependency: ``dependant`` depends on ``node`` as ``label`` says."""

    node: int  # the symbol of the frontier
    dependant: int
    label: Label
    confidence: float  # of the edge
    into: Assumption | None  # what the step assumes on the way to tests (``ASSUMING``)
    on_self: int | None  # for a call on self: the class of the caller
    resolution: Resolution  # how the edge was resolved


def _step(
    store: Store,
    frontier: Iterable[int],
    min_confidence: float = 0.0,
    receivers: ReceiverNames | None = None,
    flags: OptInFlags | None = None,
) -> list[Step]:
    """Every reverse dependency of the frontier, leaving out edges below ``min_confidence``. Importing
    a function or class says nothing its callers do not; importing a module or a constant does. A
    function defined inside another (a closure, a test's local view function) is reached through
    whoever defines it. With ``receivers`` (on the way to tests), a call matched to a method by name
    alone assumes the method's class, unless its call site names it."""
    ids = list(frontier)
    symbols = store.symbols_by_ids(ids)
    importable = {sid for sid, s in symbols.items() if s.kind in IMPORT_IMPACT_KINDS}
    found: list[Step] = []
    incoming = store.edges_touching(ids, "in")
    outgoing = store.edges_touching(ids, "out")
    calling_on_self = {e.src for e in incoming if e.type == "calls" and e.resolution == "self"}
    self_callers = _classes_of(store, calling_on_self)
    to_tests = receivers is not None or flags is not None
    calling = {e.src for e in incoming if to_tests and e.type == "calls" and e.confidence >= min_confidence}
    callers = store.symbols_by_ids(calling)  # whose call sites say what they call, and when
    for edge_type, direction, relation in RELATIONS:
        edges: list[Edge] = incoming if direction == "in" else outgoing
        for e in edges:
            if e.type != edge_type or e.confidence < min_confidence:
                continue
            node, dependant = (e.dst, e.src) if direction == "in" else (e.src, e.dst)
            if edge_type == "imports" and node not in importable:
                continue
            label = _label(relation, e, symbols.get(node))
            site = Site(e, label, node, symbols.get(node), callers.get(dependant), receivers, flags)
            into = next((_one(a) for assuming in ASSUMING if (a := assuming(site)) is not None), None)
            caller = self_callers.get(dependant) if label == "calls" and e.resolution == "self" else None
            found.append(Step(node, dependant, label, e.confidence, into, caller, e.resolution))
    parents = store.symbols_by_ids({s.parent_id for s in symbols.values() if s.parent_id is not None})
    found += _handed_over(store, symbols, parents, outgoing, min_confidence)
    found += _class_bodies(store, symbols, incoming, min_confidence)
    for sid, symbol in symbols.items():
        parent = parents.get(symbol.parent_id or 0)
        nested = symbol.kind in CALLABLE_KINDS or symbol.kind in CLASS_KINDS
        if nested and parent is not None and parent.kind in DEFINERS:
            found.append(Step(sid, parent.id, "defines", 1.0, None, None, "structure"))
        found += [
            Step(sid, test, RUNS, RUNNER_CONFIDENCE, None, None, "fixture")
            for test in _tests_running(store, symbol, parent)
        ]
    return found


ASSUMPTIONS_CACHED = 100_000  # assumptions shared by the steps that make them


@lru_cache(maxsize=ASSUMPTIONS_CACHED)
def _one(assumption: Assumption) -> Assumption:
    """One object for equal assumptions: the walks compare sets of them, and a set compares an
    element to itself without calling ``__eq__``."""
    return assumption


def _label(relation: Label, edge: Edge, node: Symbol | None) -> Label:
    """How the dependant of ``edge`` depends on ``node``: the relation's label, or for dynamic
    dispatch what kind (a registry's reader, a registered or passed function, a name-built call)."""
    if edge.type == "references":
        if edge.resolution not in DYNAMIC_RESOLUTIONS:
            return USES
        return LOOKS_UP if _is_registry(node) else REFERENCE_LABELS.get(edge.resolution, relation)
    if edge.resolution == "subclass":
        return SUBCLASSES
    return DISPATCHES if edge.resolution == "dispatch" else relation


def assumes_class(step: Step) -> bool:
    """Whether the class a step goes into must be named by a test (a dispatch into an override, a
    class handed over, a method guessed by name), not a registry's entry (named by its key)."""
    return step.label in ASSUMING_LABELS or step.resolution == "name"


def _guessed_class(
    receivers: ReceiverNames, caller: Symbol | None, line: int, callee: Symbol | None
) -> int | None:
    """The class a call (by ``caller``, at ``line``) matched to ``callee`` by name alone assumes: the
    method's, unless the call site names it (then the guess is taken as sure)."""
    if callee is None or callee.kind != "method" or callee.parent_id is None:
        return None
    named = caller is not None and receivers.named(caller, line, callee.short_name, callee.parent_id)
    return None if named else callee.parent_id


def _class_bodies(
    store: Store, symbols: Mapping[int, Symbol], incoming: Sequence[Edge], min_confidence: float
) -> list[Step]:
    """The classes whose bodies apply a decorator of the frontier to a method, where the class is
    defined in a function (its body runs each time the function does; a module's classes run theirs
    at import, which no test's own run covers)."""
    calls = [e for e in incoming if e.type == "calls" and e.dst in symbols and e.confidence >= min_confidence]
    methods = store.symbols_by_ids({e.src for e in calls})
    classes = store.symbols_by_ids({m.parent_id for m in methods.values() if m.decorators and m.parent_id})
    definers = store.symbols_by_ids({c.parent_id for c in classes.values() if c.parent_id is not None})
    steps = []
    for e in calls:
        method = methods.get(e.src)
        cls = classes.get(method.parent_id or 0) if method is not None else None
        if method is None or cls is None or cls.kind not in CLASS_KINDS:
            continue
        definer = definers.get(cls.parent_id or 0)
        if definer is not None and definer.kind in CALLABLE_KINDS and _decorates(method, symbols[e.dst]):
            steps.append(Step(e.dst, cls.id, APPLIES_DECORATOR, e.confidence, None, None, e.resolution))
    return steps


def _decorates(method: Symbol, decorator: Symbol) -> bool:
    """Whether ``method`` is written with ``decorator`` (``@validates_schema``, ``@hooks.pre_load(...)``)."""
    short = decorator.name.rsplit(".", 1)[-1]
    return any(mark_name(d) == short for d in method.decorators)


def _handed_over(
    store: Store,
    symbols: Mapping[int, Symbol],
    parents: Mapping[int, Symbol],
    outgoing: Sequence[Edge],
    min_confidence: float,
) -> list[Step]:
    """A method the code that receives its class (or an object of it) runs: one that overrides a
    base's (the receiver calls the base's interface). Such a method depends on whoever hands the
    class over (``md.register(Processor(md))``) or registers it (``CONVERTERS = {"int":
    IntConverter}``), as a function does on whoever passes it; a test that hands a class over
    (``parametrize("cls", [A, B])``) uses it as it says, and its calls say how."""
    overriding = {e.src for e in outgoing if e.type == "overrides"}
    methods = {
        sid: cls.id
        for sid, symbol in symbols.items()
        if sid in overriding
        and (cls := parents.get(symbol.parent_id or 0)) is not None
        and cls.kind in CLASS_KINDS
    }
    if not methods:
        return []
    handing: dict[int, list[Edge]] = defaultdict(list)
    edges = [
        e
        for e in store.edges_touching(set(methods.values()), "in")
        if e.type == "references" and e.resolution in HANDED_LABELS and e.confidence >= min_confidence
    ]
    sources = store.symbols_by_ids({e.src for e in edges})
    for e in edges:
        if e.src in sources and not sources[e.src].is_test:
            handing[e.dst].append(e)
    return [
        Step(
            sid,
            e.src,
            HANDED_LABELS[e.resolution],
            e.confidence,
            Assumption.of_symbol(cls),
            None,
            e.resolution,
        )
        for sid, cls in methods.items()
        for e in handing.get(cls, ())
    ]


def _tests_running(store: Store, symbol: Symbol, parent: Symbol | None) -> list[int]:
    """The tests a test runner runs ``symbol`` for without a call: a ``setUp`` for its class's and its
    subclasses' tests (and those they inherit), a spec's ``let`` or ``before`` for the cases nested in
    its group, a ``setup_module`` or a module's ``autouse`` fixture for the module's tests, a
    conftest's ``autouse`` fixture for the tests of its directory."""
    spec = language_for_path(symbol.path) if symbol.is_test else None
    in_class = parent is not None and parent.kind in CLASS_KINDS
    if in_class and parent is not None and symbol.is_test and not symbol.is_test_case:
        module = _building_module(store, parent)
        if module is not None:
            return [module]
    scope = spec.hooks.runs_for_tests(symbol, in_class) if spec is not None else None
    if scope == "class" and parent is not None:
        subclasses = hierarchy(store, parent.id, "in")
        classes = subclasses | {base for cls in subclasses for base in hierarchy(store, cls, "out")}
        attached = {c for c, s in store.symbols_by_ids(subclasses).items() if s.is_test_case}
        return sorted(
            attached  # a class whose tests are attached at run time: it runs them
            | {m.id for members in store.children_of(classes).values() for m in members if m.is_test_case}
        )
    if scope == "group" and parent is not None:
        return [
            s.id
            for s in store.symbols_in_file(symbol.path)
            if s.is_test_case and parent.start_line <= s.start_line and s.end_line <= parent.end_line
        ]
    if scope == "module":
        return [s.id for s in store.symbols_in_file(symbol.path) if s.is_test_case]
    if scope == "directory":
        return store.test_cases_under(symbol.path.rpartition("/")[0])
    return []


def _building_module(store: Store, cls: Symbol) -> int | None:
    """The test module whose top-level code builds ``cls`` by calling the function it is defined in
    (``load_plugin("table")``): the module is the test case of the class's methods (``extract``)."""
    module = store.module_of(cls.path)
    if module is None or not module.is_test_case:
        return None  # the common case, settled by one lookup before any walk up the definitions
    outer: Symbol | None = cls
    while outer is not None and outer.parent_id is not None:
        outer = store.symbols_by_ids([outer.parent_id]).get(outer.parent_id)
        if outer is not None and outer.kind in CALLABLE_KINDS:
            return module.id
    return None


def _is_registry(symbol: Symbol | None) -> bool:
    return symbol is not None and symbol.kind == "constant"


def _classes_of(store: Store, methods: set[int]) -> dict[int, int]:
    """The class each of the methods is defined in (functions and nested functions have none)."""
    symbols = store.symbols_by_ids(methods)
    parents = store.symbols_by_ids({s.parent_id for s in symbols.values() if s.parent_id is not None})
    return {
        sid: s.parent_id
        for sid, s in symbols.items()
        if s.parent_id in parents and parents[s.parent_id].kind in CLASS_KINDS
    }


STEPS_CACHED = 100_000  # symbols whose reverse dependencies are known (per index generation)
_STEPS: BoundedCache[tuple[str, int, float, bool, int], tuple[Step, ...]] = BoundedCache(STEPS_CACHED)


class Steps:
    """``_step`` of a frontier in ``_step_order``, from each symbol's own steps (kept sorted), read
    once per index generation: a symbol's steps do not depend on the rest of the frontier, and the
    walks of one answer (a change's symbols, a fallback's module neighbours) cross the same callers
    and helpers again. The order puts the frontier's symbol first, so the lists join in order. A
    symbol's steps over edges of some confidence or more are those of every edge (when known) whose
    step is that sure: ``_step`` leaves out each weaker edge alone, and what a kept step assumes reads
    only its own edge, symbols and call site."""

    def __init__(self, store: Store, min_confidence: float) -> None:
        self._store = store
        self._key = (str(store.path), store.generation(), min_confidence)

    def __call__(
        self, frontier: Iterable[int], receivers: ReceiverNames | None, flags: OptInFlags | None
    ) -> list[Step]:
        to_tests = receivers is not None or flags is not None
        nodes = sorted(frontier)
        known = {node: _STEPS.get((*self._key, to_tests, node)) for node in nodes}
        missing = [node for node, steps in known.items() if steps is None]
        if missing and self._key[2] > 0:  # a wider walk's steps hold these: those of surer edges
            wider = (self._key[0], self._key[1], 0.0, to_tests)
            for node in missing:
                wide = _STEPS.get((*wider, node))
                if wide is not None:
                    sure = tuple(step for step in wide if step.confidence >= self._key[2])
                    known[node] = _STEPS.put((*self._key, to_tests, node), sure)
            missing = [node for node, steps in known.items() if steps is None]
        if missing:
            fresh: dict[int, list[Step]] = {node: [] for node in missing}
            for step in _step(self._store, missing, self._key[2], receivers, flags):
                fresh[step.node].append(step)
            for node, steps in fresh.items():
                known[node] = _STEPS.put((*self._key, to_tests, node), tuple(sorted(steps, key=_step_order)))
        return [step for node in nodes for step in known[node] or ()]


def _step_order(step: Step) -> tuple[int, int, str, float, tuple[int, int, tuple[str, ...]], int, str]:
    return (
        step.node,
        step.dependant,
        step.label,
        step.confidence,
        _into_order(step.into),
        step.on_self or 0,
        step.resolution,
    )


def _into_order(into: Assumption | None) -> tuple[int, int, tuple[str, ...]]:
    """Flags and syntax guards, then no assumption, then symbols by id."""
    if into is None:
        return (1, 0, ())
    return (2, into.symbol, ()) if into.kind == "symbol" else (0, 0, into.words)
