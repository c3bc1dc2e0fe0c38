"""BERT's uncased WordPiece tokenizer in plain Python, for the one short text a query encodes.

The ``tokenizers`` library takes about 70 ms of CPU to load the model's ``tokenizer.json``; a task
is a sentence, so a process that answers one query tokenizes it here instead, from the model's
``vocab.txt`` (the same vocabulary). The steps are the ones ``tokenizer.json`` names, in its order:

- normalize (``BertNormalizer``): drop control characters and U+FFFD, turn whitespace into spaces,
  put spaces around CJK ideographs, strip accents (NFD, then drop combining marks), lower-case;
- pre-tokenize (``BertPreTokenizer``): split at whitespace, and make each punctuation character a
  word of its own;
- WordPiece: longest vocabulary prefix first, ``##`` before a word's later pieces; a word longer
  than ``MAX_WORD_CHARS`` or with no split into known pieces is ``[UNK]``;
- ``[CLS]`` first and ``[SEP]`` last, the whole cut at the encoder's length.

A special token written in the text (``[SEP]``, ``[MASK]``...) is that token, as the library's
"added tokens" make it: the text is split at them before anything else.

A test holds its ids equal to the library's on mnemo's own source and on non-ASCII text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

MAX_WORD_CHARS = 100  # the model's ``max_input_chars_per_word``: a longer word is [UNK]
CONTINUATION = "##"
UNKNOWN, FIRST, LAST = "[UNK]", "[CLS]", "[SEP]"
SPECIAL = ("[PAD]", UNKNOWN, FIRST, LAST, "[MASK]")  # the model's added tokens, matched in the raw text
_SPECIAL = re.compile("(" + "|".join(re.escape(token) for token in SPECIAL) + ")")
_KEPT_CONTROLS = frozenset("\t\n\r")  # whitespace, not control, to BERT
_CJK = (  # the ideograph blocks BERT spaces apart (its ``_is_chinese_char``)
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


@dataclass(frozen=True)
class WordPiece:
    """A vocabulary (token -> id) and the encoder's length limit."""

    vocab: dict[str, int]
    max_tokens: int

    @classmethod
    def from_vocab_file(cls, path: Path, max_tokens: int) -> WordPiece:
        """Read ``vocab.txt``: one token a line, its id the line's number."""
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls(dict(zip(lines, range(len(lines)), strict=True)), max_tokens)

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text``, ``[CLS]`` and ``[SEP]`` included, at most ``max_tokens``."""
        room = self.max_tokens - 2
        pieces: list[int] = []
        for place, part in enumerate(_SPECIAL.split(text)):
            if place % 2:  # a special token (the split keeps them at the odd places)
                pieces.append(self.vocab[part])
                continue
            for word in pre_tokenize(normalize(part)):
                pieces.extend(self._word(word))
            if len(pieces) >= room:
                break
        return [self.vocab[FIRST], *pieces[:room], self.vocab[LAST]]

    def _word(self, word: str) -> list[int]:
        if len(word) > MAX_WORD_CHARS:
            return [self.vocab[UNKNOWN]]
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.vocab[UNKNOWN]]
            start = end
        return out


def normalize(text: str) -> str:
    """BertNormalizer with the model's settings (clean, CJK spaced, accents stripped, lower case)."""
    kept = []
    for char in text:
        if char == "\0" or char == "\ufffd" or (_is_control(char)):
            continue
        if _is_whitespace(char):
            kept.append(" ")
        elif _is_cjk(char):
            kept.append(f" {char} ")
        else:
            kept.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(kept))
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").lower()


def pre_tokenize(text: str) -> list[str]:
    """Words split at whitespace, each punctuation character a word of its own."""
    words: list[str] = []
    for chunk in text.split():
        current = ""
        for char in chunk:
            if _is_punctuation(char):
                if current:
                    words.append(current)
                    current = ""
                words.append(char)
            else:
                current += char
        if current:
            words.append(current)
    return words


def _is_control(char: str) -> bool:
    return char not in _KEPT_CONTROLS and unicodedata.category(char).startswith("C")


def _is_whitespace(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK)


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")
