"""Run every task of one repository through mnemo's full task pipeline and the BM25 channel alone.

One working tree per repository. Tasks run oldest first, so each checkout moves the tree forward a
little and the incremental re-index stays small. For each task: check out its parent (``-f``, then
``git clean`` keeping the ignored ``.mnemo/``), bring the index up to date (timed apart, never as
query time), then rank with both rankers, twice. The index is rebuilt from nothing at the first
task of every run: symbol ids (which break ties in the ranking) depend on an index's history, so a
fixed history makes two runs of the same code give the same ranks. Query time is ``time.perf_counter()``
around the ranking call only, in a warm process: the very first query of a repository runs once
untimed. ``ms`` is the first query on each task's tree (what a user waits for after a checkout:
per-commit caches such as the file history are cold); ``again_ms`` is the same query repeated.

Both rankings are restricted to functions, methods and classes (whole lists are kept: ranks past
``RANK_DEPTH`` tell a ranked-too-low miss from a never-a-candidate one). A task whose text has
nothing to search for (``rank_task`` raises ``MnemoError``) is a miss for both.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.quality.metrics import ranks_of, task_metrics
from bench.quality.mining import Task, git
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import index_repo
from mnemo_core.model import CALLABLE_KINDS, CLASS_KINDS, Symbol
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.seeds import fts_channel
from mnemo_core.retrieve.task import rank_task

RANKED_KINDS = CALLABLE_KINDS | CLASS_KINDS  # answers are functions, methods and classes
RANKERS = ("full", "bm25")
TOP_SHOWN = 10  # how much of each ranking the per-task output keeps
MS_PER_S = 1000.0
INDEX_DIR = ".mnemo"
Ranker = Callable[[Repository, str], list[str]]


@dataclass
class Ranked:
    """One ranker's answer to one task."""

    keys: list[str]  # ``path:qualified.name``, best first
    ms: float  # the first query on this tree
    again_ms: float  # the same query once more


@dataclass
class TaskResult:
    """Everything measured for one task."""

    task: Task
    index_ms: float
    results: dict[str, Ranked] = field(default_factory=dict)
    error: str | None = None  # the MnemoError of a task with nothing to search for
    unindexed: list[str] = field(default_factory=list)  # ground truth the index does not know

    def to_json(self) -> dict[str, object]:
        """The per-task record of ``bench/out/quality-<repo>.json``."""
        truth = list(self.task.ground_truth)
        return {
            "id": self.task.id, "parent": self.task.parent, "subject": self.task.subject,
            "text": self.task.text, "ground_truth": truth, "index_ms": round(self.index_ms, 1),
            "error": self.error, "unindexed": self.unindexed,
            **{name: {"ms": round(r.ms, 2), "again_ms": round(r.again_ms, 2),
                      "ranks": ranks_of(r.keys, truth),
                      "metrics": task_metrics(r.keys, truth), "top": r.keys[:TOP_SHOWN]}
               for name, r in self.results.items()},
        }


def full_ranking(repo: Repository, text: str) -> list[str]:
    """mnemo's task pipeline: keywords -> fused seeds -> walk -> composite score."""
    ranking = rank_task(repo.store, repo.root, text, recency_lookup(repo))
    return _keys(ranking.symbols[s.symbol_id] for s in ranking.scored)


def bm25_ranking(repo: Repository, text: str) -> list[str]:
    """The FTS5/BM25 seed channel alone, over the same keywords."""
    ids = [sid for sid, _ in fts_channel(repo.store, extract_keywords(text))]
    symbols = repo.store.symbols_by_ids(ids)
    return _keys(symbols[sid] for sid in ids if sid in symbols)


def _keys(symbols: Iterable[Symbol]) -> list[str]:
    return [s.key for s in symbols if s.kind in RANKED_KINDS]


RANKER_FUNCTIONS: dict[str, Ranker] = {"full": full_ranking, "bm25": bm25_ranking}


def checkout(root: Path, sha: str) -> None:
    """Put the working tree at ``sha`` exactly (untracked files go; the ignored index stays)."""
    git(root, "checkout", "-q", "-f", "--detach", sha)
    git(root, "clean", "-fdq", "-e", INDEX_DIR)


def timed(ranker: Ranker, repo: Repository, text: str) -> Ranked:
    """One ranking, with the wall time in milliseconds of computing it and of computing it again."""
    started = time.perf_counter()
    keys = ranker(repo, text)
    first = time.perf_counter()
    ranker(repo, text)
    return Ranked(keys, (first - started) * MS_PER_S, (time.perf_counter() - first) * MS_PER_S)


def run_task(repo: Repository, task: Task, warm_up: bool) -> TaskResult:
    """Check out, re-index, and rank one task with both rankers."""
    checkout(repo.root, task.parent)
    started = time.perf_counter()
    index_repo(repo.root)
    result = TaskResult(task, (time.perf_counter() - started) * MS_PER_S)
    result.unindexed = _unindexed(repo, task)
    for name, ranker in RANKER_FUNCTIONS.items():
        try:
            if warm_up:
                ranker(repo, task.text)
            result.results[name] = timed(ranker, repo, task.text)
        except MnemoError as error:
            result.error = str(error)
    if result.error is not None:  # nothing to search for: a miss for both, whatever BM25 did
        result.results = {name: Ranked([], 0.0, 0.0) for name in RANKERS}
    return result


def _unindexed(repo: Repository, task: Task) -> list[str]:
    """Ground-truth keys missing from the index: a sign the task file and the extractor disagree."""
    missing = []
    for path in dict.fromkeys(key.split(":", 1)[0] for key in task.ground_truth):
        known = {s.key for s in repo.store.symbols_in_file(path)}
        missing += [k for k in task.ground_truth if k.startswith(path + ":") and k not in known]
    return missing


def evaluate(root: Path, tasks: list[Task], progress: Callable[[int, TaskResult], None]) -> list[TaskResult]:
    """Every task on its parent tree, oldest first; returns results in that order. The rankers are
    warmed up (one untimed query each) before the first timed query."""
    ordered = sorted(tasks, key=lambda t: -t.position)
    shutil.rmtree(root / INDEX_DIR, ignore_errors=True)
    repo = Repository.open(root)
    results: list[TaskResult] = []
    try:
        for i, task in enumerate(ordered):
            warm = any(r.error is None for r in results)
            results.append(run_task(repo, task, warm_up=not warm))
            progress(i, results[-1])
    finally:
        repo.close()
    return results
