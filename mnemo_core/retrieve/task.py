"""Task context: a task in words -> ranked, budgeted symbols, each with its score's components.

``rank_task`` runs the pure steps in order (keywords -> seeds -> walk -> score) and keeps every
intermediate result, so ``for_task`` can pack and render them and ``explain`` can show them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.graphcache import graph_for
from mnemo_core.retrieve.history import history_channel
from mnemo_core.retrieve.keywords import Keywords, extract_keywords
from mnemo_core.retrieve.recency import RecencyLookup
from mnemo_core.retrieve.score import Recency, Scored, score_candidates
from mnemo_core.retrieve.seeds import Seed, seed
from mnemo_core.retrieve.walk import WalkResult, walk

MAX_SEEDS = 60  # the walk restarts from at most this many fused seeds
MAX_SEED_CANDIDATES = 400  # fused seeds scored as candidates (a body match ranked 200th may still win)
WALK_CANDIDATES = 250  # non-seed candidates taken from the top of the walk
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


def rank_task(store: Store, root: Path, text: str, recency_lookup: RecencyLookup) -> TaskRanking:
    """Rank every candidate symbol for a task (no budget applied)."""
    keywords = parse_task(text)
    seeds = seed(store, keywords, history_channel(root))
    top_seeds = {s.symbol_id: s for s in seeds[:MAX_SEED_CANDIDATES]}
    result = walk(graph_for(store), {s.symbol_id: s.score for s in seeds[:MAX_SEEDS]})
    walked = sorted(result.scores, key=lambda n: (-result.scores[n], n))
    candidate_ids = list(dict.fromkeys([*top_seeds, *walked[:WALK_CANDIDATES]]))
    symbols = {
        sid: s for sid, s in store.symbols_by_ids(candidate_ids).items() if s.kind not in EXCLUDED_KINDS
    }
    candidates = [sid for sid in candidate_ids if sid in symbols]
    fan_in = store.fan_in(candidates)
    recency, reference, recency_notes = recency_lookup({sid: symbols[sid] for sid in candidates})
    scored = score_candidates(candidates, top_seeds, result, fan_in, recency, reference, symbols, keywords)
    notes = list(recency_notes)
    if keywords.truncated:
        notes.append("the task was truncated to its first 4000 characters")
    return TaskRanking(keywords, top_seeds, result, scored, symbols, fan_in, recency, reference, tuple(notes))
