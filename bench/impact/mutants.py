"""Mutation benchmark: does the selection catch a real break, how much of the suite runs, how soon it fails.

For each repository (at its pinned commit, ``repos.py``): its suite is recorded once into mnemo's
coverage map (``pytest --mnemo-record``) and into pytest-testmon's database (``pytest --testmon``).
Then functions of the measured code that some test ran are sampled (seeded), and each gets one
mutant (a class sampled whole is mutated in one of its methods, and the mutant is that method's),
committed on top of the pinned commit: a comparison flipped (``==`` <-> ``!=``, ``<`` <-> ``>=``,
...), a ``return X`` made ``return None``, or a statement that is a call dropped (``pass``).
The **ground truth** is the set of tests that fail when the tests that covered the function (per the
map) run on the mutant and passed on the base code; a mutant no test fails is "survived" and scored for
nothing. The covering tests run first on the base code, to learn the CPU time they take there: on the
mutant a test phase may spend ``TEST_CPU_S`` CPU seconds (``plugin/mnemo_cpu_limit.py``) and the whole
run ``HUNG_FACTOR`` times the base's CPU plus ``HUNG_SLACK_S``, past which the mutant is "hung" and left
out. Both are CPU time, so how loaded the machine is does not decide which mutants are scored.

Per mutant, five selections: ``mnemo tests HEAD~1`` with the map recorded at the base (its order);
the same with a map recorded ``STALE_BACK`` first-parent commits before the base (that commit's own
suite, run in a git worktree with its package first on the path; nothing else updates that map);
the same with no map (the static graph only); testmon's (``pytest --testmon --collect-only`` on the
mutant, from a whole copy of its database; collection order); and everything (the suite's order).
Reported per selection: caught (a failing test is selected), the recall of the failing tests, the
share of the suite selected, its size beside the exact base coverage's (the tests that ran the
function at the base), and the rank of the first failing test as a share of the selection (in the
first 10 %: the fast-failure floor). Whole processes; the repositories' own venvs; nothing here
runs in CI.

    python -m bench.impact.mutants --repos flask,click,jinja,attrs,mako,pyflakes --mutants 10
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.impact.mutants_excess import excess_by_rule, excess_lines
from bench.impact.repos import (
    ImpactRepo,
    argument_parser,
    clone_of,
    git,
    lookup,
    package_sources,
    venv_python,
)
from mnemo_core.change.ownlines import own_line_sets
from mnemo_core.covmap.select import selection_order
from mnemo_core.covmap.store import map_path, reading

MNEMO = Path(__file__).resolve().parents[2]
REQUIREMENTS = ("pytest-testmon==2.2.0", "pytest-timeout==2.4.0")  # testmon, and a test blocked for good
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"  # mnemo_cpu_limit, loaded into the measured suite
TEST_CPU_S = "5"  # CPU seconds a test phase may spend on a mutant (an endless loop fails it instead)
TEST_WALL_S = "120"  # wall seconds a test may take: only a test blocked without spending CPU gets there
FAST_FAILURE = 0.1  # the floor's "first failing test in the first 10 % of the selection"
HUNG_FACTOR = 3  # a mutant whose covering tests spend more than this times their CPU at the base ...
HUNG_SLACK_S = 60  # ... plus this many CPU seconds (a dozen tests looping to their limit) is "hung"
SEED = 39  # the number: one fixed sample per repository
FLIPS = (("==", "!="), ("!=", "=="), ("<=", ">"), (">=", "<"), (" < ", " >= "), (" > ", " <= "))
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)
TIMEOUT_S = 1800  # one pytest run of a suite on a loaded machine
STALE_BACK = 30  # the stale map: recorded this many first-parent commits before the base
RECORD = ("-p", "mnemo_core.covmap.plugin", "--mnemo-record")  # record the map (mnemo on the path)
SELECTIONS = ("mnemo", "stale", "static", "testmon", "all")  # the columns, in the report's order
MAPPED = ("mnemo", "stale", "static")  # the columns ``mnemo tests`` answers (``--excess`` explains them)


@dataclass(frozen=True)
class Mutant:
    path: str
    function: str
    kind: str
    line: int
    text: str  # the new line


@dataclass(frozen=True)
class Scored:
    caught: bool
    recall: float  # failing items selected / failing items
    share: float
    exact: float  # items selected / the items of the tests that ran the function at the base
    first: float | None  # rank of the first failing test / selection size (0 = first)


def _env(first: Path | None = None) -> dict[str, str]:
    """The environment of a run: mnemo (this checkout) on the path, ``first`` ahead of it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    paths = [str(MNEMO), str(PLUGIN_DIR)] if first is None else [str(first), str(MNEMO), str(PLUGIN_DIR)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _pytest(
    python: Path, root: Path, *args: str, limit: int = TIMEOUT_S, first: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pytest", "-q", "-rfE", "-p", "no:randomly", *args],
        cwd=root,
        env=_env(first),
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
    )


@dataclass(frozen=True)
class Limited:
    """One run of tests under a CPU budget: the failing ids, or None when the budget (or the wall
    bound, for a run blocked without spending CPU) was reached; the CPU seconds the run spent."""

    failing: set[str] | None
    cpu_s: float


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _cpu_bounded(cpu_s: float) -> Any:
    """A ``preexec_fn`` capping the child's CPU time: past ``cpu_s`` the kernel sends SIGXCPU (which
    ends a Python process), a second later SIGKILL."""
    soft = max(1, int(cpu_s))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))

    return limit


def run_limited(python: Path, root: Path, args: tuple[str, ...], tests: list[str], cpu_s: float) -> Limited:
    """The tests' run with per-test CPU and wall limits and ``cpu_s`` CPU seconds for the whole run.

    The budget is CPU time, not wall time, so which mutants count as hung does not depend on how
    loaded the machine is (the wall bound, ``TIMEOUT_S``, is only for a run blocked for good)."""
    before = _children_cpu()
    command = [str(python), "-m", "pytest", "-q", "-rfE", "-p", "no:randomly", "-p", "mnemo_cpu_limit"]
    limits = ["--cpu-limit", TEST_CPU_S, "--timeout", TEST_WALL_S]
    try:
        done = subprocess.run(
            [*command, *args, *limits, *tests],
            cwd=root,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            preexec_fn=_cpu_bounded(cpu_s),
        )
    except subprocess.TimeoutExpired:
        return Limited(None, _children_cpu() - before)
    spent = _children_cpu() - before
    if done.returncode < 0:  # killed: SIGXCPU or SIGKILL at the CPU cap
        return Limited(None, spent)
    return Limited(set(FAILED.findall(done.stdout)), spent)


def hung_limit(base_cpu_s: float) -> float:
    """The CPU seconds a mutant's run may spend, from what the same tests spent on the base code."""
    return HUNG_FACTOR * base_cpu_s + HUNG_SLACK_S


def _mnemo(root: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mnemo_core.cli", *args, "--repo", str(root)],
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def _mutate(source: list[str], lines: frozenset[int], rng: random.Random) -> tuple[str, int, str] | None:
    """One mutant of a function's own lines: (kind, line, new text), or None when none applies."""
    options: list[tuple[str, int, str]] = []
    for n in sorted(lines):
        text = source[n - 1]
        stripped = text.strip()
        indent = text[: len(text) - len(text.lstrip())]
        if stripped.startswith("return ") and stripped != "return None":
            options.append(("return", n, f"{indent}return None"))
        elif re.match(r"^[\w.\[\]'\"]+\(.*\)$", stripped) and not stripped.startswith(("super(", "print(")):
            options.append(("call", n, f"{indent}pass"))
        for old, new in FLIPS:
            if old in text and not stripped.startswith(("#", "def ", "class ")):
                options.append(("compare", n, text.replace(old, new, 1)))
                break
    rng.shuffle(options)
    for kind, n, new in options:
        trial = [*source[: n - 1], new, *source[n:]]
        try:
            ast.parse("\n".join(trial))
        except SyntaxError:
            continue
        return kind, n, new
    return None


def _sample(
    root: Path, package: list[Path], covered: dict[str, dict[int, set[str]]], count: int
) -> list[tuple[Mutant, set[str]]]:
    """``count`` mutants of functions some test ran, each with the tests that ran it."""
    rng = random.Random(SEED)
    candidates: list[tuple[str, str, frozenset[int]]] = []
    for file in package:
        path = file.relative_to(root).as_posix()
        if path not in covered:
            continue
        for name, spans in own_line_sets(path, file.read_bytes()).items():
            if len(spans) == 1 and any(covered[path].get(n) for n in spans[0]):
                candidates.append((path, name, spans[0]))
    rng.shuffle(candidates)
    chosen: list[tuple[Mutant, set[str]]] = []
    for path, name, lines in candidates:
        source = (root / path).read_text(encoding="utf-8").splitlines()
        mutated = _mutate(source, lines, rng)
        if mutated is None:
            continue
        owner, lines = innermost(own_line_sets(path, (root / path).read_bytes()), mutated[1], (name, lines))
        tests = {t for n in lines for t in covered[path].get(n, ())}
        chosen.append((Mutant(path, owner, *mutated), tests))
        if len(chosen) == count:
            break
    return chosen


def innermost(
    definitions: dict[str, list[frozenset[int]]], line: int, sampled: tuple[str, frozenset[int]]
) -> tuple[str, frozenset[int]]:
    """The definition whose own lines hold ``line`` and are fewest: the mutated function. A class's
    own lines are its whole body (``change.ownlines``), so a class sampled as a whole is mutated in
    one of its methods, which the tests that ran any line of the class did not all run."""
    holding = [(len(s), n, s) for n, spans in definitions.items() for s in spans if line in s]
    if not holding:
        return sampled
    _, name, lines = min(holding)
    return name, lines


def _expanded(selection: list[str], suite: list[str]) -> list[str]:
    """The suite's items a selection of ids runs, in the selection's order (``path::test`` runs each
    of its parameters, a class each of its tests), as ``pytest ids...`` runs them."""
    order = {test: rank for rank, test in enumerate(selection)}
    ranked = [(selection_order(order, item), i, item) for i, item in enumerate(suite)]
    return [item for rank, _, item in sorted(r for r in ranked if r[0] is not None)]


def _failing_items(failing: set[str], suite: list[str]) -> set[str]:
    """The suite's items that failed: an id pytest reports for a whole file or class (an error while
    collecting it: module-level code the mutant breaks) stands for each of its items."""
    items = set(suite)
    return {item for f in failing for item in ([f] if f in items else _expanded([f], suite) or [f])}


def _score(selection: list[str], failing: set[str], suite: list[str], exact: int) -> Scored:
    items = _expanded(selection, suite)
    ranks = [i for i, t in enumerate(items) if t in failing]
    first = ranks[0] / len(items) if ranks else None
    share = len(items) / len(suite) if suite else 0.0
    return Scored(bool(ranks), len(ranks) / len(failing), share, len(items) / max(exact, 1), first)


def _copy_database(source: Path, target: Path) -> None:
    """A whole copy of an SQLite database (testmon keeps it in WAL mode: the file alone may be empty)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as old, closing(sqlite3.connect(target)) as new:
        old.backup(new)


def _testmon_selection(python: Path, root: Path, saved: Path, args: tuple[str, ...]) -> list[str]:
    _copy_database(saved, root / ".testmondata")
    return _collected(python, root, *args, "--testmon")


def _collected(python: Path, root: Path, *args: str) -> list[str]:
    """The node ids ``pytest --collect-only`` lists; once more quieter when the project's own
    ``addopts`` asks for ``-v`` (mako's), which prints a tree instead."""
    for quieter in ((), ("-q",)):
        done = _pytest(python, root, *args, "--collect-only", *quieter)
        ids = [line for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")]
        if ids:
            return ids
    return []


def _stale_map(repo: ImpactRepo, root: Path, python: Path, workdir: Path) -> Path:
    """The map of the commit ``STALE_BACK`` first-parent commits before the pin, recorded by that
    commit's own suite in a worktree (its package ahead of the venv's editable install), cached."""
    sha = git(root, "rev-parse", f"{repo.commit}~{STALE_BACK}").strip()
    saved = workdir / f"{repo.name}.stale-{sha[:12]}.db"
    if saved.exists():
        return saved
    tree = workdir / f"{repo.name}-back{STALE_BACK}"
    if not (tree / ".git").exists():
        git(root, "worktree", "add", "-f", "--detach", str(tree), sha)
    git(tree, "checkout", "-q", "-f", "--detach", sha)
    package = (tree / repo.package).parent
    args = (*repo.pytest_args, "-W", "ignore::DeprecationWarning")  # an older suite under a newer pytest
    done = _pytest(python, tree, *args, *RECORD, "--mnemo-map", str(saved), first=package)
    print(f"[{repo.name}] map of {sha[:10]}: {done.stdout.strip().splitlines()[-2:]}", flush=True)
    if not saved.exists():
        raise SystemExit(f"the suite of {repo.name} at {sha[:10]} wrote no map: {done.stdout[-2000:]}")
    return saved


def _selections(
    root: Path,
    python: Path,
    maps: dict[str, Path | None],
    saved: Path | None,
    args: tuple[str, ...],
    explained: tuple[str, ...] = (),
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The selection of each mnemo column (its map in place, or none) and testmon's (``saved``), and
    for the ``explained`` columns the same selection with its reasons (``--format json``)."""
    found: dict[str, list[str]] = {}
    answers: dict[str, str] = {}
    for label, coverage_map in maps.items():
        target = map_path(root, create=True)
        target.unlink(missing_ok=True)
        if coverage_map is not None:
            shutil.copyfile(coverage_map, target)
        found[label] = _mnemo(root, "tests", "HEAD~1", "--no-memory").split()
        if label in explained:
            answers[label] = _mnemo(root, "tests", "HEAD~1", "--no-memory", "--format", "json")
    if saved is not None:
        found["testmon"] = _testmon_selection(python, root, saved, args)
    return found, answers


def run_repo(
    name: str,
    workdir: Path,
    count: int,
    columns: tuple[str, ...] = SELECTIONS,
    explained: tuple[str, ...] = (),
    keep_ids: bool = False,
) -> dict[str, Any]:
    repo = lookup(name)
    root = clone_of(repo, workdir)
    python = venv_python(repo, workdir)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *REQUIREMENTS], check=True)
    args = repo.pytest_args
    for stale in (map_path(root), root / ".testmondata"):
        stale.unlink(missing_ok=True)
    _pytest(python, root, *args, *RECORD)
    base_map = workdir / f"{name}.base.db"
    shutil.copyfile(map_path(root), base_map)
    saved = workdir / f"{name}.testmondata" if "testmon" in columns else None
    if saved is not None:
        recorded = _pytest(python, root, *args, "--testmon")
        if "INTERNALERROR" in recorded.stdout + recorded.stderr:
            # testmon stops recording at its own error (on mako: a traced code object whose file name
            # is a directory): a partial database would select everything; the column is left out
            print(f"[{name}] testmon failed while recording; its column is left out", flush=True)
            columns, saved = tuple(c for c in columns if c != "testmon"), None
        else:
            _copy_database(root / ".testmondata", saved)
    maps = {"mnemo": base_map, "stale": None, "static": None}
    if "stale" in columns:
        maps["stale"] = _stale_map(repo, root, python, workdir)
    maps = {label: m for label, m in maps.items() if label in columns}
    _mnemo(root, "index")
    everything = _collected(python, root, *args)
    with reading(base_map) as coverage_map:
        covered = {p: coverage_map.contexts_by_lineno(p) for p in coverage_map.measured_files()}
    covered_sets = {p: {n: set(ts) for n, ts in lines.items()} for p, lines in covered.items()}
    results: list[dict[str, object]] = []
    for mutant, tests in _sample(root, package_sources(repo, root), covered_sets, count):
        base = run_limited(python, root, args, sorted(tests), TIMEOUT_S)
        source = (root / mutant.path).read_text(encoding="utf-8").splitlines(keepends=True)
        source[mutant.line - 1] = mutant.text + "\n"
        (root / mutant.path).write_text("".join(source), encoding="utf-8")
        git(root, "commit", "-q", "-am", f"mutant {mutant.kind} in {mutant.function}")
        ran = run_limited(python, root, args, sorted(tests), hung_limit(base.cpu_s))
        at_base = _failing_items(base.failing or set(), everything)  # broken already: no evidence
        failing = set() if ran.failing is None else _failing_items(ran.failing, everything) - at_base
        exact = len(_expanded(sorted(tests), everything))
        row: dict[str, Any] = {"mutant": mutant.__dict__, "covering": exact, "failing": len(failing)}
        row["failing_at_base"] = len(at_base)
        row["hung"] = ran.failing is None
        row["cpu_s"] = {"base": round(base.cpu_s, 1), "mutant": round(ran.cpu_s, 1)}
        if failing:
            chosen, answers = _selections(root, python, maps, saved, args, explained)
            chosen["all"] = everything
            for label in columns:
                row[label] = _score(chosen[label], failing, everything, exact).__dict__
                row[f"{label}_selected"] = len(chosen[label])
                if keep_ids and label != "all":
                    row[f"{label}_ids"] = chosen[label]
            if keep_ids:
                row["failing_ids"] = sorted(failing)
            covering = set(_expanded(sorted(tests), everything))
            for label, answer in answers.items():
                row[f"{label}_excess"] = excess_by_rule(answer, chosen[label], covering, everything)
        results.append(row)
        git(root, "reset", "-q", "--hard", repo.commit)
        print(json.dumps({"repo": name, **row}), flush=True)
    return {"repo": name, "suite": len(everything), "held_out": repo.held_out, "mutants": results}


def _ratio_median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x" if values else "-"


def summary(report: dict[str, Any]) -> list[str]:
    """The Markdown rows of one repository: caught, recall, share (median and mean), size beside the
    exact base coverage (median, and the total's ratio), first-failure rank (median) and in 10 %."""
    rows = [r for r in report["mutants"] if r.get("all")]
    hung = sum(1 for r in report["mutants"] if r["hung"])
    at_base = sum(r.get("failing_at_base", 0) for r in report["mutants"])
    head = f"{report['repo']}: {len(report['mutants'])} mutants ({hung} hung), {len(rows)} broke a test"
    head += f" ({at_base} covering tests failed on the base code too and are not counted)"
    lines = [f"{head}, suite {report['suite']}"]
    for label in SELECTIONS:
        scored = [r[label] for r in rows if label in r]
        if not scored:
            continue
        caught = [s for s in scored if s["caught"]]
        firsts = [s["first"] for s in caught]
        shares = [s["share"] for s in scored]
        exact = sum(s["share"] * report["suite"] for s in scored) / max(sum(r["covering"] for r in rows), 1)
        lines.append(
            f"| {report['repo']} | {label} | {len(caught)}/{len(scored)} | "
            f"{statistics.mean(s['recall'] for s in scored):.2f} | "
            f"{statistics.median(shares) * 100:.1f} % ({statistics.mean(shares) * 100:.1f} %) | "
            f"{_ratio_median([s['exact'] for s in scored])} ({exact:.2f}x) | "
            f"{statistics.median(firsts) * 100 if firsts else float('nan'):.1f} % | "
            f"{sum(f < FAST_FAILURE for f in firsts)}/{len(firsts)} |"
        )
    for label in SELECTIONS:
        lines += excess_lines(label, rows)
    return lines


def main() -> None:
    parser = argument_parser(__doc__ or "", "clones, venvs and databases", ("flask", "attrs"))
    parser.add_argument("--mutants", type=int, default=20, help="mutants per repository (default 20)")
    parser.add_argument("--columns", default=",".join(SELECTIONS), help="selections scored (default: all)")
    parser.add_argument(
        "--excess",
        default="",
        help="mnemo columns whose items beyond the exact coverage are counted by rule (aggregates only)",
    )
    parser.add_argument(
        "--keep-ids",
        action="store_true",
        help="keep each mutant's failing items and selections in the report (tuning repositories only)",
    )
    args = parser.parse_args()
    os.environ.update(
        {
            f"GIT_{who}_{what}": value
            for who in ("AUTHOR", "COMMITTER")
            for what, value in (("NAME", "mutant"), ("EMAIL", "mutant@example.com"))
        }
    )
    workdir = args.workdir if args.workdir.name != "mnemo-impact" else Path("/tmp/mnemo-mutants")
    out = []
    for name in args.repos.split(","):
        columns = tuple(c for c in SELECTIONS if c in args.columns.split(",") or c == "all")
        explained = tuple(c for c in args.excess.split(",") if c in columns and c in MAPPED)
        if args.keep_ids and lookup(name).held_out:
            raise SystemExit(f"--keep-ids is for tuning repositories; {name} is held out")
        report = run_repo(name, workdir, args.mutants, columns, explained, args.keep_ids)
        out.append(report)
        print("\n".join(summary(report)), flush=True)
    (MNEMO / "bench" / "out").mkdir(exist_ok=True)
    (MNEMO / "bench" / "out" / "mutants.json").write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
