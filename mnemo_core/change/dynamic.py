"""Changed symbols reached by dynamic dispatch, and the tests to offer where no static path leads.

A symbol is reached dynamically when an edge the resolver drew from dynamic dispatch points at it
(``model.DYNAMIC_RESOLUTIONS``: a registry, a registering decorator, an ``__init_subclass__`` hook,
a name-built ``getattr``, a function handed as a value). Its tests are found by the usual walk over
those edges. A method that was there before the change and that nothing in the repository calls,
refers to or dispatches to is called in a way static code does not show (a renderer's
``getattr(self, token["type"])``, a framework's hook) or from outside: its tests are just as
unknown (``uncalled``). Where no test is found for either, which tests run it cannot be told
statically, and the answer falls back to a stated, conservative set: the tests of the other
symbols of its module, offered as possible (they exercise the code around it, which is what looks
it up), or, where none of those has a test, the tests of the test files that import the module (a
suite that starts a server with the class, or runs files through it), or, where none does, the tests
named after it (``test_pytorch_load`` for a plugin loaded through an entry point), or, where none is, the
tests of the test files named after its module (``test_autogen_check_constraints.py`` for a comparator in
``compare/check_constraints.py`` that a plugin registry runs). Of those, the tests that
name the symbol (its name; for a dunder method, its class) are the ones offered when there are any:
a central module's tests are most of the suite, and a test that names what it uses is the better
evidence (a template's ``loop(...)``, an i18n test's ``pgettext``); and of a method's, those named
after its class when there are any (``test_app_ctx_globals_methods`` for ``_AppCtxGlobals.__repr__``,
which Python calls for ``repr(g)``). The walks from the module's other symbols share a budget of
states (``FALLBACK_STATES``): a central module's symbols each reach most of the repository, and past
the budget every test of the repository is offered instead, which the answer says (more tests,
never fewer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePosixPath

from mnemo_core.change.impact import (
    NAME_MATCH_MAX,
    SURE_FROM,
    TEST_DEPTH,
    Reach,
    WalkBudget,
    sure_tests_reaching,
    walk_back,
)
from mnemo_core.change.receivers import names_used
from mnemo_core.index.store import Store
from mnemo_core.index.store.shortnames import SEPARATOR
from mnemo_core.index.textsplit import identifier_words, stem
from mnemo_core.model import DYNAMIC_RESOLUTIONS, PathResolution, Symbol

FALLBACK_CONFIDENCE = 0.3  # a module neighbour's test: below SURE_FROM, never counted
FALLBACK_SYMBOLS = 60  # the module's symbols whose tests make up the fallback, in line order
# states the walks from those symbols may reach together: a central module's take tens of seconds
# (pyparsing's core.py: 230,000 states, 30-60 s), flask's modules under 10,000; past it, every test
FALLBACK_STATES = 40_000
THROUGH_SHOWN = 3
UNCALLED_WHY = "it is called by name at run time, or from outside"
UNCALLED_REASON = f"nothing in the repository calls it ({UNCALLED_WHY})"
CALLED_BY = frozenset({"calls", "references"})
IMPORTS_MODULE = "its file imports the module of"
NAMED_AFTER = "is named after"
NAMED_FOR_MODULE = "its file is named after the module of"
WALK_CUT = "is a test of the repository, offered whole since the walk was cut, for"
TEST_WORDS = frozenset({"test", "tests", "spec"})  # the words a test file's name adds to its subject's
NAMING = "that name it"  # how a fallback was narrowed: to the tests whose source names the symbol
NAMED_FOR_CLASS = "named after its class"  # then to those named after the method's class
MIN_CLASS_NAME = 5  # shorter class names (``App``, ``Item``, ``Rule``) are words many tests are named with
MIN_NAMED_AFTER = 6  # shorter names (``get``, ``run``, ``load``) name too many tests to say which
_WORD_BOUNDARY = r"(?:^|_){}(?:_|$)"  # ``test_pytorch_load``, ``test_pytorch_load_weights``
UNCALLED: PathResolution = "uncalled"
STEMS_CACHED = 100_000  # file names whose stemmed words are kept


@dataclass(frozen=True, slots=True)
class DynamicReach:
    """How a symbol is reached dynamically: through which symbols (``FILTERS``,
    ``NodeVisitor.visit``), by the strongest of those links' resolutions."""

    through: tuple[str, ...]
    resolution: PathResolution
    confidence: float

    @property
    def uncalled(self) -> bool:
        """Whether this is no link at all: a method nothing in the repository calls (``uncalled``)."""
        return self.resolution == UNCALLED

    @property
    def reason(self) -> str:
        """``reached dynamically through FILTERS``, or for an uncalled method what that means."""
        if self.uncalled and self.through:
            through = ", ".join(self.through[:THROUGH_SHOWN])
            return f"called only through {through}, which nothing in the repository calls ({UNCALLED_WHY})"
        if self.uncalled:
            return UNCALLED_REASON
        more = " and others" if len(self.through) > THROUGH_SHOWN else ""
        return f"reached dynamically through {', '.join(self.through[:THROUGH_SHOWN])}{more}"


def reached_dynamically(store: Store, ids: Iterable[int]) -> dict[int, DynamicReach]:
    """The symbols among ``ids`` that dynamic dispatch reaches, with what reaches them."""
    edges = [e for e in store.edges_touching(list(ids), "in") if e.resolution in DYNAMIC_RESOLUTIONS]
    if not edges:
        return {}
    sources = store.symbols_by_ids({e.src for e in edges})
    found: dict[int, DynamicReach] = {}
    for e in sorted(edges, key=lambda e: (-e.confidence, e.dst, e.src)):
        source = sources.get(e.src)
        if source is None or source.is_test:
            continue
        known = found.get(e.dst)
        if known is None:
            found[e.dst] = DynamicReach((source.name,), e.resolution, e.confidence)
        elif source.name not in known.through:
            found[e.dst] = replace(known, through=(*known.through, source.name))
    return found


def uncalled(store: Store, methods: Iterable[Symbol]) -> dict[int, DynamicReach]:
    """The methods among ``methods`` that nothing in the repository calls or refers to and that
    override no base method (whose callers would dispatch to them)."""
    ids = [s.id for s in methods if s.kind == "method" and not s.is_test]
    return {sid: DynamicReach((), UNCALLED, 0.0) for sid in _unlinked(store, ids, 0.0)}


def called_through_uncalled(store: Store, symbols: Mapping[int, Sequence[int]]) -> dict[int, DynamicReach]:
    """The symbols (each with its definitions) whose every caller path, followed back over sure
    links, ends at methods that nothing in the repository calls but by a name guess, without
    meeting a test: code a framework's hook runs (jinja calls a loader's ``get_source``, a WSGI
    server a middleware's ``__call__``), whose tests are as unknown as the hook's."""
    found: dict[int, DynamicReach] = {}
    for sid, definitions in symbols.items():
        reached = walk_back(store, definitions, TEST_DEPTH, min_confidence=SURE_FROM)
        if len(reached) == len(definitions) or any(r.depth == TEST_DEPTH for r in reached.values()):
            continue  # nothing calls it (``uncalled``), or the callers go on beyond the walk
        members = store.symbols_by_ids(reached)
        if any(m.is_test for m in members.values()):
            continue
        entries = _unlinked(store, [m.id for m in members.values() if m.kind == "method"], NAME_MATCH_MAX)
        if entries:
            found[sid] = DynamicReach(tuple(members[e].name for e in entries), UNCALLED, 0.0)
    return found


def _unlinked(store: Store, methods: Sequence[int], above: float) -> list[int]:
    """The methods that nothing calls or refers to by a link of confidence over ``above`` and that
    override no base method (whose callers would dispatch to them): where code called from outside
    the repository, or by a name built at run time, enters it."""
    if not methods:
        return []
    calls = store.edges_touching(methods, "in")
    linked = {
        e.dst
        for e in calls
        if e.type in CALLED_BY and e.confidence > above and e.resolution != "decorator"  # applied, not called
    }
    linked |= {e.src for e in store.edges_touching(methods, "out") if e.type == "overrides"}
    return sorted(i for i in methods if i not in linked)


def fallback_tests(
    store: Store, symbol: Symbol, how: DynamicReach, states: int = FALLBACK_STATES
) -> tuple[dict[int, Reach], str]:
    """The tests of the other symbols of ``symbol``'s module, each with its strongest path to one
    of them, marked as a possible link of ``how``'s resolution (``FALLBACK_CONFIDENCE``); narrowed,
    where some do, to those that name ``symbol`` (``NAMING``), then to those of them named after
    its class (``NAMED_FOR_CLASS``), and which narrowing was made ("" for none). The walks from the
    module's symbols reach at most ``states`` states together; past that, every test is offered
    (``WALK_CUT``), unnarrowed: a superset of what they would have found."""
    neighbours = [
        s.id
        for s in store.symbols_in_file(symbol.path)
        if s.id != symbol.id and s.kind != "module" and not s.is_test and s.parent_id != symbol.id
    ][:FALLBACK_SYMBOLS]
    found: dict[int, Reach] = {}
    budget = WalkBudget(states)
    for tests in sure_tests_reaching(store, neighbours, budget).values():
        for sid, r in tests.items():
            if sid not in found or (r.depth, -r.weight) < (found[sid].depth, -found[sid].weight):
                found[sid] = r
    if budget.cut:  # what the walks left out is unknown: every test, a superset of their tests
        every = _every_test(store, symbol)
        return _offered(every, set(every), how), ""
    found.pop(symbol.id, None)
    if not found:
        found = _importing_tests(store, symbol)
    if not found:
        found = _named_after(store, symbol)
    if not found:
        found = _module_test_files(store, symbol)
    chosen, narrowed = set(found), ""
    for narrowing, narrow in ((NAMING, _naming), (NAMED_FOR_CLASS, _named_after_class)):
        if kept := narrow(store, symbol, chosen):
            chosen, narrowed = kept, narrowing
    return _offered(found, chosen, how), narrowed


def _offered(found: dict[int, Reach], chosen: set[int], how: DynamicReach) -> dict[int, Reach]:
    """The ``chosen`` tests of ``found``, marked as a fallback of ``how``'s resolution."""
    return {
        sid: replace(r, confidence=FALLBACK_CONFIDENCE, resolution=how.resolution)
        for sid, r in sorted(found.items())
        if sid in chosen
    }


def _every_test(store: Store, symbol: Symbol) -> dict[int, Reach]:
    """Every test case of the repository, offered for ``symbol`` when the walks that would have
    chosen among them were cut (``FALLBACK_STATES``)."""
    tests = store.test_cases_under("")
    return {t: Reach(t, 1, FALLBACK_CONFIDENCE, (t, symbol.id), (WALK_CUT,)) for t in tests if t != symbol.id}


def _importing_tests(store: Store, symbol: Symbol) -> dict[int, Reach]:
    """The test cases of the test files that import ``symbol``'s module or one of its definitions
    (what a suite that starts servers or runs files drives it with, where no static path leads)."""
    ids = [s.id for s in store.symbols_in_file(symbol.path)]
    importers = store.symbols_by_ids({e.src for e in store.edges_touching(ids, "in") if e.type == "imports"})
    files = sorted({s.path for s in importers.values() if s.is_test})
    tests = [t.id for path in files for t in store.symbols_in_file(path) if t.is_test_case]
    return {t: Reach(t, 1, FALLBACK_CONFIDENCE, (t, symbol.id), (IMPORTS_MODULE,)) for t in tests}


def _named_after(store: Store, symbol: Symbol) -> dict[int, Reach]:
    """The test cases named after ``symbol`` (``test_pytorch_load`` for a ``pytorch_load`` plugin
    that entry points load and tests run by file name): the last fallback, where neither its module's
    tests nor its importers say anything."""
    name = symbol.short_name.lower()
    if len(name) < MIN_NAMED_AFTER:
        return {}
    named = _WORD_BOUNDARY.format(re.escape(name))
    if not _may_be_named_after(store, name, named):
        return {}  # no test case is named so: the scan of every symbol's name is spared
    return {
        t.id: Reach(t.id, 1, FALLBACK_CONFIDENCE, (t.id, symbol.id), (NAMED_AFTER,))
        for t in store.find_symbols(f"*{symbol.short_name}*", limit=FALLBACK_SYMBOLS)
        if t.is_test_case and re.search(named, t.short_name.lower())
    }


def _module_test_files(store: Store, symbol: Symbol) -> dict[int, Reach]:
    """The test cases of the test files named after ``symbol``'s module (``test_autogen_check_constraints.py``
    for ``compare/check_constraints.py``, whose functions a plugin registry runs): the last fallback."""
    words = _stem_words(symbol.path) - TEST_WORDS
    if len("".join(words)) < MIN_NAMED_AFTER:
        return {}
    spelled = _pieces(words)
    named = [
        path
        for _, path in store.file_paths()
        if path != symbol.path and _may_spell(path, spelled) and words <= _stem_words(path)
    ]
    tests = [t.id for path in named for t in store.symbols_in_file(path) if t.is_test_case]
    return {t: Reach(t, 1, FALLBACK_CONFIDENCE, (t, symbol.id), (NAMED_FOR_MODULE,)) for t in tests}


def _may_be_named_after(store: Store, name: str, named: str) -> bool:
    """Whether some test case's short name, lowered, matches ``named`` (``name`` between word
    boundaries): the index's distinct names that contain ``name`` (``shortnames``: kept per
    generation) say which names may, and the index on lowered names whether a test case has one.
    Where a name is not plain ASCII (SQLite's lowering, which those names are kept in, is then not
    Python's), one may."""
    names = store.distinct_short_names()
    if names.odd or not names.text.isascii() or not name.isascii():
        return True
    found = names.containing(name)
    if f"{SEPARATOR}{name}{SEPARATOR}" in names.text:
        found.add(name)
    return bool(store.test_cases_named(c for c in found if re.search(named, c)))


def _pieces(words: Iterable[str]) -> list[str]:
    """What a file name whose stemmed words hold ``words`` spells of each: the stem, or its text
    before a final ``y`` (``retry`` of ``retries``)."""
    return [word[:-1] if word.endswith("y") else word for word in words]


def _may_spell(path: str, spelled: Iterable[str]) -> bool:
    """Whether a file's name may have the stemmed words whose ``_pieces`` are ``spelled`` (each is
    in the name): a check in place of stemming every file's name (an ASCII name's words are pieces
    of it, and a stem a start of its word). A name that is not plain ASCII may lower otherwise: it
    may."""
    name = path.rpartition("/")[2]
    if not name.isascii():
        return True
    lowered = name.lower()
    return all(piece in lowered for piece in spelled)


@lru_cache(maxsize=STEMS_CACHED)
def _stem_words(path: str) -> frozenset[str]:
    """The stemmed words of a file's name (every file's, for each fallback on a large repository)."""
    return frozenset(stem(w) for w in identifier_words(PurePosixPath(path).stem))


def fallback_source(tests: Iterable[Reach]) -> str:
    """Where fallback tests come from: ``IMPORTS_MODULE`` (the test files importing the module),
    ``NAMED_AFTER`` (tests named after the symbol), ``NAMED_FOR_MODULE`` (the test files named after
    its module), ``WALK_CUT`` (every test: the walks from its module's other symbols were cut), or ""
    (the tests of its module's other symbols)."""
    labels = {r.labels for r in tests}
    sources = (IMPORTS_MODULE, NAMED_AFTER, NAMED_FOR_MODULE, WALK_CUT)
    return next((label for label in sources if (label,) in labels), "")


def _named_after_class(store: Store, symbol: Symbol, tests: Iterable[int]) -> set[int]:
    """The tests whose names (with their test class's) hold every word of ``symbol``'s class name:
    ``test_app_ctx_globals_methods`` for ``_AppCtxGlobals.__repr__``, ``TestFileStorage.test_save``
    for ``FileStorage.__iter__`` (plurals and endings folded; none for a class named by one short word)."""
    if symbol.kind != "method" or "." not in symbol.name:
        return set()
    words = identifier_words(symbol.name.rsplit(".", 2)[-2])
    if len("".join(words)) < MIN_CLASS_NAME:
        return set()
    owner = {stem(w) for w in words}
    named = store.symbols_by_ids(tests).values()
    return {t.id for t in named if owner <= {stem(w) for w in identifier_words(t.name)}}


def _naming(store: Store, symbol: Symbol, tests: Iterable[int]) -> set[int]:
    """The tests whose source names ``symbol``: its short name, or its class's for a dunder method."""
    name = symbol.short_name
    if name.startswith("__") and "." in symbol.name:
        name = symbol.name.rsplit(".", 2)[-2]
    return {test for test, used in names_used(store, tests, {name: {symbol.id}}).items() if used}
