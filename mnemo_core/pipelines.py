"""The engine's pipelines: orchestration only, the algorithms live in ``retrieve/`` and ``change/``.

:class:`mnemo_core.engine.Engine` is their one caller: it checks the arguments, brings the index up
to date once and resolves HEAD once, and hands each pipeline that as a :class:`Call`. A pipeline runs
its steps and returns a :class:`ContextPack` (or an :class:`Explanation`); ``answer`` is the one place
a pack is assembled, so every verb fills ``commit``, ``used_tokens`` and ``stats`` the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from mnemo_core.errors import MnemoError
from mnemo_core.lookup import resolve_symbol
from mnemo_core.model import ContextPack, Contribution, Explanation, Impact, ScoredSymbol, Symbol
from mnemo_core.repository import Repository
from mnemo_core.retrieve.pack import Piece, pack
from mnemo_core.retrieve.reasons import task_reasons
from mnemo_core.retrieve.recall import Recall
from mnemo_core.retrieve.recency import RecencyLookup, git_recency
from mnemo_core.retrieve.score import SEMANTIC_POOL, weights_for
from mnemo_core.retrieve.snippets import SourceCache, header, token_costs
from mnemo_core.retrieve.task import TaskRanking, rank_task
from mnemo_core.vcs.git import Sha, require_toplevel
from mnemo_core.vcs.refs import Snapshot, default_base_name, merge_base, resolve_ref

if TYPE_CHECKING:  # the change pipelines load their modules when they run: a task never needs them
    from pathlib import Path

    from mnemo_core.change.answers import Question
    from mnemo_core.change.context import ChangeAnalysis
    from mnemo_core.change.diffmap import ChangedSymbol, FileSummary
    from mnemo_core.change.measured import CoverageSource
    from mnemo_core.vcs.diff import FileChange

    # a change's files, symbols and (base, new side), for the coverage map's rules
    Widening = tuple[list[FileChange], list[ChangedSymbol], tuple[str, str | Snapshot]]

PACK_POOL = 200  # packing considers this many of the best candidates
SNAPSHOT_WORDS = {Snapshot.STAGED: "staged", Snapshot.WORKTREE: "working tree"}  # how a range names its head


@dataclass(frozen=True, slots=True)
class Call:
    """One engine call: the repository with its index up to date, HEAD resolved once (None before
    the first commit or without git), and when the call started (for ``stats.elapsed_ms``)."""

    repo: Repository
    commit: Sha | None
    started: float


def check_budget(budget: int) -> None:
    """A budget must leave room for at least one symbol header."""
    if budget <= 0:
        raise MnemoError(f"the token budget must be a positive number (got {budget})")


def check_depth(depth: int) -> None:
    """A walk needs at least one hop."""
    if depth < 1:
        raise MnemoError(f"the depth must be at least 1 (got {depth})")


def check_change(head: str | None, staged: bool, worktree: bool) -> None:
    """The selectors of a change must name one change."""
    if staged and worktree:
        raise MnemoError("choose one of --staged and --worktree")
    if (staged or worktree) and head:
        raise MnemoError("--head compares commits; it cannot be combined with --staged or --worktree")


def answer(
    call: Call,
    mode: Literal["task", "files", "pr"],
    query: str,
    budget: int,
    symbols: list[ScoredSymbol],
    counts: Mapping[str, int],
    impact: Impact | None = None,
    notes: tuple[str, ...] = (),
) -> ContextPack:
    """The one place a :class:`ContextPack` is assembled: ``stats`` are the time taken, the
    pipeline's ``counts`` and the size of the index."""
    return ContextPack(
        mode=mode,
        query=query,
        repo=str(call.repo.root),
        commit=call.commit,
        budget_tokens=budget,
        used_tokens=sum(s.tokens for s in symbols),
        symbols=tuple(symbols),
        impact=impact,
        stats={
            "elapsed_ms": round((time.perf_counter() - call.started) * 1000),
            **counts,
            "index_files": call.repo.store.file_count(),
        },
        notes=notes,
    )


def for_task(
    call: Call, text: str, budget: int, limit: int | None, recall: Recall | None = None, offset: int = 0
) -> ContextPack:
    """The symbols to read first for a task in words, ranked and packed into ``budget`` tokens
    (after the ``offset`` best-ranked ones: a page further down); ``recall`` is what the engine
    remembers of the session and of past tasks."""
    ranking = rank_task(call.repo.store, call.repo.root, text, recency_lookup(call.repo), recall=recall)
    symbols = _packed(call.repo, ranking, budget, limit, offset)
    counts = {
        "seeds": len(ranking.seeds),
        "candidates": len(ranking.scored),
        "walk_nodes": ranking.walk.nodes,
        "walk_iterations": ranking.walk.iterations,
    }
    return answer(call, "task", text, budget, symbols, counts, notes=tuple(ranking.notes))


def _packed(
    repo: Repository, ranking: TaskRanking, budget: int, limit: int | None, offset: int
) -> list[ScoredSymbol]:
    pool = ranking.scored[offset : offset + (limit or PACK_POOL)]
    ranked = [
        ScoredSymbol(
            symbol=ranking.symbols[s.symbol_id],
            score=round(s.score, 4),
            components=s.components,
            reasons=tuple(task_reasons(ranking, s.symbol_id)),
            distance=ranking.walk.hops.get(s.symbol_id, 0),
            rank=rank,
        )
        for rank, s in enumerate(pool, start=offset + 1)
    ]
    return fit_budget(repo, ranked, budget, _neighbours(ranking))


def fit_budget(
    repo: Repository,
    ranked: list[ScoredSymbol],
    budget: int,
    neighbours: dict[int, set[int]] | None = None,
    source: SourceCache | None = None,
) -> list[ScoredSymbol]:
    """The ranked symbols that fit ``budget`` tokens (whole, or as headers), in their ranked order;
    their files read through ``source`` (what the caller read already), else anew."""
    source = source or SourceCache(repo.root)
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
    call: Call,
    base: str | None,
    head: str | None,
    staged: bool,
    worktree: bool,
    depth: int,
    budget: int,
    coverage: CoverageSource | None = None,
) -> ContextPack:
    """The blast radius of a change: ``base..head`` (default: the merge-base with the default
    branch, to HEAD), the staged change, or the working tree against HEAD. With ``coverage``, the
    tests of the changed symbols it measured are those that ran them."""
    root = require_toplevel(call.repo.root)
    target: str | Snapshot = (
        Snapshot.STAGED if staged else Snapshot.WORKTREE if worktree else (head or "HEAD")
    )
    base_sha, head_sha = _commits_of(call, base, target)
    question = _question(call, base_sha, head_sha, staged, depth, budget) if coverage is None else None
    kept = _recalled(call, question)
    if kept is not None:
        return kept
    from mnemo_core.change.diffmap import changed_symbols  # not needed for a kept answer
    from mnemo_core.vcs.diff import changed_files, skipped_note

    generation = call.repo.store.generation()
    new = head_sha or target
    changes = changed_files(root, base_sha, new)
    described = _describe_range(base_sha, target)
    notes = []
    if head_sha is not None and head_sha != call.commit:
        notes.append(f"callers and tests come from the index of the working tree, not of {_shown(target)}")
    changed, files = changed_symbols(root, changes, base_sha or "HEAD", new, call.repo.store)
    skipped = skipped_note(changes)
    if skipped:
        notes.append(skipped)
    if not changes:
        notes.append(f"no changes in {described}{_uncommitted(root, target, head)}")
    widening = (changes, changed, (base_sha or "HEAD", new)) if coverage and coverage.is_map else None
    pack, analysis = _analysed_answer(
        call, "pr", described, changed, files, depth, budget, base_sha, notes, coverage, widening
    )
    # "no changes" may speak of the working tree: never kept; nor an answer whose staged content
    # moved while it was computed
    if (
        question is not None
        and changes
        and question == _question(call, base_sha, head_sha, staged, depth, budget)
    ):
        from mnemo_core.change.answers import Kept, keep

        keep(call.repo.store, question, generation, Kept(pack, analysis.made, analysis.dated))
    return pack


def _question(
    call: Call, base: Sha | None, head: Sha | None, staged: bool, depth: int, budget: int
) -> Question | None:
    """What a change's answer depends on besides the index (``change.answers``), or None when it
    is not kept: the working tree's change, or a staged one whose git index file cannot be read."""
    from mnemo_core.change.answers import Question, staged_digest

    digest = staged_digest(call.repo.root) if staged else None
    if head is None and digest is None:
        return None
    return Question(str(call.repo.root), call.commit, base, head, digest, depth, budget)


def _recalled(call: Call, question: Question | None) -> ContextPack | None:
    """The kept answer to ``question``, its time this call's, or None."""
    if question is None:
        return None
    from mnemo_core.change.answers import answered, recall

    pack = recall(call.repo.store, question)
    return None if pack is None else answered(pack, call.started)


def _uncommitted(root: Path, target: str | Snapshot, head: str | None) -> str:
    """What to say after "no changes" when the working tree holds uncommitted changes that a range
    ending at HEAD leaves out (the user likely meant them)."""
    from mnemo_core.vcs.diff import changed_files

    if isinstance(target, Snapshot) or head is not None:
        return ""
    pending = changed_files(root, None, Snapshot.WORKTREE)
    if not pending:
        return ""
    files = "1 file" if len(pending) == 1 else f"{len(pending)} files"
    return f"; the working tree has uncommitted changes to {files}: --worktree (or --staged) takes them"


def for_files(
    call: Call, paths: list[str], depth: int, budget: int, coverage: CoverageSource | None = None
) -> ContextPack:
    """The context of some files: their symbols, their callers and the tests that reach them (those
    that ran them, for the symbols ``coverage`` measured)."""
    from mnemo_core.change.context import file_symbols_as_changed

    repo = call.repo
    relative = [repo.relpath(p) for p in paths]
    missing = [p for p, rel in zip(paths, relative, strict=True) if not (repo.root / rel).is_file()]
    if missing:
        raise MnemoError(f"no such file: {', '.join(missing)}")
    changed, files = file_symbols_as_changed(repo.store, relative)
    query = " ".join(relative)
    pack, _ = _analysed_answer(
        call, "files", query, changed, files, depth, budget, call.commit, None, coverage
    )
    return pack


def for_symbol(call: Call, symbol: Symbol, depth: int, budget: int) -> ContextPack:
    """The blast radius of one symbol, as a ``files`` answer: the symbol (as the selected code), its
    transitive callers within ``depth`` hops and the tests that reach it."""
    from mnemo_core.change.diffmap import ChangedSymbol, FileSummary

    selected = ChangedSymbol(
        symbol.path,
        symbol.name,
        symbol.kind,
        "selected",
        symbol.start_line,
        symbol.end_line,
        symbol.signature,
        symbol.exported,
        symbol.is_test,
        symbol.is_test_case,
    )
    summary = FileSummary(symbol.path, "selected", None, symbol.language, 1)
    pack, _ = _analysed_answer(call, "files", symbol.key, [selected], [summary], depth, budget, call.commit)
    return pack


def _analysed_answer(
    call: Call,
    mode: Literal["files", "pr"],
    query: str,
    changed: list[ChangedSymbol],
    files: list[FileSummary],
    depth: int,
    budget: int,
    base: str | None,
    notes: list[str] | None = None,
    coverage: CoverageSource | None = None,
    widening: Widening | None = None,
) -> tuple[ContextPack, ChangeAnalysis]:
    from mnemo_core.change.context import analyse
    from mnemo_core.change.sources import generation_sources

    analysis = analyse(call.repo.store, call.repo.root, changed, files, depth, base, coverage)
    if widening is not None and coverage is not None:  # the map's rules (``covmap.select``)
        from mnemo_core.covmap.select import widen

        changes, _, sides = widening
        analysis = widen(call.repo.store, call.repo.root, analysis, (changes, changed), coverage, sides)
    # the analysis read most of these files: their lines are those of this generation's sources
    symbols = fit_budget(call.repo, analysis.ranked, budget, source=generation_sources(call.repo.store))
    impact = analysis.impact
    notes_all = (*(notes or ()), *analysis.notes)  # the range's, then where the tests came from
    return answer(call, mode, query, budget, symbols, impact_counts(impact), impact, notes_all), analysis


def impact_counts(impact: Impact) -> dict[str, int]:
    """How much a change reached, for the ``stats`` of its answer."""
    return {
        "changed": len(impact.changed),
        "callers": len(impact.callers),
        "tests": len(impact.tests),
        "possible_callers": len(impact.possible_callers),
        "possible_tests": len(impact.possible_tests),
    }


def selected_tests(impact: Impact | None, sure_only: bool = False) -> tuple[ScoredSymbol, ...]:
    """The tests to run for a change: those it surely reaches, then (unless ``sure_only``) those
    reached only through a name guess. A missed test costs more than an extra one, so a selection
    keeps the guesses; the counts and verdicts never do."""
    if impact is None:
        return ()
    return impact.tests if sure_only else (*impact.tests, *impact.possible_tests)


def _commits_of(call: Call, base: str | None, target: str | Snapshot) -> tuple[Sha | None, Sha | None]:
    """The base and head commits of a change, each resolved once. The base is the merge-base of
    ``base`` (default: the default branch) and the head; for a snapshot (no head commit), ``base``
    itself, else HEAD (None before the first commit)."""
    root = call.repo.root
    if isinstance(target, Snapshot):
        return (resolve_ref(root, base) if base else call.commit), None
    base_sha = resolve_ref(root, base or default_base_name(root))
    head_sha = call.commit if target == "HEAD" and call.commit is not None else resolve_ref(root, target)
    return merge_base(root, base_sha, head_sha), head_sha


_FULL_SHA = re.compile(r"[0-9a-f]{40}")


def _describe_range(base: str | None, target: str | Snapshot) -> str:
    return f"{base[:10] if base else 'empty tree'}..{_shown(target)}"


def _shown(target: str | Snapshot) -> str:
    """A change's new side as the user reads it: a snapshot's words, a commit given by its full hash
    (a range's head) as short as a base, any other ref as written."""
    if isinstance(target, Snapshot):
        return SNAPSHOT_WORDS[target]
    return target[:10] if _FULL_SHA.fullmatch(target) else target


def explain(call: Call, text: str, handle: str, recall: Recall | None = None) -> Explanation:
    """The full breakdown of one symbol's score for a task."""
    targets = resolve_symbol(call.repo, handle)
    ranking = rank_task(
        call.repo.store, call.repo.root, text, recency_lookup(call.repo), full_walk=True, recall=recall
    )
    return _explanation(ranking, _best_placed(targets, ranking), text)


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
    if scored is None and sid in ranking.folded_into:
        answer = ranking.symbols[ranking.folded_into[sid]]
        notes.append(f"folded into {answer.name} (line {answer.start_line}): one answer per definition")
    elif scored is None:
        hops = ranking.walk.hops.get(sid)
        reached = f"reached at {hops} hops" if hops is not None else "not reached"
        notes.append(
            "not a candidate: no channel matched it and the seeds pass it too little weight in the graph"
            f" ({reached})"
        )
    components = scored[1].components if scored else {}
    contributions = tuple(
        Contribution(name, components.get(name, 0.0), weight, round(components.get(name, 0.0) * weight, 4))
        for name, weight in weights_for(target.language).items()
    )
    notes += _memory_notes(ranking, sid)
    notes.append(_meaning_note(ranking, sid))
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


def _memory_notes(ranking: TaskRanking, sid: int) -> list[str]:
    """What the session and the task memory said of a symbol, in words."""
    notes = []
    if sid in ranking.session:
        notes.append(f"session: {ranking.session[sid].reason}")
    if sid in ranking.recall.recalled:
        notes.append(f"memory: {ranking.recall.recalled[sid]}")
    if sid in ranking.recall.demoted:
        factor, why = ranking.recall.demoted[sid]
        notes.append(f"memory: {why} (x {factor:.2f})")
    return notes


def _meaning_note(ranking: TaskRanking, sid: int) -> str:
    """The semantic channel's state, and what it said of this symbol."""
    meaning = ranking.meaning
    place = meaning.rank_of(sid)
    if place is None:
        if meaning.state != "ready":
            return meaning.note
        return f"{meaning.note}; not this one (only the best {SEMANTIC_POOL} product candidates are)"
    return (
        f"{meaning.note}; similar in meaning to the task: cosine {meaning.similarity[sid]:.3f},"
        f" {place} of {len(meaning.similarity)}"
    )


def recency_lookup(repo: Repository) -> RecencyLookup:
    """How this repository's symbols get their commit recency (neutral without git history)."""
    return git_recency(repo.root, repo.store)
