"""Task context: a task in words -> ranked, budgeted symbols, each with its score's components.

``rank_task`` runs the pure steps in order (keywords -> seeds -> graph -> score) and keeps every
intermediate result, so ``for_task`` can pack and render them and ``explain`` can show them.
The candidates are the best seeds and the graph neighbours the walk's first step from them
reaches most strongly; the random walk itself (numpy) runs only when a weight reads its result or
when asked (``explain`` shows every component), so it never changes which symbols are candidates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.fold import UNFOLDED_LANGUAGES, fold
from mnemo_core.retrieve.graphcache import fan_in_of, graph_for
from mnemo_core.retrieve.history import history_channel
from mnemo_core.retrieve.keywords import Keywords, extract_keywords
from mnemo_core.retrieve.recall import Recall, Touch
from mnemo_core.retrieve.recency import RecencyLookup
from mnemo_core.retrieve.score import (
    SEMANTIC_POOL,
    WEIGHTS,
    Recency,
    Scored,
    candidate_parts,
    ranked,
    with_semantic,
)
from mnemo_core.retrieve.seeds import Channel, Ranked, Seed, Strengths, seed
from mnemo_core.retrieve.vendored import Foreign, foreign_paths
from mnemo_core.retrieve.walk import WalkResult, hops_only, reach, walk
from mnemo_core.semantic.channel import ABSENT, Meaning, VectorUse, meaning

MAX_SEEDS = 60  # the walk restarts from at most this many fused seeds
MAX_SEED_CANDIDATES = 400  # fused seeds scored as candidates (a body match ranked 200th may still win)
NEIGHBOUR_CANDIDATES = 250  # non-seed candidates: the graph neighbours the seeds pass most weight to
WALK_COMPONENTS = ("walk", "authority")  # the components that need the random walk and HITS
EXCLUDED_KINDS = frozenset({"module"})  # modules shape the graph but are not answers


@dataclass(frozen=True)
class TaskRanking:
    """Everything the ranking of one task produced."""

    keywords: Keywords
    seeds: dict[int, Seed]
    walk: WalkResult
    scored: list[Scored]
    symbols: dict[int, Symbol]
    fan_in: dict[int, int]
    recency: dict[int, Recency]
    reference_time: int | None
    notes: tuple[str, ...]
    session: dict[int, Touch] = field(default_factory=dict)  # candidates touched in this session
    recall: Recall = field(default_factory=Recall)  # what was remembered (empty when memory is off)
    now: float = field(default_factory=time.time)  # what the reasons' dates are told against
    meaning: Meaning = ABSENT  # the semantic channel's state and similarities
    folded_into: dict[int, int] = field(default_factory=dict)  # an overload or constructor -> its answer
    foreign: dict[str, Foreign] = field(default_factory=dict)  # build output, vendored, minified: demoted


def parse_task(text: str) -> Keywords:
    """Keywords of a task, or a clear error when it has nothing to search for."""
    if not text or not text.strip():
        raise MnemoError(
            "the task is empty; describe the change in words, e.g. 'add retry to the upload client'"
        )
    keywords = extract_keywords(text)
    if keywords.empty:
        raise MnemoError(
            f"nothing to search for in {text.strip()[:60]!r}: every word is a stop word. "
            "Name the feature, file or function involved."
        )
    return keywords


def rank_task(
    store: Store,
    root: Path,
    text: str,
    recency_lookup: RecencyLookup,
    full_walk: bool = False,
    recall: Recall | None = None,
    vectors: VectorUse = "stored",
    folded: bool = True,
) -> TaskRanking:
    """Rank every candidate symbol for a task (no budget applied). The random walk runs when a
    weight needs it or ``full_walk`` asks for it; the ranking is the same either way. ``recall``
    (the session and the task memory) adds the memory channel and the session component. The best
    product candidates are then compared with the task by meaning when the semantic channel has
    their vectors (``vectors="encode"`` encodes those missing: a benchmark's way to the same values
    without indexing every commit). ``folded`` folds overloads and constructors and steps types back
    (:mod:`mnemo_core.retrieve.fold`); off only to measure what folding does."""
    keywords = parse_task(text)
    recall = recall or Recall()
    memory = _memory_channel(recall) if recall.tasks else None
    seeds = seed(store, keywords, history_channel(root), memory)
    top_seeds = {s.symbol_id: s for s in seeds[:MAX_SEED_CANDIDATES]}
    graph = graph_for(store)
    restart = {s.symbol_id: s.score for s in seeds[:MAX_SEEDS]}
    near = reach(graph, restart)
    walked = full_walk or any(WEIGHTS[name] for name in WALK_COMPONENTS)
    result = walk(graph, restart, near) if walked else hops_only(graph, near)
    step = near.first_step
    neighbours = sorted((n for n in step if n not in top_seeds), key=lambda n: (-step[n], n))
    candidate_ids = [*top_seeds, *neighbours[:NEIGHBOUR_CANDIDATES]]
    symbols = {
        sid: s for sid, s in store.symbols_by_ids(candidate_ids).items() if s.kind not in EXCLUDED_KINDS
    }
    candidates = [sid for sid in candidate_ids if sid in symbols]
    fan_in = fan_in_of(store, candidates)
    recency, reference, recency_notes = recency_lookup({sid: symbols[sid] for sid in candidates})
    session = recall.session({sid: symbols[sid] for sid in candidates}) if recall.events else {}
    touched = {sid: touch.value for sid, touch in session.items()}
    useless = {sid: factor for sid, (factor, _) in recall.demoted.items()}
    foreign = foreign_paths(root, (symbols[sid] for sid in candidates), keywords)
    factors = (candidates, top_seeds, result, fan_in, recency, reference, symbols, keywords, touched, useless)
    parts = candidate_parts(*factors, foreign)
    scored = ranked(parts)
    pool = [symbols[s.symbol_id] for s in scored if not symbols[s.symbol_id].is_test][:SEMANTIC_POOL]
    wanted = vectors != "off" and (full_walk or WEIGHTS["semantic"] > 0)  # at 0 no encoder is loaded
    similar = meaning(store, root, text, pool, vectors) if wanted else ABSENT
    if similar.similarity:
        scored = with_semantic(scored, parts, similar.similarity)
    into: dict[int, int] = {}
    if folded and any(s.language not in UNFOLDED_LANGUAGES for s in symbols.values()):
        result_folded = fold(scored, symbols, keywords)
        scored, into = result_folded.scored, result_folded.into
    notes = list(recency_notes)
    if keywords.truncated:
        notes.append("the task was truncated to its first 4000 characters")
    return TaskRanking(
        keywords,
        top_seeds,
        result,
        scored,
        symbols,
        fan_in,
        recency,
        reference,
        tuple(notes),
        session,
        recall,
        meaning=similar,
        folded_into=into,
        foreign=foreign,
    )


def _memory_channel(recall: Recall) -> Ranked:
    """The memory channel, finding remembered symbols in the index by path, name and kind."""

    def ranked(store: Store, keywords: Keywords) -> tuple[Channel, Strengths]:
        def locate(keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], int]:
            return {key: symbol.id for key, symbol in store.symbols_by_keys(keys).items()}

        return recall.memory_channel(locate, keywords)

    return ranked
