"""Why mnemo misses tests with old coverage data: every missed (oracle test not returned) pair of a
``run.py --coverage-back N`` result, classified by cause.

The data of the older commit is folded the oracle's way onto that commit's functions (``oracle.fold``
on the ``<repo>-back<N>`` worktree ``stale.py`` made), so for each missed test of an edited function:

- ``function new or moved`` - the data did not measure the edited function (mnemo answered from the
  static graph);
- ``test new, static misses`` / ``test new, co-run dropped`` - the data never saw the test run (added
  or renamed since); the static graph's answer (``--static``, a ``run.py`` result without coverage on
  the same sample) did not name it, or named it and the co-run rule dropped it;
- ``mapping fault`` - the old data says the test ran the function, yet mnemo did not return it;
- ``test changed`` - the test ran then but not this function, and its own text changed since;
- ``code changed`` - the same with the test unchanged: code changed since now reaches the function
  (or the suite is not deterministic: hypothesis draws other examples).

Usage: ``python -m bench.impact.stale_misses --repos click --workdir W [--label L] [--static LABEL]``;
prints a table of the repositories and ``--json`` writes every pair. Tuning repositories only: a
held-out repository's per-function results are never read.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.common import OUT_DIR, table
from bench.impact.oracle import ORACLE_VERSION, PHASES, RAN, RunFiles, fold, test_table
from bench.impact.repos import REPOS, ImpactRepo, argument_parser, git, lookup
from mnemo_core.change.ownlines import own_lines

CAUSES = (
    "function new or moved",
    "test new, static misses",
    "test new, co-run dropped",
    "mapping fault",
    "test changed",
    "code changed",
)


def old_oracle(
    repo: ImpactRepo, workdir: Path, back: int
) -> tuple[str, dict[tuple[str, str], set[str]], set[str]]:
    """The older commit's sha, its functions' tests (by path and name) and the tests that ran (from
    the data ``run.py --coverage-back`` made; the clone is only read: a run may be editing it)."""
    sha = git(workdir / repo.name, "rev-parse", f"{repo.commit}~{back}").strip()
    data = workdir / f"stale-{repo.name}-{sha[:12]}-oracle{ORACLE_VERSION}.coverage"  # stale.py's file
    files = RunFiles(
        data.with_suffix(".coveragerc"), data, data.with_suffix(".tests.json"), data.with_suffix(".log")
    )
    folded = fold(repo, workdir / f"{repo.name}-back{back}", files, frozenset(PHASES))
    names = folded["test_names"]
    tests = {(f["path"], f["name"]): {names[i] for i in f["tests"]} for f in folded["functions"]}
    records = json.loads(files.tests.read_text(encoding="utf-8"))
    _, statuses = test_table(records["tests"], Path(records["rootdir"]))
    return sha, tests, {k for k, t in statuses.items() if t["status"] == RAN}


def test_text(clone: Path, rev: str | None, key: str, cache: dict[tuple[str | None, str], Any]) -> Any:
    """The own lines' text of a test function (key ``path::Class::test``) at ``rev`` (None: the
    working tree); None when its file or name is not there."""
    path, _, rest = key.partition("::")
    name = rest.replace("::", ".")
    if (rev, path) not in cache:
        try:
            content = (
                (clone / path).read_bytes() if rev is None else git(clone, "show", f"{rev}:{path}").encode()
            )
        except (OSError, SystemExit, RuntimeError):
            content = None
        if content is None:
            cache[(rev, path)] = None
        else:
            lines = content.splitlines()
            cache[(rev, path)] = {
                n: [lines[i - 1].strip() for i in sorted(ls) if 0 < i <= len(lines)]
                for n, ls in own_lines(path, content).items()
            }
    texts = cache[(rev, path)]
    return None if texts is None else texts.get(name)


def classify(
    record: Mapping[str, Any],
    static: Mapping[str, Any] | None,
    old_tests: Mapping[tuple[str, str], set[str]],
    old_ran: set[str],
    changed_test: Any,
) -> dict[str, str]:
    """Each missed test of one edited function -> its cause."""
    missed = set(record["oracle"]) - set(record["mnemo"])
    if not record["mnemo_measured"]:
        return dict.fromkeys(missed, CAUSES[0])
    ran_then = old_tests.get((record["path"], record["name"]), set())
    causes = {}
    for t in sorted(missed):
        if t not in old_ran:
            causes[t] = CAUSES[2] if static is not None and t in static["mnemo"] else CAUSES[1]
        elif t in ran_then:
            causes[t] = CAUSES[3]
        else:
            causes[t] = CAUSES[4] if changed_test(t) else CAUSES[5]
    return causes


def misses(
    repo: ImpactRepo,
    workdir: Path,
    back: int,
    result: Mapping[str, Any],
    statics: Mapping[tuple[str, str], Any] | None,
) -> list[dict[str, str]]:
    """Every missed pair of one run's result, with its cause."""
    sha, old_tests, old_ran = old_oracle(repo, workdir, back)
    clone = workdir / repo.name
    cache: dict[tuple[str | None, str], Any] = {}

    def changed_test(key: str) -> bool:
        return bool(test_text(clone, sha, key, cache) != test_text(clone, None, key, cache))

    pairs = []
    for record in result["functions"]:
        static = statics.get((record["path"], record["name"])) if statics is not None else None
        causes = classify(record, static, old_tests, old_ran, changed_test)
        function = f"{record['path']}:{record['name']}"
        pairs += [{"function": function, "test": t, "cause": c} for t, c in causes.items()]
    return pairs


def main(argv: list[str] | None = None) -> int:
    """Classify the misses of the chosen repositories' results and print the counts."""
    tuning = tuple(r.name for r in REPOS.values() if r.quality and not r.held_out)
    parser = argument_parser(__doc__, "clones and coverage files", tuning)
    parser.add_argument("--back", type=int, default=30, help="the run's --coverage-back (default 30)")
    parser.add_argument("--label", default="", help="the run's label (default coverage<back>)")
    parser.add_argument("--static", default="", help="label of a static run of the same sample (optional)")
    parser.add_argument("--json", action="store_true", help="write bench/out/impact-misses-<repo>.json")
    args = parser.parse_args(argv)
    rows = []
    held_out = [name for name in args.repos.split(",") if lookup(name).held_out]
    if held_out:
        raise SystemExit(f"held out: {', '.join(held_out)}; only their aggregates are read (README)")
    for name in args.repos.split(","):
        label = args.label or f"coverage{args.back}"
        result = json.loads((OUT_DIR / f"impact-{name}-{label}.json").read_text(encoding="utf-8"))
        static_path = OUT_DIR / f"impact-{name}-{args.static}.json"
        statics = (
            {
                (f["path"], f["name"]): f
                for f in json.loads(static_path.read_text(encoding="utf-8"))["functions"]
            }
            if args.static and static_path.exists()
            else {}
        )
        pairs = misses(lookup(name), args.workdir, args.back, result, statics if args.static else None)
        counts = Counter(p["cause"] for p in pairs)
        functions = Counter(cause for _, cause in {(p["function"], p["cause"]) for p in pairs})
        rows.append([name, len(pairs), *(f"{counts[c]} ({functions[c]})" for c in CAUSES)])
        if args.json:
            (OUT_DIR / f"impact-misses-{name}.json").write_text(json.dumps(pairs, indent=1) + "\n")
    print("missed (oracle test not returned) pairs by cause; in brackets: edited functions with one")
    print(table(("repo", "missed", *CAUSES), rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
