"""Seed channels, each a ranked list of symbols, fused by reciprocal-rank fusion.

- **name**: symbols whose name is a term: backtick-exact terms first, then compounds (exact, then as
  a prefix, then contained). A generic term matches many symbols, so each term contributes at most
  ``NAME_MATCHES_PER_TERM``. A single plain word ("match", "has") names no symbol here: it matched
  methods of that name all over the code, and the text channels weigh such words by their rarity.
- **fts**: BM25 over the weighted columns of the full-text index (name, split name words, qualified
  name, signature, docstring, path).
- **body**: BM25 over the words of each symbol's own body (identifiers, comments, strings): what the
  code does, where its name and docstring do not say it.
- **history**: past commits whose messages resemble the task vote for the functions they changed
  (``history.py``; it needs git, so the caller hands it in).
- **path**: the symbols of files whose directory or file name is a term (``upload client`` ->
  ``uploads/client.py``), the most called first.
- **memory**: the symbols that were useful for similar past tasks (``recall.py``; empty when
  nothing is remembered, so it changes nothing then).

RRF gives ``sum(weight_c / (RRF_K + rank_c))`` over the channels that found a symbol: rank positions
matter, raw channel scores (incomparable across channels) do not.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from mnemo_core.index.store import Store
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.retrieve.keywords import Keywords

RRF_K = 60  # the standard constant: damps the difference between the first few ranks
CHANNEL_WEIGHTS = {
    "name": 1.0,  # a symbol named after a task term is the strongest evidence
    "fts": 1.0,  # term overlap across names, signatures and docstrings
    "body": 1.0,  # term overlap with the code itself
    "history": 1.0,  # similar past changes touched it
    "path": 0.5,  # the file is about the topic; its symbols are only candidates
    "memory": 1.0,  # useful for a similar past task (said by feedback or by the commit that landed it)
}
NAME_MATCHES_PER_TERM = 12
MIN_CONTAINS_CHARS = 6  # "cache_key" inside "get_cache_key"; shorter fragments match by accident
MIN_PREFIX_CHARS = 4  # shorter prefixes match half the repository
FTS_LIMIT = 150
BODY_LIMIT = 150
MAX_TERMS_SHOWN = 5
PATH_FILES = 6
PATH_MAX_SHARE = 0.1  # a path word shared by more than this share of files does not pick files out
PATH_MIN_FILES = 3
PATH_SYMBOLS_PER_FILE = 8
PATH_SYMBOLS_FIRST_FILE = 25  # a task that names one file often changes several of its functions
PLURAL_MIN_CHARS = 3


@dataclass(frozen=True, slots=True)
class Hit:
    """One channel's vote for a symbol: its rank there (1-based) and why."""

    channel: str
    rank: int
    detail: str
    strength: float = 1.0  # the channel's own score scaled to 1 for its best hit (BM25 for fts)


@dataclass(frozen=True, slots=True)
class Seed:
    """A fused seed: its RRF score and every channel hit that produced it."""

    symbol_id: int
    score: float
    hits: tuple[Hit, ...]


Channel = list[tuple[int, str]]  # (symbol id, why), best first
Strengths = dict[int, float]  # a channel's own scores (scaled to 1 for its best), where it has them
Ranked = Callable[[Store, Keywords], tuple[Channel, Strengths]]  # a channel with its own scores


def name_channel(store: Store, keywords: Keywords) -> Channel:
    """Symbols named after the task's terms, strongest tier first."""
    ranked: list[tuple[int, str]] = []
    for term in keywords.exact:
        qualified = term.split(":")[-1]
        matches = store.symbols_with_qualified_name(qualified) if "." in qualified else []
        matches += store.symbols_named([qualified.rsplit(".", 1)[-1]], limit=NAME_MATCHES_PER_TERM)[
            qualified.rsplit(".", 1)[-1]
        ]
        ranked += [(s.id, f"exact name match: {term}") for s in matches]
    for term in keywords.compounds:
        if "." in term:
            ranked += [
                (s.id, f"qualified name match: {term}") for s in store.symbols_with_qualified_name(term)
            ]
    compounds = [t.rsplit(".", 1)[-1] for t in keywords.compounds]
    for term, matches in store.symbols_named(compounds, limit=NAME_MATCHES_PER_TERM).items():
        ranked += [(s.id, f"name match: {term}") for s in matches]
    prefixes = [t for t in compounds if len(t) >= MIN_PREFIX_CHARS]
    for term, matches in store.symbols_named(prefixes, prefix=True, limit=NAME_MATCHES_PER_TERM).items():
        ranked += [(s.id, f"name starts with {term}") for s in matches]
    contained = [t for t in compounds if len(t) >= MIN_CONTAINS_CHARS]
    for term, matches in store.symbols_containing_each(contained, NAME_MATCHES_PER_TERM).items():
        ranked += [(s.id, f"name contains {term}") for s in matches]
    return _first_occurrence(ranked)


def fts_query(keywords: Keywords) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted so no term is read as syntax."""
    return _match(_terms(keywords))


def _match(terms: list[str]) -> str:
    return " OR ".join(f'"{t}"' for t in terms)


def task_terms(keywords: Keywords) -> list[str]:
    """The terms the full-text channels search for: the task's words, identifiers split."""
    return _terms(keywords)


def _terms(keywords: Keywords) -> list[str]:
    terms = [w for t in keywords.exact for w in identifier_words(t)] + list(keywords.components)
    terms += keywords.words
    return list(dict.fromkeys(t.replace('"', "") for t in terms if t))


def fts_channel(store: Store, keywords: Keywords) -> Channel:
    """BM25 over the weighted full-text columns."""
    return fts_ranked(store, keywords)[0]


def fts_ranked(store: Store, keywords: Keywords) -> tuple[Channel, Strengths]:
    """The FTS channel and its BM25 scores (scaled to 1 for the best hit)."""
    return _bm25_channel(
        store, keywords, store.fts_search, FTS_LIMIT, "symbols_fts", "name, signature, docstring or path"
    )


def body_ranked(store: Store, keywords: Keywords) -> tuple[Channel, Strengths]:
    """The body channel and its BM25 scores (scaled to 1 for the best hit)."""
    return _bm25_channel(store, keywords, store.body_search, BODY_LIMIT, "bodies_fts", "code")


def _bm25_channel(
    store: Store,
    keywords: Keywords,
    search: Callable[[str, int], list[tuple[int, float]]],
    limit: int,
    table: str,
    where: str,
) -> tuple[Channel, Strengths]:
    """A BM25 channel: ``search`` over the full-text ``table``; each hit's reason names the terms it
    matched."""
    terms = _terms(keywords)
    if not terms:
        return [], {}
    hits = search(_match(terms), limit)
    matched = store.matched_terms(table, terms, [sid for sid, _ in hits])
    best = max((score for _, score in hits), default=0.0) or 1.0
    channel = [
        (sid, f"{where} mentions {', '.join(matched.get(sid, terms)[:MAX_TERMS_SHOWN])}") for sid, _ in hits
    ]
    return channel, {sid: max(score, 0.0) / best for sid, score in hits}


def path_channel(store: Store, keywords: Keywords) -> Channel:
    """Symbols of the files whose path names the task's terms; a term that names a large share of
    the files (``src``, ``index`` in ``index/``) says nothing and is ignored. The best file gives
    more of its symbols than the others."""
    terms = {_stem(t) for t in _terms(keywords)} | {
        _stem(t.lower()) for t in keywords.compounds if "." not in t
    }
    if not terms:
        return []
    any_term = re.compile("|".join(re.escape(t) for t in sorted(terms)))
    files = [(fid, path, _named(path, terms, any_term)) for fid, path in store.file_paths()]
    counts: dict[str, int] = defaultdict(int)
    for _, _, matched in files:
        for term in matched:
            counts[term] += 1
    common = {t for t, n in counts.items() if n > max(PATH_MIN_FILES, PATH_MAX_SHARE * len(files))}
    scored = sorted(
        (-len(m - common), len(path), path, fid, m - common) for fid, path, m in files if m - common
    )
    per_file = [
        [
            (s.id, f"in {path}, whose path names {', '.join(sorted(matched))}")
            for s in store.file_symbols_by_fan_in(
                fid, PATH_SYMBOLS_FIRST_FILE if i == 0 else PATH_SYMBOLS_PER_FILE
            )
        ]
        for i, (_, _, path, fid, matched) in enumerate(scored[:PATH_FILES])
    ]
    interleaved = [item for group in _round_robin(per_file) for item in group]
    return _first_occurrence(interleaved)


def _stem(word: str) -> str:
    """Plural folding, enough for paths: ``releases`` ~ ``release``, ``utils`` ~ ``util``."""
    return (
        word[:-1] if len(word) > PLURAL_MIN_CHARS and word.endswith("s") and not word.endswith("ss") else word
    )


def _named(path: str, terms: set[str], any_term: re.Pattern[str]) -> set[str]:
    """The terms among a path's words. A word of an ASCII path is a piece of the lower-cased path,
    so a path that contains no term there names none, and its words are not split (O(files) per
    query)."""
    if path.isascii() and any_term.search(path.lower()) is None:
        return set()
    return _path_words(path) & terms


def _path_words(path: str) -> set[str]:
    words = set(identifier_words(path.rsplit(".", 1)[0])) | {p.lower() for p in path.split("/")}
    return {_stem(w) for w in words}


def fuse(
    channels: dict[str, Channel],
    weights: dict[str, float] | None = None,
    strengths: dict[str, Strengths] | None = None,
) -> list[Seed]:
    """Reciprocal-rank fusion of ranked channels; ties broken by symbol id for determinism."""
    weights = weights or CHANNEL_WEIGHTS
    strengths = strengths or {}
    scores: dict[int, float] = defaultdict(float)
    hits: dict[int, list[Hit]] = defaultdict(list)
    for channel, ranked in channels.items():
        own = strengths.get(channel, {})
        for rank, (sid, detail) in enumerate(ranked, start=1):
            scores[sid] += weights.get(channel, 1.0) / (RRF_K + rank)
            hits[sid].append(Hit(channel, rank, detail, own.get(sid, 1.0)))
    order = sorted(scores, key=lambda sid: (-scores[sid], sid))
    return [Seed(sid, scores[sid], tuple(hits[sid])) for sid in order]


def seed(
    store: Store,
    keywords: Keywords,
    history_channel: Ranked | None = None,
    memory_channel: Ranked | None = None,
) -> list[Seed]:
    """Every channel, fused; ``history_channel`` ranks by past commits (absent without git),
    ``memory_channel`` by past tasks (absent when memory is off)."""
    fts, bm25 = fts_ranked(store, keywords)
    body, body_bm25 = body_ranked(store, keywords)
    history, votes = history_channel(store, keywords) if history_channel else ([], {})
    memory, recalled = memory_channel(store, keywords) if memory_channel else ([], {})
    channels = {
        "name": name_channel(store, keywords),
        "fts": fts,
        "body": body,
        "history": history,
        "path": path_channel(store, keywords),
    }
    if memory:
        channels["memory"] = memory
    strengths = {"fts": bm25, "body": body_bm25, "history": votes, "memory": recalled}
    return fuse(channels, strengths=strengths)


def _first_occurrence(ranked: list[tuple[int, str]]) -> Channel:
    seen: dict[int, str] = {}
    for sid, detail in ranked:
        seen.setdefault(sid, detail)
    return list(seen.items())


def _round_robin(groups: list[list[tuple[int, str]]]) -> list[list[tuple[int, str]]]:
    longest = max((len(g) for g in groups), default=0)
    return [[g[i] for g in groups if i < len(g)] for i in range(longest)]
