"""The engine's public entry points: orchestration only, the algorithms live in ``retrieve/``.

Each pipeline opens the repository, brings its index up to date (incremental, usually a no-op),
runs its steps and returns a :class:`ContextPack` (or an :class:`Explanation`) that every front end
renders the same way.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from mnemo_core.change.context import analyse, file_symbols_as_changed
from mnemo_core.change.coverage import CoverageSource
from mnemo_core.change.diffmap import ChangedSymbol, FileSummary, changed_symbols
from mnemo_core.errors import MnemoError
from mnemo_core.lookup import resolve_symbol
from mnemo_core.model import ContextPack, Contribution, Explanation, Impact, ScoredSymbol, Symbol
from mnemo_core.repository import Repository
from mnemo_core.retrieve.pack import Piece, pack
from mnemo_core.retrieve.reasons import task_reasons
from mnemo_core.retrieve.recency import RecencyLookup, git_recency
from mnemo_core.retrieve.score import WEIGHTS
from mnemo_core.retrieve.snippets import SourceCache, header, token_costs
from mnemo_core.retrieve.task import TaskRanking, rank_task
from mnemo_core.vcs.diff import changed_files
from mnemo_core.vcs.git import head_commit, require_toplevel
from mnemo_core.vcs.refs import Snapshot, default_base_name, merge_base, resolve_ref

DEFAULT_BUDGET = 8000
DEFAULT_DEPTH = 3  # callers of callers of callers: beyond that, impact is speculation
DEFAULT_FILES_DEPTH = 2
PACK_POOL = 200  # packing considers this many of the best candidates
SNAPSHOT_WORDS = {Snapshot.STAGED: "staged", Snapshot.WORKTREE: "working tree"}  # how a range names its head


def open_repo(repo: str | Path | Repository, update: bool = True) -> Repository:
    """A Repository from a path or an open one, with its index brought up to date."""
    opened = repo if isinstance(repo, Repository) else Repository.open(repo)
    if update:
        opened.refresh()
    return opened


def check_budget(budget: int) -> None:
    """A budget must leave room for at least one symbol header."""
    if budget <= 0:
        raise MnemoError(f"the token budget must be a positive number (got {budget})")


def for_task(
    repo: str | Path | Repository,
    text: str,
    budget: int = DEFAULT_BUDGET,
    limit: int | None = None,
    update_index: bool = True,
) -> ContextPack:
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
    pool = ranking.scored[: limit or PACK_POOL]
    ranked = [
        ScoredSymbol(
            symbol=ranking.symbols[s.symbol_id],
            score=round(s.score, 4),
            components=s.components,
            reasons=tuple(task_reasons(ranking, s.symbol_id)),
            distance=ranking.walk.hops.get(s.symbol_id, 0),
        )
        for s in pool
    ]
    return fit_budget(repo, ranked, budget, _neighbours(ranking))


def fit_budget(
    repo: Repository, ranked: list[ScoredSymbol], budget: int, neighbours: dict[int, set[int]] | None = None
) -> list[ScoredSymbol]:
    """The ranked symbols that fit ``budget`` tokens (whole, or as headers), in their ranked order."""
    source = SourceCache(repo.root)
    members = repo.store.children_of(s.symbol.id for s in ranked if s.symbol.id > 0)
    texts: dict[int, str] = {}
    pieces = []
    for s in ranked:
        head, full, texts[s.symbol.id] = token_costs(s.symbol, source, members.get(s.symbol.id, ()))
        if s.symbol.id < 0:  # no longer in the index (deleted): only its header can be shown
            full, texts[s.symbol.id] = head, header(s.symbol)
        pieces.append(Piece(s.symbol.id, s.score, s.symbol.path, head, full))
    chosen = {c.symbol_id: c for c in pack(pieces, budget, neighbours or {})}
    return [
        replace(
            s,
            tokens=chosen[s.symbol.id].tokens,
            body=texts[s.symbol.id] if chosen[s.symbol.id].full else None,
        )
        for s in ranked
        if s.symbol.id in chosen
    ]


def _neighbours(ranking: TaskRanking) -> dict[int, set[int]]:
    """Same-parent symbols count as neighbours for packing (a method next to its siblings)."""
    groups: dict[int | None, set[int]] = {}
    for sid, symbol in ranking.symbols.items():
        groups.setdefault(symbol.parent_id, set()).add(sid)
    return {sid: groups[symbol.parent_id] - {sid} for sid, symbol in ranking.symbols.items()}


def for_pr(
    repo: str | Path | Repository,
    base: str | None = None,
    head: str | None = None,
    staged: bool = False,
    worktree: bool = False,
    depth: int = DEFAULT_DEPTH,
    budget: int = DEFAULT_BUDGET,
    update_index: bool = True,
    coverage: CoverageSource | None = None,
) -> ContextPack:
    """The blast radius of a change: ``base..head`` (default: the merge-base with the default
    branch, to HEAD), the staged change, or the working tree against HEAD. With ``coverage``, the
    tests of the changed symbols it measured are those that ran them."""
    started = time.perf_counter()
    check_budget(budget)
    _check_depth(depth)
    if staged and worktree:
        raise MnemoError("choose one of --staged and --worktree")
    if (staged or worktree) and head:
        raise MnemoError("--head compares commits; it cannot be combined with --staged or --worktree")
    opened = open_repo(repo, update_index)
    root = require_toplevel(opened.root)
    target: str | Snapshot = (
        Snapshot.STAGED if staged else Snapshot.WORKTREE if worktree else (head or "HEAD")
    )
    base_sha = _base_of(root, base, target)
    changes = changed_files(root, base_sha, target)
    described = _describe_range(base_sha, target)
    notes = []
    if isinstance(target, str) and resolve_ref(root, target) != head_commit(root):
        notes.append(f"callers and tests come from the index of the working tree, not of {target}")
    changed, files = changed_symbols(root, changes, base_sha or "HEAD", target)
    if not changes:
        notes.append(f"no changes in {described}")
    return _change_pack(
        opened, "pr", described, changed, files, depth, budget, base_sha, started, notes, coverage
    )


def for_files(
    repo: str | Path | Repository,
    paths: list[str],
    depth: int = DEFAULT_FILES_DEPTH,
    budget: int = DEFAULT_BUDGET,
    update_index: bool = True,
    coverage: CoverageSource | None = None,
) -> ContextPack:
    """The context of some files: their symbols, their callers and the tests that reach them (those
    that ran them, for the symbols ``coverage`` measured)."""
    started = time.perf_counter()
    check_budget(budget)
    _check_depth(depth)
    opened = open_repo(repo, update_index)
    relative = [opened.relpath(p) for p in paths]
    missing = [p for p, rel in zip(paths, relative, strict=True) if not (opened.root / rel).is_file()]
    if missing:
        raise MnemoError(f"no such file: {', '.join(missing)}")
    changed, files = file_symbols_as_changed(opened.store, relative)
    base = head_commit(opened.root)
    return _change_pack(
        opened, "files", " ".join(relative), changed, files, depth, budget, base, started, [], coverage
    )


def _change_pack(
    repo: Repository,
    mode: str,
    query: str,
    changed: list[ChangedSymbol],
    files: list[FileSummary],
    depth: int,
    budget: int,
    base: str | None,
    started: float,
    notes: list[str],
    coverage: CoverageSource | None = None,
) -> ContextPack:
    analysis = analyse(repo.store, repo.root, changed, files, depth, base, coverage)
    symbols = fit_budget(repo, analysis.ranked, budget)
    impact = analysis.impact
    return ContextPack(
        mode=mode,  # type: ignore[arg-type]
        query=query,
        repo=str(repo.root),
        commit=head_commit(repo.root),
        budget_tokens=budget,
        used_tokens=sum(s.tokens for s in symbols),
        symbols=tuple(symbols),
        impact=impact,
        stats=impact_stats(repo, impact, started),
        notes=(*notes, *analysis.notes),
    )


def _check_depth(depth: int) -> None:
    if depth < 1:
        raise MnemoError(f"the depth must be at least 1 (got {depth})")


def _base_of(root: Path, base: str | None, target: str | Snapshot) -> str | None:
    """The base commit: the merge-base of ``base`` (default: the default branch) and the head."""
    if isinstance(target, Snapshot):
        return resolve_ref(root, base) if base else head_commit(root)
    if base is None:
        return merge_base(root, default_base_name(root), target)
    return merge_base(root, base, target)


def _describe_range(base: str | None, target: str | Snapshot) -> str:
    head = target if isinstance(target, str) else SNAPSHOT_WORDS[target]
    return f"{base[:10] if base else 'empty tree'}..{head}"


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
        hops = ranking.walk.hops.get(sid)
        reached = f"reached at {hops} hops" if hops is not None else "not reached"
        notes.append(
            "not a candidate: no channel matched it and it is not among the top nodes of the walk"
            f" ({reached})"
        )
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
        recency=(
            f"{recency.sha[:10]} ({recency.source}) by {recency.author}: {recency.subject}"
            if recency
            else "no commit information"
        ),
        notes=tuple(notes),
    )


def recency_lookup(repo: Repository) -> RecencyLookup:
    """How this repository's symbols get their commit recency (neutral without git history)."""
    return git_recency(repo.root, repo.store)


def impact_stats(repo: Repository, impact: Impact, started: float) -> dict[str, int]:
    """The ``stats`` of a change's answer: time taken, counts of what it reached, index size."""
    return {
        "elapsed_ms": round((time.perf_counter() - started) * 1000),
        "changed": len(impact.changed),
        "callers": len(impact.callers),
        "tests": len(impact.tests),
        "possible_callers": len(impact.possible_callers),
        "possible_tests": len(impact.possible_tests),
        "index_files": repo.store.totals()[0],
    }
