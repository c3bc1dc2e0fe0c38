"""The searchable text of each symbol's body: the words of its identifiers, comments and strings.

One sweep over the nested definition spans cuts a file into byte ranges, each owned by the
innermost definition holding it (a method's words belong to the method, not to its class; code
outside every definition belongs to the module), and the identifier-like tokens of each range are
found by the regular expression engine. Each distinct token is split like names are
(``getUserById`` -> get user by id, ``snake_case`` -> snake case), syntax words that every body has
(``self``, ``return``, ``none``) are dropped, and a word is kept at most ``MAX_REPEATS`` times per
body: BM25's term frequency saturates long before that, and the index stays small.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import chain

from mnemo_core.index.textsplit import identifier_words

MAX_REPEATS = 3  # BM25 (k1 = 1.2) gains little from a fourth occurrence of a word
MAX_WORDS = 2000  # a body longer than this in words is data or generated; its first words suffice
MAX_CACHED_TOKENS = 200_000  # split tokens remembered across the files a process extracts (a few MB)
MIN_WORD_CHARS = 2
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# Words every body of some language is made of: they say nothing about what the code does.
STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "else",
        "for",
        "from",
        "if",
        "in",
        "is",
        "it",
        "its",
        "not",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "then",
        "this",
        "to",
        "was",
        "we",
        "were",
        "will",
        "with",
        "def",
        "class",
        "return",
        "self",
        "cls",
        "none",
        "true",
        "false",
        "null",
        "nil",
        "import",
        "pass",
        "elif",
        "try",
        "except",
        "finally",
        "raise",
        "while",
        "yield",
        "lambda",
        "async",
        "await",
        "const",
        "let",
        "var",
        "function",
        "func",
        "fn",
        "pub",
        "mut",
        "impl",
        "new",
        "void",
        "public",
        "private",
        "protected",
        "static",
        "final",
        "int",
        "str",
        "bool",
        "string",
        "args",
        "kwargs",
    }
)


class _TokenWords(dict[bytes, tuple[str, ...]]):
    """token -> its searchable words, split on first sight: identifiers repeat across files."""

    def __missing__(self, token: bytes) -> tuple[str, ...]:
        words = self[token] = tuple(
            w
            for w in identifier_words(token.decode("ascii"))
            if len(w) >= MIN_WORD_CHARS and w not in STOP_WORDS and not w.isdigit()
        )
        return words


_SPLIT = _TokenWords()


def body_texts(source: bytes, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The body text of each span (``(start_byte, end_byte)``), plus the module's text last: every
    token goes to the innermost span that holds it, or to the module when none does."""
    bags: list[list[bytes]] = [[] for _ in range(len(spans) + 1)]
    for start, end, owner in _own_ranges(len(source), spans):
        bags[owner].extend(_TOKEN.findall(source, start, end))
    if len(_SPLIT) > MAX_CACHED_TOKENS:
        _SPLIT.clear()
    return [_words(bag, _SPLIT) for bag in bags]


def _own_ranges(size: int, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The file cut into byte ranges, each with its innermost owner (a span's index, or
    ``len(spans)`` for the module), by one sweep over the nested spans."""
    module = len(spans)
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1]))
    ranges: list[tuple[int, int, int]] = []
    stack: list[int] = []
    at = 0

    for i in order:
        start = spans[i][0]
        while stack and spans[stack[-1]][1] <= start:
            top = stack.pop()
            ranges.append((at, spans[top][1], top))
            at = spans[top][1]
        ranges.append((at, start, stack[-1] if stack else module))
        at = start
        stack.append(i)
    while stack:
        top = stack.pop()
        ranges.append((at, spans[top][1], top))
        at = spans[top][1]
    ranges.append((at, size, module))
    return [r for r in ranges if r[1] > r[0]]


def _words(tokens: list[bytes], split: _TokenWords) -> str:
    """The words of a bag of tokens, each at most ``MAX_REPEATS`` times (order: first seen). Counted
    over every token's words in the bag's order: a word is first seen in the first token holding it."""
    counts = Counter(chain.from_iterable(map(split.__getitem__, tokens)))
    kept = [word for word, n in counts.items() for _ in range(n if n < MAX_REPEATS else MAX_REPEATS)]
    return " ".join(kept[:MAX_WORDS])
