"""Reasons in words for a symbol's rank in a task answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo_core.retrieve.score import non_product_dir
from mnemo_core.vcs.history import relative_date

if TYPE_CHECKING:
    from mnemo_core.retrieve.task import TaskRanking

HIGH_AUTHORITY = 0.5  # above this, "relied on by the other matches" is worth saying
MAX_CHANNEL_REASONS = 2
CLOSEST_SAID = 5  # the candidates closest in meaning to the task say so


def task_reasons(ranking: TaskRanking, sid: int) -> list[str]:
    """Why ``sid`` ranked where it did, strongest evidence first."""
    reasons: list[str] = []
    seed = ranking.seeds.get(sid)
    if seed:
        reasons += [h.detail for h in sorted(seed.hits, key=lambda h: h.rank)[:MAX_CHANNEL_REASONS]]
    else:
        hops = ranking.walk.hops.get(sid)
        reasons.append(
            f"{hops} hop{'s' if hops != 1 else ''} from the task's matches in the call graph"
            if hops
            else "reached by the walk from the task's matches"
        )
    place = ranking.meaning.rank_of(sid)
    if place is not None and place <= CLOSEST_SAID:
        reasons.append(
            f"similar in meaning to the task: cosine {ranking.meaning.similarity[sid]:.2f},"
            f" {_ordinal(place)} closest of {len(ranking.meaning.similarity)} compared"
        )
    recalled = ranking.recall.recalled.get(sid)
    if recalled and recalled not in reasons:
        reasons.append(recalled)
    if sid in ranking.recall.demoted:
        reasons.append(f"{ranking.recall.demoted[sid][1]}, demoted")
    if sid in ranking.session:
        reasons.append(ranking.session[sid].reason)
    if ranking.walk.authority.get(sid, 0.0) >= HIGH_AUTHORITY:
        reasons.append("relied on by the other matches (high authority)")
    callers = ranking.fan_in.get(sid, 0)
    if callers:
        reasons.append(f"called by {callers} symbol{'s' if callers != 1 else ''}")
    recency = ranking.recency.get(sid)
    if recency and ranking.reference_time is not None:
        when = f"{relative_date(recency.timestamp, ranking.now)} ({recency.sha[:7]})"
        reasons.append(f"in a file changed {when}" if recency.source == "log" else f"last changed {when}")
    symbol = ranking.symbols[sid]
    if symbol.is_test and not ranking.keywords.about_tests:  # mirrors score.multipliers_for
        reasons.append("test code, demoted (the task is not about tests)")
    elif (foreign := ranking.foreign.get(symbol.path)) is not None:
        reasons.append(f"{foreign.said}, demoted (the task does not name its file)")
    elif (directory := non_product_dir(symbol.path, ranking.keywords)) is not None:
        reasons.append(f"in {directory}/, demoted (not product code, and the task does not name it)")
    return reasons


def _ordinal(n: int) -> str:
    return {1: "the", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
