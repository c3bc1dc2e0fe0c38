"""What a path from a change to a test assumes, which the test must show a use of.

A walk to tests remembers, per path, what its steps took for granted: the class a dispatch went
into, the entry a registry lookup found, the option a guarded call needed turned on, the syntax an
``isinstance`` guard needed in the input. A test keeps the path only if its source names each
assumption (``evidence``). Assumptions are values of one type, ordered so that a walk's states sort
the same way every run: flags first, then keywords, then symbols by id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from mnemo_core.change.literals import Literals
from mnemo_core.index.store import Store

AssumptionKind = Literal["flag", "keywords", "symbol"]  # alphabetical: the order states sort in


@dataclass(frozen=True, slots=True, order=True)
class Assumption:
    """One thing a path assumes: a symbol (a class dispatched into, a registry's entry, a handler),
    an opt-in flag's word, or the keywords a syntax guard spells (any one of them will do)."""

    kind: AssumptionKind
    symbol: int = 0  # for "symbol"
    words: tuple[str, ...] = ()  # for "flag": its word; for "keywords": sorted

    @classmethod
    def of_symbol(cls, sid: int) -> Assumption:
        """The path assumes this symbol (a test must name it, or a spelling of it)."""
        return cls("symbol", sid)

    @classmethod
    def flag(cls, word: str) -> Assumption:
        """The path assumes the opt-in flag ``word`` turned on."""
        return cls("flag", words=(word,))

    @classmethod
    def keywords(cls, words: frozenset[str]) -> Assumption:
        """The path assumes input with one of ``words`` (a syntax guard's keywords)."""
        return cls("keywords", words=tuple(sorted(words)))


def symbols_of(assumptions: frozenset[Assumption] | set[Assumption]) -> frozenset[int]:
    """The symbols among some assumptions."""
    return frozenset(a.symbol for a in assumptions if a.kind == "symbol")


@dataclass(frozen=True, slots=True)
class Fresh:
    """The assumptions a hop of a walk to tests made for the first time: ``classes`` by steps that
    take a receiver's class for granted (a dispatch into an override, a class handed over, a method
    matched by name), ``entries`` by steps into a registry's entry, a handed function or a handler
    (``looked_up``: those not merely handed over)."""

    classes: frozenset[Assumption]
    entries: frozenset[Assumption]
    looked_up: frozenset[int]


@dataclass(frozen=True, slots=True)
class TestSources:
    """What the tests that must give evidence say: each one's words (its source, the fixtures it
    requests, its class's set-up methods) and its string literals."""

    store: Store
    words: Mapping[int, frozenset[str]]
    strings: Mapping[int, Literals]


class EvidenceRule(Protocol):
    """One kind of test evidence: which fresh assumptions of a walk it can tell the tests apart by
    (the others need no evidence), and which of them each test's source names."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """The fresh assumptions this rule can settle, so that a test must name them."""
        ...

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the assumptions among ``assumed`` its sources name by this rule."""
        ...


def words_naming(
    words: Mapping[int, frozenset[str]],
    names: Mapping[str, set[Assumption]],
    forms: Callable[[str], Iterable[str]] | None = None,
) -> dict[int, set[Assumption]]:
    """For each test, the assumptions its words (or, with ``forms``, any form of one) show a use of."""
    named: dict[int, set[Assumption]] = {}
    for test, said in words.items():
        spoken = {form for word in said for form in forms(word)} if forms is not None else said
        named[test] = set().union(*(names[w] for w in spoken & names.keys()))
    return named
