"""Identifier splitting shared by the index (FTS columns) and retrieval (keywords)."""

from __future__ import annotations

import re

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def identifier_words(text: str) -> list[str]:
    """``getUserById`` -> get user by id; ``snake_case.Name`` -> snake case name (lower case)."""
    words: list[str] = []
    for chunk in _NON_WORD.split(text):
        words.extend(w.lower() for w in _CAMEL.findall(chunk))
    return words
