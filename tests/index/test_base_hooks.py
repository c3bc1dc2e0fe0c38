"""The shared hook machinery: finding a file's names as the regular expression of them would."""

from __future__ import annotations

import re

import pytest

from mnemo_core.index.languages.base import alternatives, name_spans

WORD_END = re.compile(rb"\b")
CONSTANT_ATTRIBUTE = re.compile(rb"\._*[A-Z][A-Z0-9_]*\b")
SOURCE = (
    b"TIMEOUT = 1\nx = TIMEOUT + MY_TIMEOUT + TIMEOUT_S\nnet.TIMEOUT\nnet.http.RETRIES net.httpX.Y\n"
    b"a.b.C a.B.C  t.T _t.T\xc3\xa9t.X caf\xc3\xa9.Z \xc3\xa9t.W TIMEOUT"
)
CASES = [
    (frozenset({"TIMEOUT", "MY_TIMEOUT"}), WORD_END),
    (frozenset({"TIMEOUT", "TIMEOUT_S", "T"}), WORD_END),
    (frozenset({"net", "net.http", "a", "a.b", "a.B", "t", "caf\u00e9", "\u00e9t"}), CONSTANT_ATTRIBUTE),
    (frozenset({"x", ""}), WORD_END),  # an empty name matches at every boundary, as in the pattern
    (frozenset(), CONSTANT_ATTRIBUTE),
]


@pytest.mark.parametrize(("names", "tail"), CASES)
def test_name_spans_are_the_patterns_matches(names: frozenset[str], tail: re.Pattern[bytes]) -> None:
    pattern = rb"\b(?:" + alternatives(names) + rb")" + tail.pattern
    expected = [m.span() for m in re.finditer(pattern, SOURCE)] if names else []
    assert name_spans(SOURCE, names, tail) == expected


def test_the_longest_name_that_matches_wins_and_the_scan_resumes_after_it() -> None:
    spans = name_spans(b"a.b.C a.B", frozenset({"a", "a.b", "b"}), CONSTANT_ATTRIBUTE)
    assert spans == [(0, 5), (6, 9)]  # ``a.b`` + ``.C``, then ``a`` + ``.B``; never ``b.C`` inside the first
