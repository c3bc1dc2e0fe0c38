"""Summaries, floor checks, tables and the failure dump of the quality benchmark.

Everything here reads the per-task records of ``bench/out/quality-<repo>.json`` (the output of
``TaskResult.to_json``), so a report can be re-printed from a saved run without running it again.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.common import median
from bench.quality.metrics import METRICS, mean_metrics

BASELINE, PIPELINE = "bm25", "full"  # the floors compare mnemo's pipeline with the honest baseline
MIN_RATIO = 1.15  # on every held-out repository, full >= 1.15x bm25 ...
MIN_MACRO_RATIO = 1.25  # ... and >= 1.25x macro-averaged over the held-out repositories ...
RATIO_METRICS = ("R@10", "MRR")  # ... on these metrics
MAX_MEDIAN_MS = 300.0  # median in-process query time of the full pipeline (warm process, index up to date)
TIME_LABELS = {  # both query times of the full pipeline are checked against MAX_MEDIAN_MS
    "ms": "first query after a checkout",  # per-commit caches (file history, blame) cold
    "again_ms": "repeated query",  # the same query again: every cache warm
}
TIMES = tuple(TIME_LABELS)
DUMP_TEXT_CHARS = 400
Record = Mapping[str, Any]
Summary = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Floor:
    """One checked requirement."""

    repo: str
    what: str
    value: str
    ok: bool


def rankers_of(records: Sequence[Record]) -> list[str]:
    """The rankers the records were scored with, in the order they ran."""
    return [k for k, v in records[0].items() if isinstance(v, Mapping) and "metrics" in v] if records else []


def summarize(records: Sequence[Record]) -> dict[str, dict[str, float]]:
    """Mean metrics and median query times of each ranker over the tasks."""
    answered = [r for r in records if r["error"] is None]
    return {
        ranker: {
            **mean_metrics([r[ranker]["metrics"] for r in records]),
            **{f"median_{t}": median(r[ranker][t] for r in answered) for t in TIMES},
        }
        for ranker in rankers_of(records)
    }


def ratio(summary: Summary, metric: str) -> float | None:
    """full / bm25 on ``metric``; None when either ranker is missing or the baseline scored 0."""
    if PIPELINE not in summary or BASELINE not in summary or not summary[BASELINE][metric]:
        return None
    return summary[PIPELINE][metric] / summary[BASELINE][metric]


def ratio_floors(repo: str, summary: Summary) -> list[Floor]:
    """A held-out repository: full reaches ``MIN_RATIO`` times the baseline on each ratio metric."""
    return [_ratio_floor(repo, metric, ratio(summary, metric), MIN_RATIO) for metric in RATIO_METRICS]


def macro_floors(summaries: Sequence[Summary]) -> list[Floor]:
    """Over the held-out repositories: the mean of full over the mean of bm25, per ratio metric."""
    checks = []
    for metric in RATIO_METRICS:
        full = [s[PIPELINE][metric] for s in summaries if PIPELINE in s and BASELINE in s]
        base = [s[BASELINE][metric] for s in summaries if PIPELINE in s and BASELINE in s]
        value = sum(full) / sum(base) if full and sum(base) else None
        checks.append(_ratio_floor("held out", f"{metric} (macro)", value, MIN_MACRO_RATIO))
    return checks


def _ratio_floor(repo: str, metric: str, value: float | None, floor: float) -> Floor:
    shown = "n/a (no full and bm25 rows)" if value is None else f"{value:.2f}x"
    return Floor(repo, f"{metric} full >= {floor:.2f}x bm25", shown, value is not None and value >= floor)


def time_floors(repo: str, summary: Summary) -> list[Floor]:
    """The full pipeline's median in-process query times (a separate check from quality)."""
    checks = []
    for timing, label in TIME_LABELS.items():
        ms = summary.get(PIPELINE, {}).get(f"median_{timing}", 0.0)
        what = f"median {label} <= {MAX_MEDIAN_MS:.0f} ms (in process)"
        checks.append(Floor(repo, what, f"{ms:.0f} ms", ms <= MAX_MEDIAN_MS))
    return checks


# -- tables -------------------------------------------------------------------------------------
HEADERS = ("repo", "tasks", "ranker", *METRICS, "median ms", "again ms")
LABEL_COLUMNS = 3  # left-aligned; the metric columns are right-aligned


def summary_rows(
    repo: str, tasks: int, summary: Summary, previous: Mapping[str, float] | None = None
) -> list[list[str]]:
    """Rows for one group of tasks: one per ranker, the ratio full / bm25 and, given the full
    pipeline's summary of a previous run on the same tasks, the absolute change since then."""
    rows = [
        [
            repo if i == 0 else "",
            str(tasks) if i == 0 else "",
            ranker,
            *(f"{values[m]:.3f}" for m in METRICS),
            *(f"{values.get('median_' + t, 0.0):.0f}" for t in TIMES),
        ]
        for i, (ranker, values) in enumerate(summary.items())
    ]
    if PIPELINE in summary and BASELINE in summary:
        ratios = [ratio(summary, m) for m in METRICS]
        rows.append(
            [
                "",
                "",
                f"{PIPELINE}/{BASELINE}",
                *("n/a" if r is None else f"{r:.2f}x" for r in ratios),
                *([""] * len(TIMES)),
            ]
        )
    if previous is not None and PIPELINE in summary:
        full = summary[PIPELINE]
        deltas = [full[m] - previous.get(m, 0.0) for m in METRICS]
        ms = [full.get(f"median_{t}", 0.0) - previous.get(f"median_{t}", 0.0) for t in TIMES]
        rows.append(["", "", "vs last", *(f"{d:+.3f}" for d in deltas), *(f"{d:+.0f}" for d in ms)])
    return rows


def text_table(rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the first three columns left-aligned, numbers right-aligned."""
    widths = [max(len(HEADERS[i]), *(len(r[i]) for r in rows)) for i in range(len(HEADERS))]

    def line(cells: Sequence[str]) -> str:
        padded = (
            c.ljust(w) if i < LABEL_COLUMNS else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join(padded).rstrip()

    return "\n".join([line(HEADERS), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """The same table in Markdown."""
    rule = ["---"] * LABEL_COLUMNS + ["---:"] * (len(HEADERS) - LABEL_COLUMNS)
    head = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join(rule) + "|"]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in rows])


def floor_lines(checks: Sequence[Floor]) -> list[str]:
    """``PASS  httpx  R@10 full >= 1.15x bm25: 1.32x`` lines."""
    return [f"{'PASS' if c.ok else 'FAIL'}  {c.repo:<10} {c.what}: {c.value}" for c in checks]


# -- the failure dump -----------------------------------------------------------------------------
def worst(records: Sequence[tuple[str, Record]], count: int) -> list[tuple[str, Record]]:
    """The tasks the full pipeline did worst on: lowest MRR, then lowest R@10; among equals, those
    where the baseline did best come first (the most instructive: the pipeline lost what it had)."""

    def key(item: tuple[str, Record]) -> tuple[float, float, float]:
        full = item[1][PIPELINE]["metrics"]
        other = item[1].get(BASELINE, {}).get("metrics", {"MRR": 0.0})
        return full["MRR"], full["R@10"], -other["MRR"]

    return sorted(records, key=key)[:count]


def dump(records: Sequence[tuple[str, Record]], count: int) -> str:
    """The worst tasks with their ground truth (rank in each ranking) and each ranker's top 10."""
    blocks = []
    for n, (repo, r) in enumerate(worst(records, count), start=1):
        truth = set(r["ground_truth"])
        rankers = rankers_of([r])
        text = textwrap.shorten(r["text"].replace("\n", " "), DUMP_TEXT_CHARS)
        scores = " | ".join(
            f"{k} MRR {r[k]['metrics']['MRR']:.3f} R@10 {r[k]['metrics']['R@10']:.2f}" for k in rankers
        )
        lines = [f"#{n} {repo} {r.get('source', 'commit')} {r['id'][:10]}  {scores}", f"  task: {text}"]
        if r["error"]:
            lines.append(f"  error: {r['error']}")
        if r["unindexed"]:
            lines.append(f"  not in the index: {', '.join(r['unindexed'])}")
        lines.append(f"  ground truth (rank in {' / '.join(rankers)}; - = not returned at all):")
        lines += [
            f"    {key}  {' / '.join(_rank(r[k]['ranks'][key]) for k in rankers)}"
            for key in r["ground_truth"]
        ]
        for ranker in rankers:
            lines.append(f"  {ranker} top {len(r[ranker]['top'])}:")
            lines += [
                f"    {'*' if key in truth else ' '}{i:>2}. {key}"
                for i, key in enumerate(r[ranker]["top"], start=1)
            ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
