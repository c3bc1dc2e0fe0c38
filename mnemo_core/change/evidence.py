"""Test evidence as a registry: the rules by which a test shows it takes a path to a change.

A walk to tests assumes things along a path (the class a dispatch went into, a registry's entry,
an opt-in flag, the syntax a handler is named after: ``assumptions``). Each rule of ``RULES`` says
which fresh assumptions it can tell the tests apart by (the others need no evidence, as an exception
class that writes no message) and which tests' sources name them; the walk asks ``NeedsEvidence``
hop by hop, and ``evidenced`` keeps, for each test, its first path whose every assumption the test
names by some rule, or that staples of the suite cover. Adding a rule is a class with ``needs`` and
``names`` in the module of its evidence, and one line here.

The rules, each with its module's docstring: ``ClassNames`` (``receivers``: rapid type analysis,
a test names the classes a dispatch path went into), ``ErrorMessages`` (``messages``: an exception
class that writes a phrase is named by a test that spells it), ``RegistryEntries``
(``registry_keys``: a keyed registry's key or a predicate's subject), ``FlagWords`` (``flags``: an
option off by default) and ``SyntaxKeywords`` (``syntax_keys``: a handler named after a keyword).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from mnemo_core.change.assumptions import Assumption, EvidenceRule, Fresh, TestSources
from mnemo_core.change.flags import FlagWords
from mnemo_core.change.literals import literals_of
from mnemo_core.change.messages import ErrorMessages
from mnemo_core.change.receivers import ClassNames, test_words
from mnemo_core.change.registry_keys import RegistryEntries
from mnemo_core.change.syntax_keys import SyntaxKeywords
from mnemo_core.index.store import Store

RULES: tuple[EvidenceRule, ...] = (
    ClassNames(),
    ErrorMessages(),
    RegistryEntries(),
    FlagWords(),
    SyntaxKeywords(),
)
STAPLE_SHARE = 0.3  # a class this share of its tests name is a staple: the others likely use it unnamed


class NeedsEvidence:
    """The assumptions of one walk to tests that a test must name: each fresh one is asked of the
    rules once, the first time a step makes it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._seen: set[Assumption] = set()
        self.needed: set[Assumption] = set()

    def add(self, made: Iterable[tuple[Assumption, bool, bool]]) -> None:
        """Take a hop's assumptions, each as (assumption, whether its step takes a receiver's class
        for granted, whether it looks the entry up rather than being handed it); the last step
        that makes an assumption says which it is."""
        kinds: dict[Assumption, tuple[bool, bool]] = {}
        for a, as_class, looked_up in made:
            kinds[a] = (as_class, kinds.get(a, (False, False))[1] or looked_up)
        fresh = {a: k for a, k in kinds.items() if a not in self._seen}
        if not fresh:
            return
        self._seen |= fresh.keys()
        hop = Fresh(
            frozenset(a for a, (as_class, _) in fresh.items() if as_class),
            frozenset(a for a, (as_class, _) in fresh.items() if not as_class),
            frozenset(a.symbol for a, (as_class, up) in fresh.items() if not as_class and up),
        )
        for rule in RULES:
            self.needed |= rule.needs(self._store, hop)


def evidenced(store: Store, assumptions: Mapping[int, Sequence[frozenset[Assumption]]]) -> dict[int, int]:
    """For each test, the index of its first path (in the order given, by what each assumes) whose
    assumptions the test names; tests with none are left out, unless that leaves no test."""
    assumed = frozenset().union(*(a for paths in assumptions.values() for a in paths))
    if not assumed:
        return dict.fromkeys(assumptions, 0)
    assuming = [t for t, paths in assumptions.items() if any(paths)]
    sources = TestSources(store, test_words(store, assuming), literals_of(store, assuming))
    named: dict[int, set[Assumption]] = {t: set() for t in assuming}
    for rule in RULES:
        for test, found in rule.names(sources, assumed).items():
            named.setdefault(test, set()).update(found)
    free = _staples(assumptions, named)
    kept: dict[int, int] = {}
    for test, paths in assumptions.items():
        known = named.get(test, set()) | free
        chosen = next((i for i, classes in enumerate(paths) if classes <= known), None)
        if chosen is not None:
            kept[test] = chosen
    return kept or dict.fromkeys(assumptions, 0)


def _staples(
    assumptions: Mapping[int, Sequence[frozenset[Assumption]]], named: Mapping[int, set[Assumption]]
) -> frozenset[Assumption]:
    """Classes that at least ``STAPLE_SHARE`` of the tests whose paths assume them name: staples of
    the suite, that the package also builds by default (``click.command()`` adds an ``Option``)."""
    needing: dict[Assumption, list[int]] = {}
    for test, paths in assumptions.items():
        for cls in frozenset().union(*paths):
            needing.setdefault(cls, []).append(test)
    return frozenset(
        cls
        for cls, tests in needing.items()
        if sum(cls in named.get(t, ()) for t in tests) >= STAPLE_SHARE * len(tests)
    )
