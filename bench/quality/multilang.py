"""``python -m bench.quality.multilang``: mnemo against a ctags BM25 on Go, Rust, Java and JS/TS tasks.

Per repository (tasks: :mod:`bench.quality.multilang_tasks`), oldest task first: check out the
parent, ``mnemo index`` (untimed), then the whole process ``mnemo task --no-memory --format json``
(this checkout's code on ``PYTHONPATH``; budget and limit high enough that the list is the ranking's
first ``LIMIT`` symbols) and, in process, the BM25 baseline over ctags definitions
(:mod:`bench.quality.ctags_index`; files re-tagged only when their blob changed). Both lists keep
functions, methods and types, and are scored by :mod:`bench.quality.metrics` (R@10, MRR, ...).

The tuning repositories may be read task by task (``--dump N``); the held-out ones print their
aggregate rows only, and their per-task records are not written. The floor: macro over the
held-out repositories, mnemo at least ``MIN_MACRO_RATIO`` times the baseline on R@10 and MRR.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import median
from bench.quality import ctags_index
from bench.quality.evaluate import checkout, fresh_state
from bench.quality.metrics import mean_metrics, ranks_of, task_metrics
from bench.quality.mining import git
from bench.quality.multilang_tasks import (
    MultiTask,
    Ranked,
    as_keys,
    load,
    mine,
    oldest_first,
    save,
    short_name,
    stored_head,
)
from bench.quality.repos import DEFAULT_MIRRORS, DEFAULT_REF, BenchRepo, working_clone
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import index_repo
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.fold import fold
from mnemo_core.retrieve.score import Scored
from mnemo_core.retrieve.task import rank_task
from mnemo_core.semantic.channel import VectorUse

CHECKOUT = Path(__file__).resolve().parents[2]  # the mnemo checkout whose code is measured
OUT_DIR = CHECKOUT / "bench" / "out"
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "mnemo-bench-ml"
DEFAULT_TASKS, DEFAULT_SEED, DEFAULT_WINDOW = 30, 38, 1500
LIMIT = 100  # the depth MRR reads (metrics.RANK_DEPTH)
BUDGET = 10**7  # tokens: never the limit, so the list is the ranking's order
RANKED_KINDS = frozenset({"function", "method", "class", "struct", "interface", "trait", "enum", "type"})
MIN_MACRO_RATIO = 1.10  # issue #38: held-out macro R@10 and MRR at least 1.10x the independent BM25
FLOOR_METRICS = ("R@10", "MRR")
SHOWN = ("R@5", "R@10", "P@10", "MRR", "R@all")
MS_PER_S = 1000.0
TOP = 10  # how much of each ranking a record keeps
RANKERS = ("mnemo", "unfolded", "bm25")  # the product, the product before folding, the baseline


@dataclass(frozen=True)
class LangRepo:
    """A benchmark repository and its language; ``held_out`` ones are never tuned on."""

    name: str
    source: str
    language: str
    held_out: bool = False


REPOS = {
    r.name: r
    for r in (
        LangRepo("gin", "gin-gonic/gin", "go"),
        LangRepo("ripgrep", "BurntSushi/ripgrep", "rust"),
        LangRepo("gson", "google/gson", "java"),
        LangRepo("axios", "axios/axios", "javascript"),
        # Held out: aggregates only, never tuned on.
        LangRepo("cobra", "spf13/cobra", "go", held_out=True),
        LangRepo("fd", "sharkdp/fd", "rust", held_out=True),
        LangRepo("javapoet", "square/javapoet", "java", held_out=True),
        LangRepo("ky", "sindresorhus/ky", "typescript", held_out=True),
    )
}
GROUPS = {
    "tuning": tuple(n for n, r in REPOS.items() if not r.held_out),
    "heldout": tuple(n for n, r in REPOS.items() if r.held_out),
    "all": tuple(REPOS),
}


def expand(spec: str) -> list[LangRepo]:
    """Comma-separated names and groups (``tuning``, ``heldout``, ``all``)."""
    names = [
        name for part in spec.split(",") if part.strip() for name in GROUPS.get(part.strip(), (part.strip(),))
    ]
    unknown = [n for n in names if n not in REPOS]
    if unknown:
        raise SystemExit(f"unknown repositories {', '.join(unknown)}: use {', '.join([*GROUPS, *REPOS])}")
    return [REPOS[n] for n in names]


# -- rankers ----------------------------------------------------------------------------------
def mnemo(args: Sequence[str], root: Path) -> subprocess.CompletedProcess[str]:
    """``mnemo ARGS`` in ``root`` with this checkout's code first on the path."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    command = [sys.executable, "-m", "mnemo_core.cli", *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)


def mnemo_ranking(root: Path, text: str) -> tuple[list[Ranked], float]:
    """mnemo's task ranking (functions, methods, types) and the whole process's wall time in ms."""
    started = time.perf_counter()
    done = mnemo(
        ["task", "--no-memory", "--format", "json", "--budget", str(BUDGET), "--limit", str(LIMIT), text],
        root,
    )
    elapsed = (time.perf_counter() - started) * MS_PER_S
    if done.returncode != 0:
        return [], elapsed
    symbols = json.loads(done.stdout)["symbols"]
    ranked = [
        Ranked(s["path"], short_name(s["name"]), s["start_line"], s["end_line"])
        for s in symbols
        if s["kind"] in RANKED_KINDS
    ]
    return ranked, elapsed


class TagCorpus:
    """The ctags documents of a working tree, re-tagging only files whose blob changed."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[str, list[ctags_index.Tag], list[str]]] = {}

    def update(self, root: Path) -> None:
        """Re-tag the source files whose blob id differs from the last call's."""
        blobs = {}
        for line in git(root, "ls-files", "-s", "-z").split("\0"):
            if line:
                meta, path = line.split("\t", 1)
                if ctags_index.is_source_path(path):
                    blobs[path] = meta.split()[1]
        stale = {
            p: ctags_index.read_lines(root / p) for p, b in blobs.items() if self._files.get(p, ("",))[0] != b
        }
        tags = ctags_index.run_ctags(root, stale)
        kept = {p: v for p, v in self._files.items() if p in blobs and p not in stale}
        for path, lines in stale.items():
            kept[path] = (blobs[path], [t for t in tags if t.path == path], lines)
        self._files = kept

    def rank(self, text: str) -> list[Ranked]:
        """BM25 over every tag's span, best first."""
        tags = {f"{t.key}@{t.line}": t for _, found, _ in self._files.values() for t in found}
        sources = {p: lines for p, (_, _, lines) in self._files.items()}
        ids = ctags_index.rank(ctags_index.documents(tags.values(), sources), text)[:LIMIT]
        return [Ranked(tags[i].path, tags[i].name, tags[i].line, tags[i].end) for i in ids]


# -- running ----------------------------------------------------------------------------------
def in_process(
    repo: Repository, text: str, cache: Path | None = None, vectors: VectorUse = "off"
) -> dict[str, tuple[list[Ranked], float]]:
    """mnemo's ranking in process, unfolded and folded (one ``rank_task``; by default vectors off, as
    a default install ranks; ``"encode"``: with the semantic channel, its missing vectors encoded),
    with the milliseconds each took. ``cache``: where to pickle the unfolded ranking (its candidates'
    components, symbols and keywords) for :mod:`bench.quality.multilang_learn`."""
    started = time.perf_counter()
    try:
        ranking = rank_task(repo.store, repo.root, text, recency_lookup(repo), vectors=vectors, folded=False)
    except MnemoError:
        return {name: ([], 0.0) for name in RANKERS if name != "bm25"}
    if cache is not None:
        cache.write_bytes(pickle.dumps((ranking.scored, ranking.symbols, ranking.keywords)))
    middle = time.perf_counter()
    scored = fold(ranking.scored, ranking.symbols, ranking.keywords).scored
    ended = time.perf_counter()

    def listed(order: Sequence[Scored]) -> list[Ranked]:
        chosen = [ranking.symbols[s.symbol_id] for s in order]
        return [
            Ranked(s.path, s.short_name, s.start_line, s.end_line) for s in chosen if s.kind in RANKED_KINDS
        ]

    return {
        "unfolded": (listed(ranking.scored)[:LIMIT], (middle - started) * MS_PER_S),
        "mnemo": (listed(scored)[:LIMIT], (ended - started) * MS_PER_S),
    }


def run_repo(
    repo: LangRepo,
    tasks: Sequence[MultiTask],
    clone: Path,
    cli: bool,
    cache: Path | None = None,
    vectors: VectorUse = "off",
) -> list[dict[str, Any]]:
    """Every task of one repository, oldest first: each ranking's metrics and mnemo's time; with
    ``cache``, a tuning repository's unfolded rankings pickled there, one file per task."""
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    fresh_state(clone)
    corpus = TagCorpus()
    records = []
    opened = Repository.open(clone)
    try:
        for task in oldest_first(tasks):
            checkout(clone, task.parent)
            index_repo(clone)
            corpus.update(clone)
            truth = [t.key for t in task.truth]
            kept = cache / f"{repo.name}-{task.id[:12]}.pickle" if cache and not repo.held_out else None
            lists = in_process(opened, task.text, kept, vectors)
            if cli:
                lists["mnemo"] = mnemo_ranking(clone, task.text)
            lists["bm25"] = (corpus.rank(task.text), 0.0)
            records.append(
                {
                    "id": task.id,
                    "text": task.text,
                    "truth": truth,
                    "ms": lists["mnemo"][1],
                    **{
                        name: _scored(as_keys(found, task.truth), truth) for name, (found, _) in lists.items()
                    },
                }
            )
            print(f"  {repo.name} {len(records)}/{len(tasks)}", file=sys.stderr, flush=True)
    finally:
        opened.close()
    return records


def _scored(keys: list[str], truth: list[str]) -> dict[str, Any]:
    return {"metrics": task_metrics(keys, truth), "ranks": ranks_of(keys, truth), "top": keys[:TOP]}


def tasks_for(repo: LangRepo, clone: Path, count: int, seed: int, window: int) -> list[MultiTask]:
    """The stored tasks, or newly mined ones (written to the task file)."""
    stored = load(repo.name, count, seed, window)
    if stored is not None:
        return stored
    head = git(clone, "rev-parse", "--verify", f"{stored_head(repo.name) or DEFAULT_REF}^{{commit}}").strip()
    tasks = mine(clone, head, count, seed, window)
    save(repo.name, repo.source, head, seed, window, tasks, count)
    return tasks


# -- report -----------------------------------------------------------------------------------
def summary(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean metrics per ranker, and mnemo's median whole-process time."""
    result = {name: mean_metrics([r[name]["metrics"] for r in records]) for name in RANKERS}
    result["mnemo"]["median_ms"] = median(r["ms"] for r in records) if records else 0.0
    return result


def macro(summaries: Sequence[dict[str, dict[str, float]]], ranker: str, metric: str) -> float:
    """The mean over repositories of one ranker's metric."""
    return sum(s[ranker][metric] for s in summaries) / len(summaries) if summaries else 0.0


def table(rows: dict[str, dict[str, dict[str, float]]], repos: dict[str, LangRepo]) -> str:
    """A Markdown table: per repository, each ranker's metrics and mnemo/bm25 on R@10 and MRR;
    then macro rows for the tuning and the held-out groups."""
    head = "| repo | lang | tasks | ranker | " + " | ".join(SHOWN) + " | mnemo ms |\n"
    head += "|---" * (len(SHOWN) + 5) + "|\n"
    lines = []
    groups: dict[str, list[dict[str, dict[str, float]]]] = {"tuning": [], "held-out": []}
    for name, s in rows.items():
        repo = repos[name]
        groups["held-out" if repo.held_out else "tuning"].append(s)
        for ranker in RANKERS:
            ms = f"{s['mnemo']['median_ms']:.0f}" if ranker == "mnemo" else ""
            values = " | ".join(f"{s[ranker][m]:.3f}" for m in SHOWN)
            lines.append(
                f"| {name} | {repo.language} | {int(s['tasks']['n'])} | {ranker} | {values} | {ms} |"
            )
        lines.append(f"| {name} | | | mnemo/bm25 | | {_ratio(s, 'R@10')} | | {_ratio(s, 'MRR')} | | |")
    for group, members in groups.items():
        if members:
            for ranker in RANKERS:
                values = " | ".join(f"{macro(members, ranker, m):.3f}" for m in SHOWN)
                lines.append(f"| **{group} macro** | | {len(members)} repos | {ranker} | {values} | |")
    return head + "\n".join(lines) + "\n"


def _ratio(s: dict[str, dict[str, float]], metric: str) -> str:
    return f"{s['mnemo'][metric] / s['bm25'][metric]:.2f}x" if s["bm25"][metric] else "-"


def floors(rows: dict[str, dict[str, dict[str, float]]], repos: dict[str, LangRepo]) -> list[str]:
    """PASS/FAIL lines of the held-out macro floor."""
    held = [s for name, s in rows.items() if repos[name].held_out]
    if not held:
        return []
    out = []
    for metric in FLOOR_METRICS:
        base = macro(held, "bm25", metric)
        value = macro(held, "mnemo", metric) / base if base else 0.0
        verdict = "PASS" if value >= MIN_MACRO_RATIO else "FAIL"
        out.append(f"{verdict} held-out macro {metric}: mnemo/bm25 = {value:.3f} (floor {MIN_MACRO_RATIO})")
    return out


def dump(repo: LangRepo, records: Sequence[dict[str, Any]], count: int) -> str:
    """The ``count`` tasks mnemo did worst on (tuning repositories only)."""
    worst = sorted(records, key=lambda r: (r["mnemo"]["metrics"]["MRR"], r["mnemo"]["metrics"]["R@10"]))[
        :count
    ]
    out = []
    for r in worst:
        out.append(f"\n## {repo.name} {r['id'][:10]}: {r['text']}\n   truth: {r['truth']}")
        for ranker in RANKERS:
            out.append(f"   {ranker} ranks {r[ranker]['ranks']}")
            out += [f"     {'*' if k in r['truth'] else ' '} {k}" for k in r[ranker]["top"]]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Mine (once), run and report; exit 1 when the held-out floor fails."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.multilang", description=__doc__)
    parser.add_argument("--repos", default="all", help="names or groups: tuning, heldout, all")
    parser.add_argument("--tasks", type=int, default=DEFAULT_TASKS, help="tasks per repository")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW, help="first-parent commits searched")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--cli", action="store_true", help="rank mnemo with the `mnemo task` process")
    parser.add_argument("--only-mine", action="store_true", help="(re)mine the task files and stop")
    parser.add_argument("--cache", type=Path, help="pickle the tuning tasks' rankings here (for learning)")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="rank with the semantic channel (the extra installed; missing vectors encoded)",
    )
    parser.add_argument(
        "--dump", type=int, default=0, help="print the N worst tasks of each tuning repository"
    )
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for repo in expand(args.repos):
        clone = working_clone(BenchRepo(repo.name, repo.source), args.mirrors, args.workdir)
        tasks = tasks_for(repo, clone, args.tasks, args.seed, args.window)
        print(f"{repo.name}: {len(tasks)} tasks", file=sys.stderr, flush=True)
        if args.only_mine:
            continue
        vectors: VectorUse = "encode" if args.semantic else "off"
        records = run_repo(repo, tasks, clone, args.cli, args.cache, vectors)
        rows[repo.name] = {**summary(records), "tasks": {"n": float(len(records))}}
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        kept = [] if repo.held_out else records
        out = {"repo": repo.name, "summary": rows[repo.name], "records": kept}
        (OUT_DIR / f"multilang-{repo.name}.json").write_text(
            json.dumps(out, indent=1) + "\n", encoding="utf-8"
        )
        if args.dump and not repo.held_out:
            print(dump(repo, records, args.dump))
    if not rows:
        return 0
    print(table(rows, REPOS))
    verdicts = floors(rows, REPOS)
    print("\n".join(verdicts))
    return 1 if any(v.startswith("FAIL") for v in verdicts) else 0


if __name__ == "__main__":
    raise SystemExit(main())
