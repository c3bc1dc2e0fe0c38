"""The suite against itself: how far a second coverage run of the same commit agrees with the oracle.

A suite whose tests draw random data (hypothesis, random ports, timing) does not execute the same
functions from one run to the next, so no test selection, not even the suite's own coverage taken at
the same commit, can agree with the oracle beyond some ceiling. This script measures that ceiling:
it runs the suite of the pinned commit a second time under coverage with the oracle's plugin (in a
worktree beside the clone, cached like ``stale.py``'s data), folds it onto functions exactly as the
oracle is folded, and scores its tests of each sampled function (``run.py``'s sample, same seed and
count) against the oracle's, judged like mnemo's answers. Only aggregates are printed, so it may be
run on held-out repositories.

Usage: ``python -m bench.impact.noise --repos attrs,mako``.
"""

from __future__ import annotations

from pathlib import Path

from bench.impact.metrics import score, summarise
from bench.impact.oracle import PHASES, RAN, RunFiles, build, fold, function_tests, ran_tests
from bench.impact.repos import argument_parser, clone_of, lookup
from bench.impact.run import DEFAULT_COUNT, DEFAULT_SEED, candidates, judgeable, sample_functions
from bench.impact.stale import stale_coverage


def rerun_agreement(name: str, workdir: Path, count: int, seed: int) -> str:
    """One line: the macro and micro recall and precision of a second run against the oracle."""
    repo = lookup(name)
    oracle = build(repo, workdir)
    clone = clone_of(repo, workdir)
    data, sha = stale_coverage(repo, workdir, 0)  # the pinned commit itself, run once more
    base = data.with_suffix("")
    files = RunFiles(
        base.with_suffix(".coveragerc"), data, base.with_suffix(".tests.json"), base.with_suffix(".log")
    )
    again = fold(repo, workdir / f"{repo.name}-back0", files, frozenset(PHASES))
    rerun_tests = {(f["path"], f["name"], f["line"]): tests for f, tests in function_tests(again)}
    statuses = dict(zip(oracle["test_names"], (t["status"] for t in oracle["tests"]), strict=True))
    ran = set(ran_tests(oracle))
    truth = {(f["path"], f["name"], f["line"]): tests & ran for f, tests in function_tests(oracle)}
    sampled = sample_functions(candidates(oracle, clone), count, seed)
    scores = []
    for f in sampled:
        key = (f["path"], f["name"], f["line"])
        predicted = {t for t in rerun_tests.get(key, set()) if judgeable(t, statuses)}
        scores.append(score(predicted, truth[key]))
    s = summarise(scores)
    rerun_ran = sum(1 for t in again["tests"] if t["status"] == RAN)
    return (
        f"{name} @ {sha[:10]}: a second run ({rerun_ran} tests ran) against the oracle, "
        f"{s.functions} sampled functions: R/P macro {s.macro_recall:.3f} / {s.macro_precision:.3f}, "
        f"micro {s.micro_recall:.3f} / {s.micro_precision:.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the agreement of a second run with the oracle, per repository."""
    parser = argument_parser(__doc__, "clones, venvs and coverage files")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="functions per repository")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="sampling seed")
    args = parser.parse_args(argv)
    for name in args.repos.split(","):
        print(rerun_agreement(name, args.workdir, args.count, args.seed), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
