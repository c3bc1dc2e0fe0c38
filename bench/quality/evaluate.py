"""Run every task of one repository through the chosen rankers.

The rankers (``RANKER_FUNCTIONS``, a plain registry: add one by name) take the open
``Repository`` and the task text and return ``path:qualified.name`` keys, best first:

- ``full``: mnemo's task pipeline;
- ``bm25``: the honest baseline (:mod:`bench.quality.baseline`), independent of mnemo;
- ``fts``: mnemo's own FTS5 seed channel alone (an ablation row, never a baseline);
- ``lexical``: mnemo's task pipeline without the semantic channel (what a default install ranks);
- ``candidate`` and ``candidate-lexical``: ``full`` and ``lexical`` under other weights (``--candidate
  FILE``: a refit compared with the product's weights on the same trees, in the same run).

``FUSED_RANKERS`` combine the lists other rankers already returned, without querying again:
``rrf`` is the reciprocal-rank fusion (k = 60) of ``full`` and ``bm25``, a reference point.

One working tree per repository. Tasks run oldest first, so each checkout moves the tree forward a
little and the incremental re-index stays small. For each task: check out its parent (``-f``, then
``git clean`` keeping the ignored ``.mnemo/``), bring the index up to date (timed apart, never as
query time), then rank with every ranker, twice. The index is rebuilt from nothing at the first
task of every run: symbol ids (which break ties in the ranking) depend on an index's history, so a
fixed history makes two runs of the same code give the same ranks. Query time is ``time.perf_counter()``
around the ranking call only, in a warm process: the very first query of a repository runs once
untimed. ``ms`` is the first query on each task's tree (what a user waits for after a checkout:
per-commit caches such as the file history are cold); ``again_ms`` is the same query repeated; a
fused ranker's times are the sums of its parts'.

Every ranking is restricted to functions, methods and classes (whole lists are kept: ranks past
``RANK_DEPTH`` tell a ranked-too-low miss from a never-a-candidate one). A ranker that finds nothing
to search for in the text (``MnemoError``) returns nothing: a miss for that ranker only.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.quality import baseline
from bench.quality.metrics import ranks_of, task_metrics
from bench.quality.mining import Task, git
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import index_repo
from mnemo_core.model import CALLABLE_KINDS, CLASS_KINDS, Symbol
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.score import WEIGHTS
from mnemo_core.retrieve.seeds import fts_channel
from mnemo_core.retrieve.task import rank_task
from mnemo_core.semantic.vectors import VECTORS_DB

RANKED_KINDS = CALLABLE_KINDS | CLASS_KINDS  # answers are functions, methods and classes
RRF_K = 60  # the usual reciprocal-rank fusion constant (Cormack et al.)
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
    error: str | None = None  # the MnemoError of a ranker that found nothing to search for
    unindexed: list[str] = field(default_factory=list)  # ground truth the index does not know
    not_in_baseline: list[str] = field(default_factory=list)  # ground truth with no baseline document

    def to_json(self) -> dict[str, object]:
        """The per-task record of ``bench/out/quality-<repo>.json``."""
        truth = list(self.task.ground_truth)
        return {
            "id": self.task.id,
            "parent": self.task.parent,
            "source": self.task.source,
            "subject": self.task.subject,
            "text": self.task.text,
            "ground_truth": truth,
            "index_ms": round(self.index_ms, 1),
            "error": self.error,
            "unindexed": self.unindexed,
            "not_in_baseline": self.not_in_baseline,
            **{
                name: {
                    "ms": round(r.ms, 2),
                    "again_ms": round(r.again_ms, 2),
                    "ranks": ranks_of(r.keys, truth),
                    "metrics": task_metrics(r.keys, truth),
                    "top": r.keys[:TOP_SHOWN],
                }
                for name, r in self.results.items()
            },
        }


def full_ranking(repo: Repository, text: str) -> list[str]:
    """mnemo's task pipeline: keywords -> fused seeds -> walk -> composite score."""
    ranking = rank_task(repo.store, repo.root, text, recency_lookup(repo))
    return _keys(ranking.symbols[s.symbol_id] for s in ranking.scored)


def lexical_ranking(repo: Repository, text: str) -> list[str]:
    """mnemo's task pipeline without the semantic channel: the ranking of a default install."""
    ranking = rank_task(repo.store, repo.root, text, recency_lookup(repo), vectors="off")
    return _keys(ranking.symbols[s.symbol_id] for s in ranking.scored)


CANDIDATE_WEIGHTS: dict[str, float] = {}  # ``--candidate``: the weights the candidate rankers use


@contextlib.contextmanager
def candidate_weights() -> Iterator[None]:
    """Python's weights (``WEIGHTS``) replaced by ``CANDIDATE_WEIGHTS`` for the block, in place (every
    scorer reads that dict), then restored; other languages' weights stay as they are."""
    saved = dict(WEIGHTS)
    WEIGHTS.update(CANDIDATE_WEIGHTS)
    try:
        yield
    finally:
        WEIGHTS.update(saved)


def candidate_ranking(repo: Repository, text: str) -> list[str]:
    """``full`` under the candidate weights."""
    with candidate_weights():
        return full_ranking(repo, text)


def candidate_lexical_ranking(repo: Repository, text: str) -> list[str]:
    """``lexical`` under the candidate weights."""
    with candidate_weights():
        return lexical_ranking(repo, text)


def encode_vectors(repo: Repository, text: str) -> None:
    """With the semantic channel on, encode the vectors the task's candidates lack, as ``mnemo
    index`` would have for the whole tree (the same texts, so the same values), before the timed
    query; counted in ``index_ms``."""
    if WEIGHTS["semantic"] > 0:
        with contextlib.suppress(MnemoError):
            rank_task(repo.store, repo.root, text, recency_lookup(repo), vectors="encode")


def bm25_ranking(repo: Repository, text: str) -> list[str]:
    """The honest baseline: BM25 over every definition's source, with no part of mnemo."""
    return baseline.rank(_corpus(repo.root), text)


def fts_ranking(repo: Repository, text: str) -> list[str]:
    """mnemo's FTS5/BM25 seed channel alone, over the pipeline's keywords (an ablation)."""
    ids = [sid for sid, _ in fts_channel(repo.store, extract_keywords(text))]
    symbols = repo.store.symbols_by_ids(ids)
    return _keys(symbols[sid] for sid in ids if sid in symbols)


def _keys(symbols: Iterable[Symbol]) -> list[str]:
    return [s.key for s in symbols if s.kind in RANKED_KINDS]


_CORPORA: dict[Path, baseline.Corpus] = {}  # one per working tree: unchanged files are not re-parsed


def _corpus(root: Path) -> list[baseline.Document]:
    return _CORPORA.setdefault(root, baseline.Corpus()).documents(root)


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion: each key scores the sum of 1 / (k + rank) over the rankings it is in
    (its first rank in each); ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for position, key in enumerate(dict.fromkeys(ranking), start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + position)
    return sorted(scores, key=lambda key: -scores[key])


RANKER_FUNCTIONS: dict[str, Ranker] = {
    "full": full_ranking,
    "bm25": bm25_ranking,
    "fts": fts_ranking,
    "lexical": lexical_ranking,
    "candidate": candidate_ranking,
    "candidate-lexical": candidate_lexical_ranking,
}
FUSED_RANKERS: dict[str, tuple[str, ...]] = {"rrf": ("full", "bm25")}  # fused from these rankers' lists
ALL_RANKERS = (*RANKER_FUNCTIONS, *FUSED_RANKERS)
DEFAULT_RANKERS = ("full", "bm25", "fts", "rrf")


def needed(rankers: Sequence[str]) -> list[str]:
    """The queried rankers that ``rankers`` need (a fused one needs its parts), in registry order."""
    wanted = set(rankers).union(*(FUSED_RANKERS.get(r, ()) for r in rankers))
    return [name for name in RANKER_FUNCTIONS if name in wanted]


def checkout(root: Path, sha: str) -> None:
    """Put the working tree at ``sha`` exactly (untracked files go; the ignored index stays)."""
    git(root, "checkout", "-q", "-f", "--detach", sha)
    git(root, "clean", "-fdq", "-e", INDEX_DIR)


def timed(ranker: Ranker, repo: Repository, text: str, once: bool = False) -> Ranked:
    """One ranking, with the wall time in milliseconds of computing it and of computing it again
    (``once``: not again, quality only; its time is then 0)."""
    started = time.perf_counter()
    keys = ranker(repo, text)
    first = time.perf_counter()
    if once:
        return Ranked(keys, (first - started) * MS_PER_S, 0.0)
    ranker(repo, text)
    return Ranked(keys, (first - started) * MS_PER_S, (time.perf_counter() - first) * MS_PER_S)


def run_task(
    repo: Repository, task: Task, rankers: Sequence[str], warm_up: bool, once: bool = False
) -> TaskResult:
    """Check out, re-index, and rank one task with each ranker (fused ones from their parts)."""
    checkout(repo.root, task.parent)
    started = time.perf_counter()
    index_repo(repo.root)
    if {"full", "candidate"} & set(needed(rankers)):
        encode_vectors(repo, task.text)
    result = TaskResult(task, (time.perf_counter() - started) * MS_PER_S)
    result.unindexed = _unindexed(repo, task)
    result.not_in_baseline = _not_in_baseline(repo.root, task)
    for name in needed(rankers):
        ranker = RANKER_FUNCTIONS[name]
        try:
            if warm_up:
                ranker(repo, task.text)
            result.results[name] = timed(ranker, repo, task.text, once)
        except MnemoError as error:  # nothing to search for: a miss for this ranker
            result.error = str(error)
            result.results[name] = Ranked([], 0.0, 0.0)
    for name in (r for r in rankers if r in FUSED_RANKERS):
        parts = [result.results[p] for p in FUSED_RANKERS[name]]
        result.results[name] = Ranked(
            rrf([p.keys for p in parts]), sum(p.ms for p in parts), sum(p.again_ms for p in parts)
        )
    result.results = {name: result.results[name] for name in rankers}
    return result


def _not_in_baseline(root: Path, task: Task) -> list[str]:
    """Ground-truth keys the baseline has no document for (its key rules disagree with the mining)."""
    known = {d.key for d in _corpus(root)}
    return [key for key in task.ground_truth if key not in known]


def _unindexed(repo: Repository, task: Task) -> list[str]:
    """Ground-truth keys missing from the index: a sign the task file and the extractor disagree."""
    missing = []
    for path in dict.fromkeys(key.split(":", 1)[0] for key in task.ground_truth):
        known = {s.key for s in repo.store.symbols_in_file(path)}
        missing += [k for k in task.ground_truth if k.startswith(path + ":") and k not in known]
    return missing


def fresh_state(root: Path) -> None:
    """Delete mnemo's state in a clone but its vectors: an index built from nothing gives the same
    ranks on every run, and a vector depends only on its text (keeping them saves encoding again)."""
    state = root / INDEX_DIR
    for entry in state.iterdir() if state.is_dir() else ():
        if entry.name.startswith(VECTORS_DB):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def evaluate(
    root: Path,
    tasks: list[Task],
    rankers: Sequence[str],
    progress: Callable[[int, TaskResult], None],
    once: bool = False,
) -> list[TaskResult]:
    """Every task on its parent tree, oldest first; returns results in that order. The rankers are
    warmed up (one untimed query each) before the first timed query; ``once``: each ranks a task
    once (no repeated query)."""
    ordered = sorted(tasks, key=lambda t: -t.position)
    fresh_state(root)
    repo = Repository.open(root)
    results: list[TaskResult] = []
    try:
        for i, task in enumerate(ordered):
            warm = any(r.error is None for r in results)
            results.append(run_task(repo, task, rankers, warm_up=not warm, once=once))
            progress(i, results[-1])
    finally:
        repo.close()
    return results
