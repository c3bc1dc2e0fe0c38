"""Receiver evidence: a test reaches a change through a dispatch only if it uses the class.

A caller of a base method may land in any override, so the walk from a changed override back to
the tests passes through every caller of the base method: in a framework, nearly every test. Like
rapid type analysis, which follows a dispatch only into classes the program instantiates, a test
keeps such a path only when its source (body, nested functions and decorators, the fixtures it
requests and the set-up methods run before it) names each class the path dispatched into: the class
or a subclass, a factory named after one (``option()`` for ``Option``), a module constant bound to an
instance of one (``UUID = UUIDParameterType()``), or a class that holds one in an attribute
(``NativeEnvironment``, whose ``code_generator_class = NativeCodeGenerator``).
Two kinds of class need no evidence: exceptions that write no message phrase, raised deep in the code
under test and handled far from the test, which rarely names them (one that writes a phrase is named
by a test that spells it: ``messages``); and staples, classes that many of their tests name (then
the others likely use them too, built by default). And when the evidence would leave no test at
all, it cannot tell the tests apart, and all are kept. A path through a keyed registry assumes the
function it looks up the same way: the test must name one of its keys or the function
(``registry_keys``). A call matched to a method by its name alone (``match.start()`` taken for
``Live.start``) assumes the method's class like a dispatch, unless its receiver is named after the
class (``ReceiverNames``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from mnemo_core.change.assumptions import Assumption, Fresh, TestSources, symbols_of, words_naming
from mnemo_core.change.hierarchy import hierarchy
from mnemo_core.change.messages import exception_classes
from mnemo_core.change.sources import generation_sources
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import Store
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.memo import BoundedCache
from mnemo_core.model import CALLABLE_KINDS, Symbol

WORD = re.compile(r"\w+")
CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
RECEIVER_END = frozenset(" \t=,:([{+-*/%<>!&|^~")  # what ends a receiver expression, read leftwards
MIN_CLASS_WORD = 3  # shorter words of a class name (``IO``, ``A``) say nothing about a receiver
WORDS_CACHED = 20_000  # tests whose words are known (per index generation)
_WORDS: BoundedCache[tuple[str, int, int], frozenset[str]] = BoundedCache(WORDS_CACHED)
FIXTURE_DEPTH = 3  # fixtures a test requests, and theirs: their code builds what the test uses
HOLDERS_CACHED = 4  # index generations whose classes holding a class are kept (a server's few stores)
_HOLDERS: BoundedCache[tuple[str, int], dict[str, set[int]]] = BoundedCache(HOLDERS_CACHED)


class ClassNames:
    """Evidence rule: a path through a dispatch into an override, a class handed over or a method
    matched by name alone assumes the receiver's class, and a test names the class (or a subclass,
    a factory named after one, a constant built from one, a class holding one); an exception class
    is left to ``messages``."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """The fresh receiver classes that are no exceptions."""
        classes = symbols_of(fresh.classes)
        return {Assumption.of_symbol(c) for c in classes - exception_classes(store, classes)}

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the assumed classes its words show a use of."""
        store = tests.store
        symbols = symbols_of(assumed)
        functions = {sid for sid, s in store.symbols_by_ids(symbols).items() if s.kind in CALLABLE_KINDS}
        classes = symbols - functions
        return words_naming(tests.words, _class_names(store, classes)) if classes else {}


def names_used(
    store: Store,
    tests: Iterable[int],
    names: Mapping[str, set[int]],
    forms: Callable[[str], Iterable[str]] | None = None,
) -> dict[int, set[int]]:
    """For each test, the symbols its source shows a use of: those of every word of it (or, with
    ``forms``, of every form of a word) in ``names``."""
    named: dict[int, set[int]] = {}
    for test, said in test_words(store, tests).items():
        words = {form for word in said for form in forms(word)} if forms is not None else said
        named[test] = set().union(*(names[w] for w in words & names.keys()))
    return named


def test_words(store: Store, tests: Iterable[int]) -> dict[int, frozenset[str]]:
    """The words of each test's source, of the fixtures it requests and of its class's set-up
    methods (see ``_run_before``); read once per index generation (every walk to tests asks again)."""
    generation = (str(store.path), store.generation())
    found: dict[int, frozenset[str]] = {}
    missing: list[int] = []
    for test in tests:
        known = _WORDS.get((*generation, test))
        if known is None:
            missing.append(test)
        else:
            found[test] = known
    if not missing:
        return found
    sources = generation_sources(store)
    requested = _run_before(store, missing)
    symbols = store.symbols_by_ids({*missing, *set().union(*requested.values())})
    for test in missing:
        words: set[str] = set()
        for symbol in (symbols[s] for s in (test, *requested[test]) if s in symbols):
            body = sources.lines(symbol.path)[symbol.start_line - 1 : symbol.end_line]
            words |= set(WORD.findall("\n".join(body)))
        found[test] = _WORDS.put((*generation, test), frozenset(words))
    return found


def _run_before(store: Store, tests: list[int]) -> dict[int, set[int]]:
    """For each test, the set-up methods its class (or a base) has the runner run before it, the
    fixtures it (or they) request, and theirs in turn (up to ``FIXTURE_DEPTH``)."""
    set_ups = _set_ups(store, tests)
    requested: dict[int, set[int]] = {t: set(set_ups.get(t, ())) for t in tests}
    layer = {t: {t, *requested[t]} for t in tests}
    for _ in range(FIXTURE_DEPTH):
        edges = store.edges_touching(set().union(*layer.values()), "out")
        by_src: dict[int, set[int]] = {}
        for e in edges:
            if e.type == "calls" and e.resolution == "fixture":
                by_src.setdefault(e.src, set()).add(e.dst)
        layer = {
            t: found
            for t, front in layer.items()
            if (found := set().union(*(by_src.get(s, set()) for s in front)) - requested[t])
        }
        if not layer:
            break
        for t, found in layer.items():
            requested[t] |= found
    return requested


def _set_ups(store: Store, tests: list[int]) -> dict[int, list[int]]:
    """For each test method, the methods of its class and its bases that the test runner runs for
    every test of the class (``setUp``, ``setup_method``, a class's ``autouse`` fixture)."""
    symbols = store.symbols_by_ids(tests)
    lineage = {p: hierarchy(store, p, "out") for s in symbols.values() if (p := s.parent_id) is not None}
    members = store.children_of(set().union(*lineage.values())) if lineage else {}
    hooks: dict[int, list[int]] = {}
    for cls, classes in lineage.items():
        found = [m for c in classes for m in members.get(c, [])]
        hooks[cls] = [m.id for m in found if _runs_for_class(m)]
    return {t: hooks[s.parent_id] for t, s in symbols.items() if s.parent_id in hooks}


def _runs_for_class(member: Symbol) -> bool:
    spec = language_for_path(member.path)
    return spec is not None and spec.hooks.runs_for_tests(member, True) == "class"


def _class_names(store: Store, classes: frozenset[int]) -> dict[str, set[Assumption]]:
    """Names that show a use of each assumed class: its family's, factories named after them, module
    constants built from them, and classes that hold one in an attribute."""
    names: dict[str, set[Assumption]] = {}
    families = {cls: hierarchy(store, cls, "in") for cls in sorted(classes)}
    members = store.symbols_by_ids(set().union(*families.values()))
    holders = _holders(store)  # and their subclasses
    for cls, family in families.items():
        held = [holders.get(members[c].short_name, set()) for c in family if c in members]
        family |= {h for holder in set().union(*held) for h in hierarchy(store, holder, "in")}
        kin = store.symbols_by_ids(family).values()
        built = [e.src for e in store.edges_touching(family, "in") if e.type == "calls"]
        constants = [s for s in store.symbols_by_ids(built).values() if s.kind == "constant"]
        spellings = [s.short_name for s in [*kin, *constants]] + [_factory(s.short_name) for s in kin]
        for name in spellings:
            names.setdefault(name, set()).add(Assumption.of_symbol(cls))
    return names


def _holders(store: Store) -> dict[str, set[int]]:
    """Every class name the index's classes hold in an attribute, with those classes: read once per
    index generation (a scan of every class's fields, which each walk to tests that assumes a class
    asked again)."""
    key = (str(store.path), store.generation())
    known = _HOLDERS.get(key)
    return known if known is not None else _HOLDERS.put(key, store.classes_holding(None))


def _factory(class_name: str) -> str:
    """The name of a function named after a class: ``HelpOption`` -> ``help_option``."""
    return CAMEL_HUMP.sub("_", class_name).lower().lstrip("_")


class ReceiverNames:
    """Whether a call that was matched to a method by its name alone names the method's class at
    its call site: ``self.session_interface.open_session()`` or ``si.make_null_session()`` after ``si
    = self.app.session_interface`` share a word with ``SessionInterface``; ``match.start()`` shares
    none with ``Live``. A guess whose receiver is so named is taken as sure; any other assumes the
    class, which a test must then name (``evidenced``)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._sources = generation_sources(store)
        self._class_words: dict[int, set[str]] = {}

    def named(self, caller: Symbol, line: int, method: str, cls: int) -> bool:
        """Whether the receiver of ``caller``'s call of ``method`` at ``line`` shares a word with
        ``cls`` or its bases."""
        lines = self._sources.lines(caller.path)
        if not 0 < line <= len(lines):
            return False
        receiver = _receiver(lines[line - 1], method)
        if receiver.isidentifier():
            before = lines[max(caller.start_line - 1, 0) : line - 1]
            receiver += " " + " ".join(_assigned(before, receiver))
        return not self._words(cls).isdisjoint(identifier_words(receiver))

    def _words(self, cls: int) -> set[str]:
        if cls not in self._class_words:
            classes = self._store.symbols_by_ids(hierarchy(self._store, cls, "out")).values()
            words = {w for c in classes for w in identifier_words(c.short_name)}
            self._class_words[cls] = {w for w in words if len(w) >= MIN_CLASS_WORD}
        return self._class_words[cls]


PATTERNS_CACHED = 4096  # names whose patterns stay compiled: re's own cache (512) churns on big changes


@lru_cache(maxsize=PATTERNS_CACHED)
def _method_call(method: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(method)}\b")


@lru_cache(maxsize=PATTERNS_CACHED)
def _assignment(name: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{re.escape(name)}\s*(?::[^=]*)?=(?!=)([^(]*)")


def _receiver(line: str, method: str) -> str:
    """The expression a line calls ``method`` on: ``x = self.app.si.open(a)`` -> ``self.app.si``."""
    call = _method_call(method).search(line)
    if call is None:
        return ""
    depth, start, end = 0, call.start(), call.start()
    while start > 0:
        char = line[start - 1]
        if char in ")]":
            depth += 1
        elif char in "([" and depth:
            depth -= 1
        elif not depth and char in RECEIVER_END:
            break
        start -= 1
    return line[start:end]


def _assigned(lines: Sequence[str], name: str) -> list[str]:
    """What ``name`` is assigned in ``lines``, up to a call's arguments: ``si =
    self.app.session_interface`` -> ``self.app.session_interface``, ``comp = comp_cls(cli, ...)`` ->
    ``comp_cls``."""
    assignment = _assignment(name)
    return [m.group(1) for line in lines if (m := assignment.match(line))]
