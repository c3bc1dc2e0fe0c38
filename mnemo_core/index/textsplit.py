"""Identifier splitting shared by the index (FTS columns) and retrieval (keywords)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_UNICODE_WORD = re.compile(r"[^\W_]+")
STEM_MIN_CHARS = 3
STEM_SUFFIXES = ("ing", "ed", "es", "s")


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


def stem(word: str) -> str:
    """Enough stemming to match "uploads", "uploaded" and "uploading" with "upload", "retries" with
    "retry" and "cached" with "cache"."""
    word = word.lower()
    if word.endswith("ies") and len(word) > STEM_MIN_CHARS + 2:
        return word[:-3] + "y"
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN_CHARS and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > STEM_MIN_CHARS else word
