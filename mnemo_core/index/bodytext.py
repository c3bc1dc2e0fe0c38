"""The searchable text of each symbol's body: the words of its identifiers, comments and strings.

One pass over a file's bytes finds every identifier-like token and gives it to the innermost
definition whose span holds it (a method's words belong to the method, not to its class; code
outside every definition belongs to the module). Each token is split like names are
(``getUserById`` -> get user by id, ``snake_case`` -> snake case), syntax words that every body
has (``self``, ``return``, ``none``) are dropped, and a word is kept at most ``MAX_REPEATS`` times
per body: BM25's term frequency saturates long before that, and the index stays small.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnemo_core.index.textsplit import identifier_words

MAX_REPEATS = 3  # BM25 (k1 = 1.2) gains little from a fourth occurrence of a word
MAX_WORDS = 2000  # a body longer than this in words is data or generated; its first words suffice
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


def body_texts(source: bytes, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The body text of each span (``(start_byte, end_byte)``), plus the module's text last: every
    token goes to the innermost span that holds it, or to the module when none does."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1]))
    bags: list[list[bytes]] = [[] for _ in range(len(spans) + 1)]
    module = len(spans)
    stack: list[int] = []
    following = 0
    for match in _TOKEN.finditer(source):
        at = match.start()
        while following < len(order) and spans[order[following]][0] <= at:
            while stack and spans[stack[-1]][1] <= spans[order[following]][0]:
                stack.pop()
            stack.append(order[following])
            following += 1
        while stack and spans[stack[-1]][1] <= at:
            stack.pop()
        bags[stack[-1] if stack else module].append(match.group())
    cache: dict[bytes, list[str]] = {}
    return [_words(bag, cache) for bag in bags]


def _words(tokens: list[bytes], cache: dict[bytes, list[str]]) -> str:
    counts: dict[str, int] = {}
    kept: list[str] = []
    for token in tokens:
        words = cache.get(token)
        if words is None:
            words = cache[token] = [
                w
                for w in identifier_words(token.decode("ascii"))
                if len(w) >= MIN_WORD_CHARS and w not in STOP_WORDS and not w.isdigit()
            ]
        for word in words:
            seen = counts.get(word, 0)
            if seen < MAX_REPEATS:
                counts[word] = seen + 1
                kept.append(word)
        if len(kept) >= MAX_WORDS:
            break
    return " ".join(kept)
