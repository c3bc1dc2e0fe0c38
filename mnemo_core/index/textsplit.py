"""Identifier splitting shared by the index (FTS columns) and retrieval (keywords)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_UNICODE_WORD = re.compile(r"[^\W_]+")


def identifier_words(text: str) -> list[str]:
    """``getUserById`` -> get user by id; ``snake_case.Name`` -> snake case name (lower case).

    CamelCase is split for ASCII identifiers; other scripts split on underscores and punctuation.
    """
    if text.isascii():
        return " ".join(_WORD.findall(text)).lower().split()
    return [
        w
        for part in _UNICODE_WORD.findall(text)
        for w in (identifier_words(part) if part.isascii() else [part.lower()])
    ]
