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
from bench.quality.metrics import METRICS, mean_metrics, relative_gain

RANKER_LABELS = {"full": "full", "bm25": "bm25"}
MIN_GAIN = 0.15  # the full pipeline must beat BM25 alone by 15% (relative) ...
GAIN_METRICS = ("R@10", "MRR")  # ... on these metrics, on every repository
MAX_MEDIAN_MS = 300.0  # median query time of the full pipeline (warm process, index up to date)
TIME_LABELS = {  # both query times of the full pipeline are checked against MAX_MEDIAN_MS
    "ms": "first query after a checkout",  # per-commit caches (file history, blame) cold
    "again_ms": "repeated query",  # the same query again: every cache warm
}
TIMES = tuple(TIME_LABELS)
DUMP_TEXT_CHARS = 400
Record = Mapping[str, Any]


@dataclass(frozen=True)
class Floor:
    """One checked requirement."""

    repo: str
    what: str
    value: str
    ok: bool


def summarize(records: Sequence[Record]) -> dict[str, dict[str, float]]:
    """Mean metrics and median query times of each ranker over the tasks."""
    answered = [r for r in records if r["error"] is None]
    return {ranker: {
        **mean_metrics([r[ranker]["metrics"] for r in records]),
        **{f"median_{t}": median(r[ranker][t] for r in answered) for t in TIMES},
    } for ranker in RANKER_LABELS}


def floors(repo: str, summary: Mapping[str, Mapping[str, float]]) -> list[Floor]:
    """The benchmark's floors for one repository."""
    checks = []
    for metric in GAIN_METRICS:
        gain = relative_gain(summary["full"][metric], summary["bm25"][metric])
        shown = "n/a (baseline 0)" if gain is None else f"{gain:+.0%}"
        ok = summary["full"][metric] > 0 if gain is None else gain >= MIN_GAIN
        checks.append(Floor(repo, f"{metric} gain over bm25 >= {MIN_GAIN:.0%}", shown, ok))
    for timing, label in TIME_LABELS.items():
        ms = summary["full"].get(f"median_{timing}", 0.0)
        what = f"median {label} <= {MAX_MEDIAN_MS:.0f} ms"
        checks.append(Floor(repo, what, f"{ms:.0f} ms", ms <= MAX_MEDIAN_MS))
    return checks


# -- tables -------------------------------------------------------------------------------------
HEADERS = ("repo", "tasks", "ranker", *METRICS, "median ms", "again ms")
LABEL_COLUMNS = 3  # left-aligned; the metric columns are right-aligned


def summary_rows(repo: str, tasks: int, summary: Mapping[str, Mapping[str, float]],
                 previous: Mapping[str, float] | None = None) -> list[list[str]]:
    """Rows for one repository: full, bm25, the relative gain of full over bm25 and, given the full
    pipeline's summary of a previous run on the same tasks, the absolute change since then."""
    rows = [[repo if ranker == "full" else "", str(tasks) if ranker == "full" else "", label,
             *(f"{summary[ranker][m]:.3f}" for m in METRICS),
             *(f"{summary[ranker].get('median_' + t, 0.0):.0f}" for t in TIMES)]
            for ranker, label in RANKER_LABELS.items()]
    gains = [relative_gain(summary["full"][m], summary["bm25"][m]) for m in METRICS]
    rows.append(["", "", "gain", *("n/a" if g is None else f"{g:+.0%}" for g in gains), *([""] * len(TIMES))])
    if previous is not None:
        deltas = [summary["full"][m] - previous.get(m, 0.0) for m in METRICS]
        ms = [summary["full"].get(f"median_{t}", 0.0) - previous.get(f"median_{t}", 0.0) for t in TIMES]
        rows.append(["", "", "vs last", *(f"{d:+.3f}" for d in deltas), *(f"{d:+.0f}" for d in ms)])
    return rows


def text_table(rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the first three columns left-aligned, numbers right-aligned."""
    widths = [max(len(HEADERS[i]), *(len(r[i]) for r in rows)) for i in range(len(HEADERS))]

    def line(cells: Sequence[str]) -> str:
        padded = (c.ljust(w) if i < LABEL_COLUMNS else c.rjust(w)
                  for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
        return "  ".join(padded).rstrip()

    return "\n".join([line(HEADERS), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """The same table in Markdown."""
    rule = ["---"] * LABEL_COLUMNS + ["---:"] * (len(HEADERS) - LABEL_COLUMNS)
    head = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join(rule) + "|"]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in rows])


def floor_lines(checks: Sequence[Floor]) -> list[str]:
    """``PASS  pytest  R@10 gain over bm25 >= 15%: +32%`` lines."""
    return [f"{'PASS' if c.ok else 'FAIL'}  {c.repo:<10} {c.what}: {c.value}" for c in checks]


# -- the failure dump -----------------------------------------------------------------------------
def worst(records: Sequence[tuple[str, Record]], count: int) -> list[tuple[str, Record]]:
    """The tasks the full pipeline did worst on: lowest MRR, then lowest R@10; among equals, those
    where BM25 alone did best come first (the most instructive: the pipeline lost what it had)."""
    def key(item: tuple[str, Record]) -> tuple[float, float, float]:
        full, bm25 = item[1]["full"]["metrics"], item[1]["bm25"]["metrics"]
        return full["MRR"], full["R@10"], -bm25["MRR"]
    return sorted(records, key=key)[:count]


def dump(records: Sequence[tuple[str, Record]], count: int) -> str:
    """The worst tasks with their ground truth (rank in each ranking) and both top-10 lists."""
    blocks = []
    for n, (repo, r) in enumerate(worst(records, count), start=1):
        truth = set(r["ground_truth"])
        text = textwrap.shorten(r["text"].replace("\n", " "), DUMP_TEXT_CHARS)
        lines = [f"#{n} {repo} {r['id'][:10]}  full MRR {r['full']['metrics']['MRR']:.3f} "
                 f"R@10 {r['full']['metrics']['R@10']:.2f} | bm25 MRR {r['bm25']['metrics']['MRR']:.3f} "
                 f"R@10 {r['bm25']['metrics']['R@10']:.2f}", f"  task: {text}"]
        if r["error"]:
            lines.append(f"  error: {r['error']}")
        if r["unindexed"]:
            lines.append(f"  not in the index: {', '.join(r['unindexed'])}")
        lines.append("  ground truth (rank in full / bm25; - = not returned at all):")
        lines += [f"    {key}  {_rank(r['full']['ranks'][key])} / {_rank(r['bm25']['ranks'][key])}"
                  for key in r["ground_truth"]]
        for ranker in RANKER_LABELS:
            lines.append(f"  {ranker} top {len(r[ranker]['top'])}:")
            lines += [f"    {'*' if key in truth else ' '}{i:>2}. {key}"
                      for i, key in enumerate(r[ranker]["top"], start=1)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
