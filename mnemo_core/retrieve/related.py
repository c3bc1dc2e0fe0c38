"""EXPERIMENT (issue #12 follow-up, not kept): evidence from a candidate's relations.

A commit that changes a function the task names often changes its direct callers, callees or
classmates too, and functions that changed together before. Each component is, per candidate, the
best lexical strength (fused seed score scaled to 1) among related symbols, ``s'(v) = s(v) + a *
max_{u in N(v)} s(u)`` with ``a`` the component's weight, or a co-change vote. Every weight is 0:
these components only record values for ``bench.quality.learn collect`` (see bench/RESULTS.md,
2026-11-24 evening).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.history import commit_targets
from mnemo_core.retrieve.seeds import Seed

TOP_SEEDS = 10  # "nb_top": only neighbours among the task's best seeds count
RESOLVED_MIN_CONFIDENCE = 0.6  # below: a bare name guess, not a resolved edge
FOCUSED_COMMIT = 5  # "cochange_focus": only commits that changed at most this many functions
COCHANGE = {"cochange": (5, 40), "cochange10": (10, 80)}  # anchors (best seeds), commits per file

Values = dict[int, float]
Neighbours = dict[int, set[int]]


def related_components(
    store: Store,
    root: Path,
    candidates: Sequence[int],
    seeds: Mapping[int, Seed],
    symbols: Mapping[int, Symbol],
) -> tuple[dict[str, Values], dict[str, Neighbours]]:
    """Per component name, each candidate's value (absent: 0); and the neighbour sets by relation."""
    top = max((s.score for s in seeds.values()), default=0.0) or 1.0
    lexical = {sid: s.score / top for sid, s in seeds.items()}
    body = {
        sid: max((h.strength for h in s.hits if h.channel == "body"), default=0.0) for sid, s in seeds.items()
    }
    order = sorted(seeds, key=lambda sid: (-seeds[sid].score, sid))
    best, best3 = set(order[:TOP_SEEDS]), set(order[:3])
    calls = _call_neighbours(store, candidates, resolved=True)
    loose = _call_neighbours(store, candidates, resolved=False)
    mates = _classmates(candidates, symbols)
    outside = {u for v in calls.values() for u in v} - set(symbols)
    known = {**symbols, **store.symbols_by_ids(outside)}
    tests = {sid: {u for u in others if u in known and known[u].is_test} for sid, others in calls.items()}
    out = {
        "nb_lex": _best_of(calls, lexical),
        "nb_body": _best_of(calls, body),
        "nb_top": _best_of(calls, {s: lexical[s] for s in best}),
        "nb_top3": _best_of(calls, {s: lexical[s] for s in best3}),
        "nb_any": _best_of(loose, lexical),
        "nb_test": _best_of(tests, lexical),
        "nb_code": _best_of({sid: others - tests[sid] for sid, others in calls.items()}, lexical),
        "nb_sum": _sum_of(calls, lexical),
        "mate_lex": _best_of(mates, lexical),
        "mate_top": _best_of(mates, {s: lexical[s] for s in best}),
        "parent_lex": {
            sid: lexical[p]
            for sid in candidates
            if (p := symbols[sid].parent_id) is not None and p in lexical
        },
    }
    for name, (anchors, per_file) in COCHANGE.items():
        out.update(_cochange(store, root, candidates, order, symbols, lexical, anchors, per_file, name))
    return out, {"calls": calls, "mates": mates}


def _call_neighbours(store: Store, candidates: Sequence[int], resolved: bool) -> Neighbours:
    wanted = set(candidates)
    out: Neighbours = defaultdict(set)
    for direction in ("in", "out"):
        for e in store.edges_touching(candidates, direction):
            if e.type != "calls" or e.src == e.dst:
                continue
            if resolved and (e.resolution == "name" or e.confidence < RESOLVED_MIN_CONFIDENCE):
                continue
            if e.src in wanted:
                out[e.src].add(e.dst)
            if e.dst in wanted:
                out[e.dst].add(e.src)
    return out


def _classmates(candidates: Sequence[int], symbols: Mapping[int, Symbol]) -> Neighbours:
    by_parent: Neighbours = defaultdict(set)
    for sid in candidates:
        parent = symbols[sid].parent_id
        if parent is not None and symbols[sid].kind == "method":
            by_parent[parent].add(sid)
    return {
        sid: by_parent[parent] - {sid}
        for sid in candidates
        if (parent := symbols[sid].parent_id) is not None and parent in by_parent
    }


def _best_of(related: Mapping[int, set[int]], strength: Mapping[int, float]) -> Values:
    best = {sid: max((strength.get(u, 0.0) for u in others), default=0.0) for sid, others in related.items()}
    return {sid: v for sid, v in best.items() if v > 0}


def _sum_of(related: Mapping[int, set[int]], strength: Mapping[int, float]) -> Values:
    sums = {sid: sum(strength.get(u, 0.0) for u in others) for sid, others in related.items()}
    top = max(sums.values(), default=0.0) or 1.0
    return {sid: v / top for sid, v in sums.items() if v > 0}


def _cochange(
    store: Store,
    root: Path,
    candidates: Sequence[int],
    order: Sequence[int],
    symbols: Mapping[int, Symbol],
    lexical: Mapping[int, float],
    anchors_n: int,
    per_file: int,
    name: str,
) -> dict[str, Values]:
    """Votes of the past commits that changed one of the best ``anchors_n`` seeds (the newest
    ``per_file`` commits of each anchor's file) for every other function they changed: the best
    other anchor's lexical strength over the functions the commit changed."""
    functions = [sid for sid in order if sid in symbols and symbols[sid].kind in ("function", "method")]
    wanted = {(symbols[sid].path, symbols[sid].name.rsplit(".", 1)[-1]): sid for sid in functions[:anchors_n]}
    if not wanted:
        return {}
    targets = commit_targets(root, store, store.commits_touching({p for p, _ in wanted}, per_file))
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    for sid in candidates:
        by_key[(symbols[sid].path, symbols[sid].name.rsplit(".", 1)[-1])].append(sid)
    votes: Values = defaultdict(float)
    raw: Values = defaultdict(float)
    seen: Values = defaultdict(float)
    focused: Values = defaultdict(float)
    for changed in targets.values():
        anchors = {wanted[t] for t in changed if t in wanted}
        for sid in (sid for t in changed for sid in by_key.get(t, ())):
            seen[sid] += 1.0
            others = anchors - {sid}
            if not others:
                continue
            weight = max(lexical.get(a, 0.0) for a in others) / max(1, len(changed) - 1)
            votes[sid] += weight
            raw[sid] += 1.0
            if len(changed) <= FOCUSED_COMMIT:
                focused[sid] += weight
    out = {name: _scaled(votes)}
    if name == "cochange":
        out |= {
            "cochange_raw": _scaled(raw),
            "cochange_conf": {sid: raw[sid] / (seen[sid] + 1.0) for sid in raw},
            "cochange_focus": _scaled(focused),
        }
    return out


def _scaled(values: Mapping[int, float]) -> Values:
    top = max(values.values(), default=0.0) or 1.0
    return {sid: v / top for sid, v in values.items()}


def score_neighbours(
    scored: Sequence[tuple[int, float]], neighbours: Mapping[str, Neighbours]
) -> dict[str, Values]:
    """``nb_score`` / ``mate_score``: each candidate's best call neighbour's / classmate's composite
    score (weights as they are), scaled to the best score."""
    total = dict(scored)
    top = max(total.values(), default=0.0) or 1.0
    return {
        name: {
            sid: round(max((total.get(u, 0.0) for u in neighbours[kind].get(sid, ())), default=0.0) / top, 4)
            for sid in total
        }
        for kind, name in (("calls", "nb_score"), ("mates", "mate_score"))
    }
