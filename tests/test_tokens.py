"""Token estimates: the pieces counted without the regular expression engine for ASCII text are
exactly the pattern's matches (a pack's choices depend on every count)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from mnemo_core.tokens import count_pieces, estimate_tokens

PIECE = re.compile(r"\w+|[^\w\s]")  # the estimate's definition, restated
ROOT = Path(__file__).resolve().parents[1]
ASCII = [chr(c) for c in range(128)]


def test_every_pair_of_ascii_characters_counts_as_the_pattern() -> None:
    texts = [a + b for a in ASCII for b in ASCII]
    assert [count_pieces(t) for t in texts] == [len(PIECE.findall(t)) for t in texts]


def test_random_ascii_and_source_code_count_as_the_pattern() -> None:
    rng = random.Random(38)
    alphabet = "".join(ASCII) + "ab_9 \n\t" * 8  # words and spaces more often than controls
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))) for _ in range(2000)]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "mnemo_core").glob("*.py"))]
    assert [count_pieces(t) for t in texts] == [len(PIECE.findall(t)) for t in texts]


def test_text_beyond_ascii_takes_the_pattern() -> None:
    text = "def größe(x):\n    return x ≤ 2  # ½ é\u2028fin"
    assert count_pieces(text) == len(PIECE.findall(text)) == 14


def test_the_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens(" ") == 1
    text = "def total(items):\n    return sum(i.price for i in items)\n"
    assert estimate_tokens(text) == round(0.75 * 17 + len(text) / 16)
