"""Keyword tiers from task text."""

from __future__ import annotations

import pytest

from mnemo_core.retrieve.keywords import MAX_TASK_CHARS, extract_keywords


def test_tiers_for_a_plain_task() -> None:
    k = extract_keywords("add retry with backoff to the upload client")
    assert k.exact == ()
    assert k.compounds == ("upload_client", "uploadClient", "UploadClient")
    assert k.components == ("retry", "backoff", "upload", "client")
    assert not k.about_tests


def test_backticks_identifiers_and_calls() -> None:
    k = extract_keywords("Make `Session.get_cookie` respect SameSite in parse_header() #1234 https://x.y/z")
    assert k.exact == ("Session.get_cookie",)
    assert k.compounds[:2] == ("SameSite", "parse_header")
    assert "1234" not in " ".join(k.components) and "https" not in k.components
    assert {"session", "get", "cookie", "same", "site", "parse", "header"} <= set(k.components)


def test_abbreviations_expand_and_keep_the_original() -> None:
    k = extract_keywords("load cfg from env")
    assert k.components[1:3] == ("config", "cfg")
    assert "environment" in k.components and "env" in k.components


@pytest.mark.parametrize(
    ("text", "about_tests"),
    [
        ("fix the flaky test for uploads", True),
        ("add a pytest fixture for the db", True),
        ("speed up uploads", False),
        ("rename test_helpers.make_repo", True),
    ],
)
def test_tasks_about_tests(text: str, about_tests: bool) -> None:
    assert extract_keywords(text).about_tests is about_tests


def test_stop_words_only_gives_nothing() -> None:
    assert extract_keywords("please fix the thing so that it works").empty


def test_long_tasks_are_truncated() -> None:
    k = extract_keywords("upload " * (MAX_TASK_CHARS // 3))
    assert k.truncated and k.components == ("upload",)


def test_deterministic() -> None:
    text = "Refactor the HTTPServer request handler and its keepAlive timeout"
    assert extract_keywords(text) == extract_keywords(text)
