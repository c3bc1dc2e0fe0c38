"""Identifier splitting shared by the index (FTS columns) and retrieval (keywords)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_UNICODE_WORD = re.compile(r"[^\W_]+")
STEM_MIN_CHARS = 3
STEM_SUFFIXES = ("ing", "ed", "es", "s")
# the parts of dotted names whose words ``dotted_words`` remembers (a few MB): a repository's symbols
# repeat their parts (a class's name in each of its methods', ``__init__``, ``get`` in many classes)
MAX_CACHED_PARTS = 100_000
_PART_WORDS: dict[str, str] = {}


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


def dotted_words(name: str) -> str:
    """``" ".join(identifier_words(name))`` for a dotted name (``Client.get_json``), each part's
    words remembered: no word spans a ".", so a name's words are its parts' words in order."""
    if len(_PART_WORDS) > MAX_CACHED_PARTS:
        _PART_WORDS.clear()
    found = []
    for part in name.split("."):
        words = _PART_WORDS.get(part)
        if words is None:
            words = _PART_WORDS[part] = " ".join(identifier_words(part))
        if words:
            found.append(words)
    return " ".join(found)


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
