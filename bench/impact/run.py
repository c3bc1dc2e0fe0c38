"""Impact benchmark: mnemo's impacted tests for one-line edits against a coverage oracle, with baselines.

For each repository: build (or reuse) the dynamic oracle (``oracle.py``), sample ``--count``
functions of the package's non-test code that at least one test executes (seeded, so every run
draws the same ones), and for each of them insert a harmless ``pass`` inside the body
(``edits.py``), ask mnemo which tests the working-tree change reaches
(``Engine.pr(worktree=True)``, exactly what ``mnemo tests --worktree`` prints), and put the
file back. The working tree mode is used instead of scratch commits: the diff, the incremental
re-index of the edited file and the graph walk are the same, without a commit per function.

mnemo's tests and the baselines' (``baselines.py``) are compared with the oracle's tests of that
function at the level of test functions (``path::Class::test``; parametrised variants are one
test). Tests that did not run in the oracle's suite (skipped, deselected, or in files it does not
collect, like ``examples/``) are not judged: a prediction of one counts neither way. Precision,
recall and F1 are reported micro and macro over functions (``metrics.py``); the floors (recall
>= 0.70, F1 >= 0.50 on each repository) are checked on the macro values, every change weighing
the same; micro values are shown beside them.

Output: a table per repository with PASS/FAIL per floor, ``bench/out/impact-<repo>.json`` with
every sampled function (oracle tests, mnemo's tests with their reasons, the baselines' tests and
the scores), and with ``--markdown`` the tables for ``bench/RESULTS.md``.

``--coverage-back N`` measures mnemo with coverage evidence instead: the suite's coverage data of the
commit ``N`` commits before the pinned one (``stale.py``) is passed to ``Engine.pr`` as a team's CI
would pass the last measured data of its default branch, and the floors become the issue's for
that mode (recall >= 0.95 and precision >= 0.85, macro). Results go to
``impact-<repo>-coverage<N>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import REPO_DIR, machine_info, machine_line, markdown_table, table, verdict, write_json
from bench.impact.baselines import mention_baseline, naming_baseline, test_function_sources
from bench.impact.edits import insert_statement
from bench.impact.metrics import Score, Summary, score, summarise
from bench.impact.oracle import PHASES, RAN, build, function_tests, ran_tests
from bench.impact.repos import (
    ImpactRepo,
    argument_parser,
    clone_of,
    git,
    lookup,
)
from bench.impact.stale import stale_coverage
from mnemo_core.engine import Engine
from mnemo_core.model import ScoredSymbol
from mnemo_core.pipelines import selected_tests

DEFAULT_COUNT = 150
DEFAULT_SEED = 0
DEFAULT_DEPTH = 3  # mnemo's own default for ``mnemo pr`` and ``mnemo tests``
FLOOR_RECALL = 0.70  # issue 4, on the tuning repositories
FLOOR_F1 = 0.50
FLOOR_HELD_OUT_RECALL = 0.60  # issue 14, on held-out repositories
FLOOR_HELD_OUT_F1 = 0.45
FLOOR_COVERAGE_RECALL = 0.95  # issue 14: with coverage taken 30+ commits before the measured commit
FLOOR_COVERAGE_PRECISION = 0.85
METHODS = ("mnemo", "naming", "all", "mention")


# -- sampling -----------------------------------------------------------------------------
def sample_functions(
    functions: Sequence[Mapping[str, Any]], count: int, seed: int
) -> list[Mapping[str, Any]]:
    """``count`` functions drawn with ``seed`` from those given, in a stable order (path, line). Each
    function's draw depends on its own name and the seed only, so a function that one run's coverage
    misses (a flaky test) changes the sample by itself, not the whole sample."""

    def draw(f: Mapping[str, Any]) -> str:
        return hashlib.sha256(f"{seed}:{f['path']}:{f['name']}".encode()).hexdigest()

    chosen = sorted(functions, key=draw)[:count]
    return sorted(chosen, key=lambda f: (f["path"], f["line"]))


def candidates(oracle: Mapping[str, Any], clone: Path) -> list[Mapping[str, Any]]:
    """Functions that a test that ran executes, and that the edit can be applied to."""
    ran = set(ran_tests(oracle))
    texts: dict[str, str] = {}
    found = []
    for f, tests in function_tests(oracle):
        if not tests & ran:
            continue
        text = texts.setdefault(f["path"], (clone / f["path"]).read_text(encoding="utf-8"))
        if insert_statement(text, f["line"]) is not None:
            found.append(f)
    return found


# -- asking mnemo -----------------------------------------------------------------------------
def as_keys(s: ScoredSymbol) -> tuple[str, ...]:
    """A mnemo test as the benchmark's test keys: ``path::Class::test``; a test file by the ids of the
    tests it made at run time that the coverage data names (``path::TestPlugin_table``), else by its
    path (its tests made at run time, found without coverage data)."""
    if s.symbol.kind == "module":
        return s.runs or (s.symbol.path,)
    return ("::".join([s.symbol.path, *s.symbol.name.split(".")]),)


def expand_files(keys: set[str], statuses: Mapping[str, str]) -> set[str]:
    """Test keys with each selected file (a key without ``::``) replaced by the tests pytest runs in
    it: every oracle test of that file."""
    files = {k for k in keys if "::" not in k}
    return (keys - files) | {t for t in statuses if t.split("::", 1)[0] in files}


@dataclass(frozen=True)
class Answer:
    """mnemo's answer for one edited function."""

    tests: dict[str, dict[str, Any]]  # test key -> {hops, reason}
    changed: list[str]
    seconds: float
    measured: bool = False  # the edited function's tests came from coverage data


def ask_mnemo(
    engine: Engine,
    clone: Path,
    function: Mapping[str, Any],
    depth: int,
    coverage: Path | None = None,
    coverage_commit: str | None = None,
) -> Answer:
    """Edit the function in the working tree, ask for the impacted tests (with ``coverage`` data
    taken at ``coverage_commit``, if given), restore the file."""
    path = clone / function["path"]
    original = path.read_bytes()
    edit = insert_statement(original.decode("utf-8"), function["line"])
    assert edit is not None, function  # candidates() only keeps editable functions
    path.write_bytes(edit.after.encode("utf-8"))
    try:
        started = time.perf_counter()
        pack = engine.pr(worktree=True, depth=depth, coverage=coverage, coverage_commit=coverage_commit)
        seconds = time.perf_counter() - started
    finally:
        path.write_bytes(original)
    impact = pack.impact
    tests = {
        key: {
            "hops": t.distance,
            "score": t.score,
            "reason": t.reasons[0] if t.reasons else "",
            "source": t.evidence.source if t.evidence else "static",
        }
        for t in selected_tests(impact)  # what `mnemo tests` selects: sure, then possible
        for key in as_keys(t)
    }
    changed = [f"{c.symbol.path}:{c.symbol.name}" for c in (impact.changed if impact else ())]
    measured = any("coverage data of" in r for c in (impact.changed if impact else ()) for r in c.reasons)
    return Answer(tests, changed, seconds, measured)


# -- one repository -------------------------------------------------------------------------------
@dataclass
class RepoResult:
    """Everything measured on one repository."""

    repo: ImpactRepo
    oracle_line: str
    candidates: int
    records: list[dict[str, Any]]
    summaries: dict[str, Summary]
    query_seconds: list[float]
    index_seconds: float
    coverage_line: str = ""  # with --coverage-back: the data used and how many functions it measured


def judgeable(test: str, statuses: Mapping[str, str]) -> bool:
    """Whether the oracle can judge a predicted test: one that ran, or an unknown name in a file the
    suite collected (pytest would have found it: not a test). Skipped and deselected tests, and tests
    in files the suite does not collect (``examples/``), are not judged either way."""
    if test in statuses:
        return statuses[test] == RAN
    return test.split("::", 1)[0] in {k.split("::", 1)[0] for k in statuses}


def evaluate_function(
    f: Mapping[str, Any],
    truth: set[str],
    answer: Answer,
    ran: set[str],
    statuses: Mapping[str, str],
    sources: Mapping[str, str],
) -> dict[str, Any]:
    """One sampled function: every method's tests and scores against the oracle's."""
    selected = expand_files(set(answer.tests), statuses)
    judged = {k for k in selected if judgeable(k, statuses)}
    predictions = {
        "mnemo": judged,
        "naming": naming_baseline(f["path"], ran),
        "all": ran,
        "mention": mention_baseline(f["name"], {k: v for k, v in sources.items() if k in ran}),
    }
    scores = {m: score(p, truth) for m, p in predictions.items()}
    return {
        "path": f["path"],
        "name": f["name"],
        "line": f["line"],
        "oracle": sorted(truth),
        "mnemo": {k: answer.tests[k] for k in sorted(answer.tests)},
        "mnemo_unjudged": sorted(selected - judged),
        "mnemo_changed": answer.changed,
        "mnemo_measured": answer.measured,
        "mnemo_seconds": round(answer.seconds, 3),
        "naming": sorted(predictions["naming"]),
        "mention": sorted(predictions["mention"]),
        "scores": {
            m: {
                "tp": s.tp,
                "fp": s.fp,
                "fn": s.fn,
                "precision": round(s.precision, 4),
                "recall": round(s.recall, 4),
                "f1": round(s.f1, 4),
            }
            for m, s in scores.items()
        },
    }


def run_repo(
    repo: ImpactRepo,
    workdir: Path,
    count: int,
    seed: int,
    depth: int,
    phases: frozenset[str],
    refresh: bool,
    coverage_back: int | None = None,
) -> RepoResult:
    """Oracle, sample, edits, mnemo and baselines on one repository."""
    from bench.impact.oracle import describe

    oracle = build(repo, workdir, phases, refresh)
    data, sha = stale_coverage(repo, workdir, coverage_back) if coverage_back is not None else (None, None)
    clone = clone_of(repo, workdir)
    started = time.perf_counter()
    opened = Engine.open(clone)
    # A full rebuild: an engine change that keeps the schema (new edges, new resolution steps) does
    # not invalidate an existing index, and the run must measure the engine installed now.
    opened.index(full=True)
    index_seconds = time.perf_counter() - started
    ran = set(ran_tests(oracle))
    statuses = {k: t["status"] for k, t in zip(oracle["test_names"], oracle["tests"], strict=True)}
    sources: dict[str, str] = {}
    for path in sorted({k.split("::", 1)[0] for k in statuses}):
        if (clone / path).is_file():
            sources.update(test_function_sources(path, (clone / path).read_text(encoding="utf-8")))
    pool = candidates(oracle, clone)
    chosen = sample_functions(pool, count, seed)
    truth_of = {(f["path"], f["line"]): tests & ran for f, tests in function_tests(oracle)}
    records, seconds = [], []
    for i, f in enumerate(chosen, start=1):
        answer = ask_mnemo(opened, clone, f, depth, data, sha)
        seconds.append(answer.seconds)
        records.append(evaluate_function(f, truth_of[(f["path"], f["line"])], answer, ran, statuses, sources))
        if i % 25 == 0:
            print(f"[{repo.name}] {i}/{len(chosen)} functions", flush=True)
    if git(clone, "status", "--porcelain", "--untracked-files=no").strip():
        raise SystemExit(f"{clone} was left modified; check it and rerun")
    opened.index()  # the restored files, so the index matches the clean tree again
    summaries = {
        m: summarise([Score(**{k: r["scores"][m][k] for k in ("tp", "fp", "fn")}) for r in records])
        for m in METHODS
    }
    coverage_line = ""
    if sha is not None:
        measured = sum(r["mnemo_measured"] for r in records)
        coverage_line = (
            f"coverage data of {sha[:10]} ({coverage_back} commits before): "
            f"{measured} of {len(records)} edited functions measured there, the rest from the static graph"
        )
    return RepoResult(
        repo, describe(oracle), len(pool), records, summaries, seconds, index_seconds, coverage_line
    )


# -- report ---------------------------------------------------------------------------------
HEADERS = ("method", "R macro", "P macro", "F1 macro", "R micro", "P micro", "F1 micro", "tests/fn")


def rows(result: RepoResult) -> list[list[object]]:
    """One row per method."""
    return [
        [
            m,
            s.macro_recall,
            s.macro_precision,
            s.macro_f1,
            s.micro_recall,
            s.micro_precision,
            s.micro_f1,
            round(s.predicted_mean, 1),
        ]
        for m, s in result.summaries.items()
    ]


def floors(result: RepoResult) -> list[tuple[str, bool]]:
    """The floors of the issue, checked on mnemo's macro values (micro shown for information)."""
    s = result.summaries["mnemo"]
    if result.coverage_line:
        return [
            (
                f"recall >= {FLOOR_COVERAGE_RECALL} (macro {s.macro_recall:.3f}; micro {s.micro_recall:.3f})",
                s.macro_recall >= FLOOR_COVERAGE_RECALL,
            ),
            (
                f"precision >= {FLOOR_COVERAGE_PRECISION} (macro {s.macro_precision:.3f}; "
                f"micro {s.micro_precision:.3f})",
                s.macro_precision >= FLOOR_COVERAGE_PRECISION,
            ),
        ]
    held_out = result.repo.held_out
    recall, f1 = (FLOOR_HELD_OUT_RECALL, FLOOR_HELD_OUT_F1) if held_out else (FLOOR_RECALL, FLOOR_F1)
    return [
        (
            f"recall >= {recall} (macro {s.macro_recall:.3f}; micro {s.micro_recall:.3f})",
            s.macro_recall >= recall,
        ),
        (f"F1 >= {f1} (macro {s.macro_f1:.3f}; micro {s.micro_f1:.3f})", s.macro_f1 >= f1),
    ]


def report(result: RepoResult, markdown: bool) -> str:
    """The table and the floor lines of one repository."""
    n = len(result.records)
    oracle_sizes = [len(r["oracle"]) for r in result.records]
    lines = [
        f"== {result.repo.name} ({result.repo.source}){' (held out)' if result.repo.held_out else ''} ==",
        result.oracle_line,
        *([result.coverage_line] if result.coverage_line else []),
        f"{n} functions sampled from {result.candidates} candidates; oracle tests per function: median "
        f"{statistics.median(oracle_sizes):.0f}, mean {statistics.mean(oracle_sizes):.1f}",
        (markdown_table if markdown else table)(HEADERS, rows(result)),
        *(f"{verdict(ok)}  {what}" for what, ok in floors(result)),
        f"mnemo per query (worktree edit, incremental re-index, walk): median "
        f"{statistics.median(result.query_seconds):.3f} s, max {max(result.query_seconds):.3f} s; "
        f"full index before the run {result.index_seconds:.1f} s",
    ]
    return "\n".join(lines)


def engine_info() -> dict[str, Any]:
    """Which engine a run measures: where ``mnemo_core`` was imported from and, when that is this
    checkout, whether it had uncommitted edits (taken at the start: the checkout may move on)."""
    import mnemo_core

    where = Path(mnemo_core.__file__).resolve().parent
    dirty = None
    if where.parent == REPO_DIR:
        done = subprocess.run(
            ["git", "-C", str(REPO_DIR), "status", "--porcelain", "--", "mnemo_core"],
            capture_output=True,
            text=True,
            check=False,
        )
        dirty = bool(done.stdout.strip())
    return {"mnemo_core": str(where), "uncommitted_edits": dirty}


def to_json(result: RepoResult, args: argparse.Namespace) -> dict[str, Any]:
    """The JSON record of one repository's run."""
    return {
        "repo": result.repo.name,
        "source": result.repo.source,
        "commit": result.repo.commit,
        "machine": args.machine,
        "engine": args.engine,
        "count": args.count,
        "seed": args.seed,
        "depth": args.depth,
        "phases": sorted(args.phase_set),
        "oracle": result.oracle_line,
        "coverage": result.coverage_line,
        "candidates": result.candidates,
        "summary": {m: vars(s) for m, s in result.summaries.items()},
        "floors": [{"floor": what, "pass": ok} for what, ok in floors(result)],
        "query_seconds_median": statistics.median(result.query_seconds),
        "functions": result.records,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on the chosen repositories and print the tables."""
    parser = argument_parser(__doc__, "clones, venvs and coverage files")
    parser.add_argument(
        "--count", type=int, default=DEFAULT_COUNT, help=f"functions per repository (default {DEFAULT_COUNT})"
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"sampling seed (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--depth", type=int, default=DEFAULT_DEPTH, help=f"mnemo's caller depth (default {DEFAULT_DEPTH})"
    )
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="test phases whose lines count in the oracle (default: setup,run,teardown)",
    )
    parser.add_argument("--refresh-oracle", action="store_true", help="rerun the suites under coverage")
    parser.add_argument(
        "--coverage-back",
        type=int,
        default=None,
        metavar="N",
        help="give mnemo the coverage data of the commit N commits before the pinned one (0: a second "
        "run of the pinned commit; default: none)",
    )
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables (for RESULTS.md)")
    parser.add_argument(
        "--label",
        default="",
        help="suffix of the JSON files (impact-<repo>-<label>.json), "
        "for experiments that must not replace the reference results",
    )
    args = parser.parse_args(argv)
    args.phase_set = frozenset(p for p in args.phases.split(",") if p)
    args.machine, args.engine = machine_info(), engine_info()
    print(machine_line(args.machine))
    print(
        f"engine: {args.engine['mnemo_core']}"
        + (" (with uncommitted edits)" if args.engine["uncommitted_edits"] else "")
    )
    failed = False
    for name in args.repos.split(","):
        result = run_repo(
            lookup(name),
            args.workdir,
            args.count,
            args.seed,
            args.depth,
            args.phase_set,
            args.refresh_oracle,
            args.coverage_back,
        )
        back = args.coverage_back
        label = args.label or (f"coverage{back}" if back is not None else "")
        path = write_json(f"impact-{name}" + (f"-{label}" if label else ""), to_json(result, args))
        print(report(result, args.markdown))
        print(f"details: {path}\n")
        failed |= not all(ok for _, ok in floors(result))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
