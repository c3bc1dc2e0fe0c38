"""The string literals of a symbol's source: what a test feeds the code it runs (the keywords of the
code it parses, the messages it expects), read once per symbol and index generation, since every
walk to tests asks for the same tests' again."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mnemo_core.change.sources import generation_sources
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache

STRING = re.compile(r"""(?s)(\"\"\"|'''|"|')(.*?)(?<!\\)\1""")
WORD = re.compile(r"\w+")
LETTERS = re.compile(r"[^\W\d_]+")
LITERALS_CACHED = 20_000  # symbols whose literals are kept (a suite's tests, a few times over)


@dataclass(frozen=True, slots=True)
class Literals:
    """A symbol's string literals: ``single``-quoted ones (a docstring is triple-quoted), every
    ``words`` of all of them, and their letter words lower-cased, joined and surrounded by one space
    (``spoken``), where a phrase is found whole whatever punctuation or quoting split it."""

    single: tuple[str, ...]
    words: frozenset[str]
    spoken: str


_LITERALS: BoundedCache[tuple[str, int, int], Literals] = BoundedCache(LITERALS_CACHED)


def literals_of(store: Store, symbols: Iterable[int]) -> dict[int, Literals]:
    """The string literals of each symbol's source."""
    generation = store.generation()
    found: dict[int, Literals] = {}
    unread: list[int] = []
    for sid in symbols:
        cached = _LITERALS.get((str(store.path), generation, sid))
        if cached is None:
            unread.append(sid)
        else:
            found[sid] = cached
    sources = generation_sources(store)
    for sid, symbol in store.symbols_by_ids(unread).items():
        body = "\n".join(sources.lines(symbol.path)[symbol.start_line - 1 : symbol.end_line])
        quoted = [(m.group(1), m.group(2)) for m in STRING.finditer(body)]
        literals = Literals(
            tuple(text for quote, text in quoted if len(quote) == 1),
            frozenset(w for _, text in quoted for w in WORD.findall(text)),
            f" {spoken(' '.join(text for _, text in quoted))} ",
        )
        found[sid] = _LITERALS.put((str(store.path), generation, sid), literals)
    return found


def spoken(text: str) -> str:
    """``text``'s letter words, lower-cased and joined by one space: ``"No such option: '--x'"`` ->
    ``"no such option x"``."""
    return " ".join(LETTERS.findall(text.lower()))
