"""Error messages: the phrases an exception class writes, as evidence that a test raises it.

A dispatch into an override assumes its class, which a test must name (``receivers``); exceptions
were exempt, because a test rarely names the error the code under test raises deep inside. But a
test that makes the code raise one usually asserts on what it says: a command-line test checks
``"No such option"`` in the output, not ``NoSuchOption``. So an exception class whose own code writes
a message phrase (``"No such option: {name}"``: the words before its first placeholder, two words
or more) is assumed like any other class, and a test names it by the class's name or by one of its
phrases in the test's strings. An exception class that writes none stays exempt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from mnemo_core.change.assumptions import Assumption, Fresh, TestSources, symbols_of
from mnemo_core.change.hierarchy import hierarchy
from mnemo_core.change.literals import Literals, literals_of, spoken
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache

EXCEPTION_BASE = re.compile(r"\b(BaseException|Exception|\w+Error|\w+Exception)\b")
PLACEHOLDER = re.compile(r"[{%]")
MIN_PHRASE_WORDS = 2
MIN_PHRASE_CHARS = 8
WRITERS_CACHED = 4096  # classes known to write a phrase or not
_WRITES: BoundedCache[tuple[str, int, int], bool] = BoundedCache(WRITERS_CACHED)


def message_phrases(store: Store, classes: Iterable[int]) -> dict[str, set[int]]:
    """Each phrase an exception class (or one of its subclasses) writes -> the classes it shows."""
    members: dict[int, set[int]] = {}
    for cls in classes:
        for member in _members(store, hierarchy(store, cls, "in")):
            members.setdefault(member, set()).add(cls)
    phrases: dict[str, set[int]] = {}
    for sid, literals in literals_of(store, members).items():
        for phrase in filter(None, map(_phrase, literals.single)):
            phrases.setdefault(phrase, set()).update(members[sid])
    return phrases


def phrased(literals: Mapping[int, Literals], phrases: Mapping[str, set[int]]) -> dict[int, set[int]]:
    """For each test, the exception classes whose phrases its string literals contain (whole words)."""
    padded = {f" {phrase} ": classes for phrase, classes in phrases.items()}
    return {
        test: set().union(*(classes for phrase, classes in padded.items() if phrase in strings.spoken))
        for test, strings in literals.items()
    }


def _members(store: Store, classes: set[int]) -> list[int]:
    """The classes and the methods defined in them."""
    children = store.children_of(classes)
    return [*classes, *(m.id for members in children.values() for m in members)]


def _phrase(text: str) -> str:
    """A message's leading words before its first placeholder, lower-cased: ``"No such option: {name}"``
    -> ``"no such option"``; "" when too short to tell one message from another."""
    lead = spoken(PLACEHOLDER.split(text, maxsplit=1)[0])
    return lead if lead.count(" ") + 1 >= MIN_PHRASE_WORDS and len(lead) >= MIN_PHRASE_CHARS else ""


def writers(store: Store, classes: Iterable[int]) -> set[int]:
    """The exception classes among ``classes`` that write a phrase (in their own code or a
    subclass's): those a test can name by what it asserts, so a dispatch into them needs evidence."""
    generation = store.generation()
    found = set()
    for cls in classes:
        key = (str(store.path), generation, cls)
        writes = _WRITES.get(key)
        if writes is None:
            writes = _WRITES.put(key, bool(message_phrases(store, [cls])))
        if writes:
            found.add(cls)
    return found


class ErrorMessages:
    """Evidence rule: a dispatch into an exception class needs evidence only when the class writes
    a message phrase (in its own code or a subclass's), and a test names it by spelling the phrase
    in its string literals; one that writes none is raised deep in the code under test and handled
    far from the test, which rarely names it."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """The fresh receiver classes that are exceptions writing a phrase."""
        errors = exception_classes(store, symbols_of(fresh.classes))
        return {Assumption.of_symbol(cls) for cls in writers(store, errors)}

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the assumed exception classes whose phrases its string literals contain."""
        errors = exception_classes(tests.store, symbols_of(assumed))
        if not errors:
            return {}
        found = phrased(tests.strings, message_phrases(tests.store, errors))
        return {test: {Assumption.of_symbol(c) for c in classes} for test, classes in found.items()}


def exception_classes(store: Store, classes: Iterable[int]) -> frozenset[int]:
    """The exception classes among ``classes``: those with an ancestor (in the repository, or
    itself) whose bases look like an exception's. A dispatch into one needs no evidence. (Known per
    index generation: every hop of a walk to tests asks it of its classes, twice.)"""
    generation = store.generation()
    found = []
    for cls in classes:
        key = (str(store.path), generation, cls)
        known = _EXCEPTIONS.get(key)
        if known is None:
            known = _EXCEPTIONS.put(key, _is_exception(store, cls))
        if known:
            found.append(cls)
    return frozenset(found)


EXCEPTIONS_CACHED = 20_000  # classes known to be exceptions or not
_EXCEPTIONS: BoundedCache[tuple[str, int, int], bool] = BoundedCache(EXCEPTIONS_CACHED)


def _is_exception(store: Store, cls: int) -> bool:
    return any(
        EXCEPTION_BASE.search(s.signature.partition("(")[2])
        for s in store.symbols_by_ids(hierarchy(store, cls, "out")).values()
    )
