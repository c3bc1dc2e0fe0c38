"""The memory's ranking signals without a repository: session decay and task similarity."""

from __future__ import annotations

import pytest

from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.recall import (
    MIN_SIMILARITY,
    SESSION_HALF_LIFE_S,
    SESSION_WINDOW_S,
    Event,
    Recall,
    RememberedTask,
    terms_of,
)

NOW = 10_000_000.0


def _symbol(sid: int, path: str, name: str) -> Symbol:
    return Symbol(
        sid, path, name, "function", "python", f"def {name}()", "", 1, 2, 10, False, False, True, None, ()
    )


def _task(text: str) -> RememberedTask:
    return RememberedTask(text, terms_of(text), frozenset({("a.py", "f", "function")}), frozenset())


def test_terms_are_content_words_stemmed() -> None:
    assert terms_of("Fix retries when uploading cached files") == {"retry", "upload", "cach"}
    assert terms_of("retry the upload; cache it") == {"retry", "upload", "cach"}


@pytest.mark.parametrize(
    ("kind", "age", "expected"),
    [
        ("edited", 0.0, 1.0),
        ("edited", SESSION_HALF_LIFE_S, 0.5),
        ("hovered", 2 * SESSION_HALF_LIFE_S, 0.15),
        ("returned", 0.0, 0.25),
        ("edited", SESSION_WINDOW_S + 1, None),
    ],
)
def test_session_component_by_kind_and_age(kind: str, age: float, expected: float | None) -> None:
    recall = Recall(NOW, (Event(NOW - age, kind, "a.py", "f", "function"),))
    touches = recall.session({1: _symbol(1, "a.py", "f"), 2: _symbol(2, "a.py", "g")})
    assert 2 not in touches
    if expected is None:
        assert touches == {}
    else:
        assert touches[1].value == pytest.approx(expected)


def test_a_file_event_reaches_every_symbol_of_the_file_and_the_sum_is_capped() -> None:
    edits = [Event(NOW, "edited", "a.py", "f", "function")] * 3
    events = (*edits, Event(NOW - 120, "opened", "a.py"))
    touches = Recall(NOW, events).session({1: _symbol(1, "a.py", "f"), 2: _symbol(2, "a.py", "g")})
    assert touches[1].value == 1.0 and touches[1].reason == "you edited this just now"
    assert touches[2].value == pytest.approx(0.4 * 0.5 ** (120 / SESSION_HALF_LIFE_S))
    assert touches[2].reason == "you opened its file 2 minutes ago"


def test_similar_tasks_share_words_and_unrelated_ones_do_not() -> None:
    recall = Recall(
        NOW, (), (_task("retry the upload when the network fails"), _task("render invoices as PDF"))
    )
    similar = recall.similar(extract_keywords("upload retries on network errors"))
    assert [t.text for _, t in similar] == ["retry the upload when the network fails"]
    assert similar[0][0] >= MIN_SIMILARITY
    assert recall.similar(extract_keywords("colour of the login button")) == []


def test_a_word_most_tasks_share_says_nothing() -> None:
    tasks = tuple(_task(f"parser {word}") for word in ("tokens", "comments", "strings", "numbers", "errors"))
    assert Recall(NOW, (), tasks).similar(extract_keywords("parser speed")) == []
    assert [t.text for _, t in Recall(NOW, (), tasks).similar(extract_keywords("parser strings"))] == [
        "parser strings"
    ]
