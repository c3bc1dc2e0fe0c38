"""The subject component on a small real repository: BM25F of the task's first line over each
definition's own fields, its reasons, and ``mnemo why`` showing it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.cli import main
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.recency import RecencyLookup
from mnemo_core.retrieve.score import Recency
from mnemo_core.retrieve.subject import subject_line, subject_match
from mnemo_core.retrieve.task import rank_task

FILES = {
    "shop/cache.py": (
        "def evict_entries(cache, limit):\n"
        "    while len(cache) > limit:\n"
        "        cache.popitem()\n\n\n"
        "def store_entry(cache, key, value):\n"
        "    # evict later, when the cache is full\n"
        "    cache[key] = value\n\n\n"
        "def serializer(value):\n"
        "    return repr(value)\n"
    ),
    "shop/cart.py": "def cart_total(items):\n    return sum(i.price for i in items)\n",
    "tests/test_cache.py": "def test_evict_entries():\n    evict_entries({}, 0)\n",
}
TASK = "Evict stale entries\n\nThe serializer is unaffected."


def no_recency(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    return {}, None, []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", FILES)
    index_repo(root)
    return root


def by_name(store: Store, scores: dict[int, float]) -> dict[str, float]:
    symbols = store.symbols_by_ids(list(scores))
    return {symbols[sid].name: score for sid, score in scores.items()}


def test_a_name_holding_the_subject_s_word_outranks_a_comment_mentioning_it(repo: Path) -> None:
    store = Store.open(repo)
    try:
        match = subject_match(store, TASK)
        scores = by_name(store, match.scores)
    finally:
        store.close()
    assert match.terms == ("evict", "stale", "entries")
    assert scores["evict_entries"] == 1.0
    assert 0 < scores["store_entry"] < scores["evict_entries"]
    assert "serializer" not in scores  # only the first line is asked
    assert "test_evict_entries" not in scores  # test code is context, not a document
    assert "cart_total" not in scores
    ids = _ids(repo)
    evict = "the task's first line matches evict (name, code); entries (name, code)"  # def evict_entries
    assert match.reason(ids["evict_entries"]) == evict
    assert match.reason(ids["store_entry"]) == "the task's first line matches evict (comments)"


def _ids(repo: Path) -> dict[str, int]:
    store = Store.open(repo)
    try:
        return {name: sid for sid, name in store.conn.execute("SELECT id, name FROM symbols")}
    finally:
        store.close()


def test_the_component_is_in_the_ranking_and_only_the_subject_s_postings_are_read(repo: Path) -> None:
    store = Store.open(repo)
    try:
        lookup: RecencyLookup = no_recency
        ranking = rank_task(store, repo, TASK, lookup, full_walk=True)
        plan = " ".join(
            str(row[-1])
            for row in store.conn.execute(
                "EXPLAIN QUERY PLAN SELECT * FROM term_postings p JOIN term_docs d"
                " ON d.symbol_id = p.symbol_id WHERE p.term IN ('evict', 'stale')"
            )
        )
    finally:
        store.close()
    components = {ranking.symbols[s.symbol_id].name: s.components for s in ranking.scored}
    assert components["evict_entries"]["subject"] == 1.0
    assert 0 < components["store_entry"]["subject"] < 1.0
    assert "SEARCH p USING PRIMARY KEY (term=?)" in plan


def test_the_subject_is_the_first_non_blank_line() -> None:
    assert subject_line("\n  Fix the upload retry  \nbody text") == "Fix the upload retry"
    assert subject_line("   ") == ""


def test_why_shows_the_subject_component_and_its_matched_terms(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["why", "--task", TASK, "store_entry", "--repo", str(repo), "--format", "json"]) == 0
    why = json.loads(capsys.readouterr().out)
    assert 0 < why["components"]["subject"]["value"] < 1.0
    assert "subject: the task's first line matches evict (comments)" in why["notes"]
    assert main(["why", "--task", TASK, "store_entry", "--repo", str(repo)]) == 0
    text = capsys.readouterr().out
    assert "  subject " in text and "note: subject: the task's first line matches evict (comments)" in text
