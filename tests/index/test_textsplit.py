"""The words a symbol's qualified name is searched by."""

from __future__ import annotations

import pytest

from mnemo_core.index import textsplit
from mnemo_core.index.textsplit import dotted_words, identifier_words

NAMES = [
    "Client.get_json",
    "HTTPServer.handleRequest",
    "parseURLToHTTPSConnection",
    "A.B.C",
    "_private.__init__",
    "v2.ParseV2Header",
    "ÜberClass.größe_berechnen",
    "naïve_Name.XMLHttpRequest",
    "..a..",
    "_",
    "",
    "test_parses 'quoted' text.it works",
]


@pytest.mark.parametrize("name", NAMES)
def test_dotted_words_are_the_name_s_words(name: str) -> None:
    expected = " ".join(identifier_words(name))
    assert dotted_words(name) == expected
    assert dotted_words(name) == expected  # again, from the remembered parts


def test_remembered_parts_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textsplit, "MAX_CACHED_PARTS", 3)
    monkeypatch.setattr(textsplit, "_PART_WORDS", {})
    for i in range(10):
        assert dotted_words(f"Part{i}.sub{i}") == f"part {i} sub {i}"
    assert len(textsplit._PART_WORDS) <= 4
