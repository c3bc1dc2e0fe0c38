"""Reciprocal-rank fusion of seed channels."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.retrieve import seeds
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.seeds import RRF_K, body_ranked, fuse


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    seeds = fuse({"name": [(7, "n")], "fts": [(9, "f"), (7, "f")]}, {"name": 1.0, "fts": 0.5})
    by_id = {s.symbol_id: s for s in seeds}
    assert by_id[7].score == pytest.approx(1 / (RRF_K + 1) + 0.5 / (RRF_K + 2))
    assert by_id[9].score == pytest.approx(0.5 / (RRF_K + 1))
    assert [s.symbol_id for s in seeds] == [7, 9]
    assert [h.channel for h in by_id[7].hits] == ["name", "fts"]


def test_ties_break_by_id() -> None:
    seeds = fuse({"a": [(5, "x")], "b": [(3, "y")]}, {"a": 1.0, "b": 1.0})
    assert [s.symbol_id for s in seeds] == [3, 5]


def test_names_containing_several_fragments_in_one_scan(tmp_path: Path) -> None:
    """The name channel's one scan for every fragment finds what one query per fragment finds, in
    the same order (tests last, then shorter names, path, line) and number."""
    source = "".join(f"def {name}():\n    pass\n\n" for name in NAMES)
    repo = make_repo(
        tmp_path / "repo", {"pkg/walks.py": source, "tests/test_walks.py": source, "b.py": source}
    )
    index_repo(repo)
    fragments = ["walker", "Breadth", "first", "unused", "ünï", "R_O", "S_", "%"]
    store = Store.open(repo)
    try:
        each = store.symbols_containing_each(fragments, limit=4)
        one_by_one = {f: store.symbols_containing(f, 4) for f in fragments}
    finally:
        store.close()
    assert each == one_by_one
    assert [s.short_name for s in each["walker"]] == ["walkers", "walkers", "walker_of", "walker_of"]
    assert each["unused"] == [] and each["ünï"] == []  # "unused" is only ever a whole name here
    assert {s.short_name for s in each["R_O"]} == {"walker_of"}  # "_" and "%" are themselves, case aside
    assert each["S_"] == [] and each["%"] == []  # an unescaped pattern: "st", every name


NAMES = ["walker", "walkers", "walker_of", "breadth_first", "first_breadth_walker", "unused"]


def test_a_body_hit_names_the_task_words_its_code_has(tmp_path: Path) -> None:
    """Each body hit's reason names the task's words that its own code has (stemmed as FTS5 stems
    them), whatever other symbols match."""
    files = {
        "net.py": "def send(packet):\n    retries = 3\n    return packet, retries\n",
        "disk.py": "def store(packet):\n    return packet\n",
        "other.py": "".join(f"def f{i}():\n    return 'packets retry'\n\n" for i in range(30)),
    }
    repo = make_repo(tmp_path / "repo", files)
    index_repo(repo)
    store = Store.open(repo)
    try:
        channel, _ = body_ranked(store, extract_keywords("retry the packet"))
        names = {s.id: s.name for s in store.symbols_by_ids(sid for sid, _ in channel).values()}
    finally:
        store.close()
    reasons = {names[sid]: detail for sid, detail in channel}
    assert reasons["send"] == "code mentions retry, packet"
    assert reasons["store"] == "code mentions packet"
    assert reasons["f0"] == "code mentions retry, packet"


def test_a_path_that_contains_no_term_is_not_split_and_names_the_same_terms() -> None:
    """Every file of this interpreter's standard library, and paths that split or fold oddly:
    the terms a path names are those of its words, whether or not the quick check skipped it."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = [p.relative_to(stdlib).as_posix() for p in stdlib.rglob("*.py")]
    paths += ["src/HTTPClient/RetryPolicies.py", "uploads/UPLOADS.ts", "ΟΔΟΣ/χάρτης.py", "a/Straße/x.go"]
    named = 0
    for text in ("add retry to the http client", "parse email headers", "map of roads", "strasse uploads"):
        keywords = extract_keywords(text)
        terms = {seeds._stem(t) for t in seeds.task_terms(keywords)}
        any_term = re.compile("|".join(re.escape(t) for t in sorted(terms)))
        for path in paths:
            found = seeds._named(path, terms, any_term)
            assert found == seeds._path_words(path) & terms, path
            named += bool(found)
    assert named > 20
