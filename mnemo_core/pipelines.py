"""The engine's public entry points: orchestration only, the algorithms live in ``retrieve/``.

Each pipeline opens the repository, brings its index up to date (incremental, usually a no-op),
runs its steps and returns a :class:`ContextPack` (or an :class:`Explanation`) that every front end
renders the same way.
"""

from __future__ import annotations

import time
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.lookup import resolve_symbol
from mnemo_core.model import ContextPack, Contribution, Explanation, ScoredSymbol, Symbol
from mnemo_core.repository import Repository
from mnemo_core.retrieve.pack import Piece, pack
from mnemo_core.retrieve.recency import RecencyLookup, git_recency
from mnemo_core.retrieve.reasons import task_reasons
from mnemo_core.retrieve.score import WEIGHTS
from mnemo_core.retrieve.snippets import SourceCache, token_costs
from mnemo_core.retrieve.task import TaskRanking, rank_task
from mnemo_core.vcs.git import head_commit

DEFAULT_BUDGET = 8000
PACK_POOL = 200  # packing considers this many of the best candidates


def open_repo(repo: str | Path | Repository, update: bool = True) -> Repository:
    """A Repository from a path or an open one, with its index brought up to date."""
    opened = repo if isinstance(repo, Repository) else Repository.open(repo)
    if update:
        opened.update_index()
    return opened


def check_budget(budget: int) -> None:
    """A budget must leave room for at least one symbol header."""
    if budget <= 0:
        raise MnemoError(f"the token budget must be a positive number (got {budget})")


def for_task(repo: str | Path | Repository, text: str, budget: int = DEFAULT_BUDGET, limit: int | None = None,
             update_index: bool = True) -> ContextPack:
    """The symbols to read first for a task in words, ranked and packed into ``budget`` tokens."""
    started = time.perf_counter()
    check_budget(budget)
    opened = open_repo(repo, update_index)
    ranking = rank_task(opened.store, opened.root, text, recency_lookup(opened))
    symbols = _packed(opened, ranking, budget, limit)
    return ContextPack(
        mode="task",
        query=text,
        repo=str(opened.root),
        commit=head_commit(opened.root),
        budget_tokens=budget,
        used_tokens=sum(s.tokens for s in symbols),
        symbols=tuple(symbols),
        stats={
            "elapsed_ms": round((time.perf_counter() - started) * 1000),
            "seeds": len(ranking.seeds),
            "candidates": len(ranking.scored),
            "walk_nodes": ranking.walk.nodes,
            "walk_iterations": ranking.walk.iterations,
            "index_files": opened.store.totals()[0],
        },
        notes=ranking.notes,
    )


def _packed(repo: Repository, ranking: TaskRanking, budget: int, limit: int | None) -> list[ScoredSymbol]:
    source = SourceCache(repo.root)
    pool = ranking.scored[: limit or PACK_POOL]
    members = repo.store.children_of(s.symbol_id for s in pool)
    texts: dict[int, str] = {}
    pieces = []
    for scored in pool:
        symbol = ranking.symbols[scored.symbol_id]
        head, full, texts[symbol.id] = token_costs(symbol, source, members.get(symbol.id, ()))
        pieces.append(Piece(symbol.id, scored.score, symbol.path, head, full))
    by_id = {s.symbol_id: s for s in pool}
    chosen = pack(pieces, budget, _neighbours(ranking))
    return [
        ScoredSymbol(
            symbol=ranking.symbols[c.symbol_id],
            score=round(by_id[c.symbol_id].score, 4),
            components=by_id[c.symbol_id].components,
            reasons=tuple(task_reasons(ranking, c.symbol_id)),
            distance=ranking.walk.hops.get(c.symbol_id, 0),
            tokens=c.tokens,
            body=texts[c.symbol_id] if c.full else None,
        )
        for c in chosen
    ]


def _neighbours(ranking: TaskRanking) -> dict[int, set[int]]:
    """Same-parent symbols count as neighbours for packing (a method next to its siblings)."""
    groups: dict[int | None, set[int]] = {}
    for sid, symbol in ranking.symbols.items():
        groups.setdefault(symbol.parent_id, set()).add(sid)
    return {sid: groups[symbol.parent_id] - {sid} for sid, symbol in ranking.symbols.items()}


def explain(repo: str | Path | Repository, text: str, handle: str, update_index: bool = True) -> Explanation:
    """The full breakdown of one symbol's score for a task."""
    opened = open_repo(repo, update_index)
    targets = resolve_symbol(opened, handle)
    ranking = rank_task(opened.store, opened.root, text, recency_lookup(opened))
    target = _best_placed(targets, ranking)
    return _explanation(ranking, target, text)


def _best_placed(targets: list[Symbol], ranking: TaskRanking) -> Symbol:
    ranks = {s.symbol_id: i for i, s in enumerate(ranking.scored)}
    return min(targets, key=lambda s: (ranks.get(s.id, len(ranks)), s.id))


def _explanation(ranking: TaskRanking, target: Symbol, text: str) -> Explanation:
    sid = target.id
    scored = next(((i, s) for i, s in enumerate(ranking.scored, start=1) if s.symbol_id == sid), None)
    walk_order = sorted(ranking.walk.scores, key=lambda n: (-ranking.walk.scores[n], n))
    walk_rank = walk_order.index(sid) + 1 if sid in ranking.walk.scores else None
    seed = ranking.seeds.get(sid)
    notes = list(ranking.notes)
    if scored is None:
        notes.append("not a candidate: no channel matched it and it is not among the top nodes of the walk "
                     f"({'reached at ' + str(ranking.walk.hops[sid]) + ' hops' if sid in ranking.walk.hops else 'not reached'})")
    components = scored[1].components if scored else {}
    contributions = tuple(
        Contribution(name, components.get(name, 0.0), weight, round(components.get(name, 0.0) * weight, 4))
        for name, weight in WEIGHTS.items()
    )
    recency = ranking.recency.get(sid)
    return Explanation(
        symbol=target,
        task=text,
        rank=scored[0] if scored else None,
        candidates=len(ranking.scored),
        score=round(scored[1].score, 4) if scored else 0.0,
        contributions=contributions,
        channel_hits=tuple((h.channel, h.rank, h.detail) for h in seed.hits) if seed else (),
        seed_score=round(seed.score, 6) if seed else 0.0,
        walk_score=round(ranking.walk.scores.get(sid, 0.0), 6),
        walk_rank=walk_rank,
        authority=round(ranking.walk.authority.get(sid, 0.0), 4),
        hub=round(ranking.walk.hub.get(sid, 0.0), 4),
        hops=ranking.walk.hops.get(sid),
        multipliers=dict(scored[1].multipliers) if scored else {},
        recency=(f"{recency.sha[:10]} ({recency.source}) by {recency.author}: {recency.subject}"
                 if recency else "no commit information"),
        notes=tuple(notes),
    )


def recency_lookup(repo: Repository) -> RecencyLookup:
    """How this repository's symbols get their commit recency (neutral without git history)."""
    return git_recency(repo.root)
