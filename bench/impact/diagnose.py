"""Why mnemo misses tests and names wrong ones: each error of a run of ``run.py`` given a cause.

**Misses** (an oracle test mnemo did not name). The suite is run once more with the benchmark's
plugin recording dynamic call edges per test (``oracle.record_calls``). For a missed test ``T``
of a changed function ``F``, mnemo's graph is walked back from ``F`` without a depth limit (the
set ``R`` of symbols from which mnemo knows a path to ``F``). On the shortest *dynamic* path from
the test to ``F`` (pytest -> test or fixture -> ... -> ``F``), the link mnemo lacks is the first
edge ``u -> v``, from the test's end, with ``v`` in ``R``: the call mnemo did not see. That link is
classified by what the calling line looks like (a callback defined in the test, a fixture pytest
injects, a call through code outside the repository, an implicit dunder call, a method call on an
untyped receiver, ...). When the test is in ``R`` after all, the miss is the depth limit (or the
walk stopping at another test).

**False positives** (a named test the oracle does not have). mnemo's own path from the test to
``F`` is recomputed and its hops classified by how their edges were resolved (a by-name fallback,
a dispatch to an override, an import), else by whether the test ran the last caller before ``F``
(the call site exists but this test does not take it: a static walk cannot know).

Each class is printed with counts and examples (``file:line`` and the line's text) and written to
``bench/out/impact-diagnosis-<repo>.json``.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import OUT_DIR, table, write_json
from bench.impact import metrics
from bench.impact.oracle import record_calls, test_identity
from bench.impact.repos import argument_parser, clone_of, lookup
from mnemo_core.change.impact import TEST_DEPTH, walk_back
from mnemo_core.index.languages.python import PythonHooks
from mnemo_core.index.resolve import AMBIGUOUS_LIMIT
from mnemo_core.index.store import Store
from mnemo_core.model import CALLABLE_KINDS, Symbol
from mnemo_core.repository import Repository

UNLIMITED_DEPTH = 40  # deep enough to reach every test mnemo can reach at all
EXAMPLES = 6
NAME_LOOKUP_LIMIT = 1000
NAMED_CAUSES = frozenset({"receiver", "self", "bare", "attribute", "super"})  # the line names the callee
PYTEST_CALLER = -1  # the plugin's caller id for functions pytest calls
ANONYMOUS = re.compile(r"^<(lambda|genexpr|listcomp|dictcomp|setcomp)>$")


# -- identities -------------------------------------------------------------------------------
def code_name(qualname: str) -> str:
    """A code object's qualified name as mnemo names symbols: ``f.<locals>.g`` -> ``f.g``; a lambda or a
    comprehension stands for its enclosing function (``f.<locals>.<lambda>`` -> ``f``)."""
    parts: list[str] = []
    for part in qualname.split("."):
        if part == "<locals>":
            continue
        if ANONYMOUS.match(part):
            break
        parts.append(part)
    return ".".join(parts) or "<module>"


@dataclass(frozen=True)
class Code:
    """A function the suite ran, as mnemo would name it."""

    path: str
    name: str
    line: int


def codes_of(calls: Mapping[str, Any], root: Path) -> list[Code | None]:
    """The recorded code objects as repository paths and mnemo-style names (None: outside the root)."""
    found: list[Code | None] = []
    for filename, qualname, line in calls["codes"]:
        try:
            path = Path(filename).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            found.append(None)
            continue
        found.append(Code(path, code_name(qualname), line))
    return found


class SymbolIndex:
    """mnemo's symbols by (path, qualified name)."""

    def __init__(self, store: Store, paths: Iterable[str]) -> None:
        self.by_key: dict[tuple[str, str], Symbol] = {}
        for path in sorted(set(paths)):
            for s in store.symbols_in_file(path):
                self.by_key.setdefault((s.path, s.name), s)

    def get(self, path: str, name: str) -> Symbol | None:
        return self.by_key.get((path, name))


# -- dynamic graphs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Link:
    """One dynamic call: caller node, the calling line, callee node, through outside code or not."""

    caller: int
    line: int
    callee: int
    external: bool


def test_graphs(calls: Mapping[str, Any], root: Path) -> dict[str, dict[int, list[Link]]]:
    """Per test key: callee node -> the links into it (variants of a test merged)."""
    graphs: dict[str, dict[int, list[Link]]] = defaultdict(lambda: defaultdict(list))
    for nodeid, edges in calls["edges"].items():
        record = calls["tests"].get(nodeid, {})
        key = test_identity(nodeid, record, root)
        for caller, line, callee, external in edges:
            graphs[key][callee].append(Link(caller, line, callee, bool(external)))
    return graphs


def shortest_dynamic_path(links_into: Mapping[int, list[Link]], target_nodes: set[int]) -> list[Link] | None:
    """The shortest chain of links from pytest to one of ``target_nodes`` (searched backwards)."""
    parent: dict[int, Link | None] = {t: None for t in target_nodes}
    queue = deque(sorted(target_nodes))
    while queue:
        node = queue.popleft()
        for link in sorted(links_into.get(node, ()), key=lambda x: (x.caller, x.line)):
            if link.caller == PYTEST_CALLER:
                chain = [link]
                while parent[chain[-1].callee] is not None:
                    chain.append(parent[chain[-1].callee])  # type: ignore[arg-type]
                return chain  # pytest -> ... -> target
            if link.caller not in parent:
                parent[link.caller] = link
                queue.append(link.caller)
    return None


# -- classification of misses ---------------------------------------------------------------------
MISS_CAUSES = {
    "closure": "callback or command defined inside the test, called back by the library",
    "fixture": "fixture injected by pytest (test or fixture -> fixture edge missing)",
    "external": "call through code outside the repository (test client, stdlib, decorator machinery)",
    "dunder": "implicit dunder call (Class(), with, str(), operators, iteration)",
    "indirect": "indirect call: the calling line does not name the callee (callback, stored function)",
    "attribute": "property or attribute access (no call syntax)",
    "self": "self./cls. method call not linked (inheritance, override, mixin)",
    "super": "super() call not linked",
    "receiver": "method call on an untyped receiver (obj.method())",
    "bare": "plain call by name not linked (import or scope resolution)",
    "unindexed": "caller or callee not in mnemo's index",
    "depth": "mnemo's path is longer than its test depth limit",
    "stopped": "mnemo's walk stops at another test case on the way",
    "not-a-test": "reached, but mnemo does not index the test function as a test case",
    "no-dynamic-path": "no recorded dynamic path (only the oracle's coverage saw it)",
}
DUNDER = re.compile(r"^__\w+__$")


def classify_call(
    caller: Code | None, callee: Code | None, line_text: str, external: bool, test_name: str | None
) -> str:
    """The cause of one dynamic call missing from mnemo's graph (a key of ``MISS_CAUSES``)."""
    if callee is None or caller is None:
        return "unindexed"
    short = callee.name.rsplit(".", 1)[-1]
    if test_name and callee.name.startswith(f"{test_name}."):
        return "closure"
    if external:
        return "external"
    if DUNDER.match(short):
        return "dunder"
    text = line_text.strip()
    if not re.search(rf"\b{re.escape(short)}\b", text):
        return "indirect"
    if re.search(rf"\bsuper\(\)\.{re.escape(short)}\b", text):
        return "super"
    if not re.search(rf"\b{re.escape(short)}\s*\(", text):
        return "attribute"
    if re.search(rf"\b(self|cls)\.{re.escape(short)}\s*\(", text):
        return "self"
    if re.search(rf"\.{re.escape(short)}\s*\(", text):
        return "receiver"
    return "bare"


class Sources:
    """Lines of the repository's files, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, list[str]] = {}

    def text(self, path: str) -> str:
        self.line(path, 1)
        return "\n".join(self.cache[path])

    def line(self, path: str, number: int) -> str:
        if path not in self.cache:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
                self.cache[path] = text.splitlines()
            except OSError:
                self.cache[path] = []
        lines = self.cache[path]
        return lines[number - 1] if 0 < number <= len(lines) else ""


@dataclass
class Finding:
    """One classified error: its cause, the function and test, and where the missing link is."""

    cause: str
    function: str
    test: str
    where: str
    text: str
    detail: str = ""  # why the by-name fallback did not link it, for calls that name the callee
    missing_links: int = 0  # calls on the dynamic path that mnemo has no edge for
    receiver: str = ""  # for method calls on other receivers: how the receiver is bound


RECEIVER_KINDS = {
    "annotated-param": "receiver is a parameter with a type annotation",
    "param": "receiver is a parameter without annotation (in tests: a fixture value)",
    "local-from-class": "receiver is a local assigned from a class call (v = C(...))",
    "local-from-call": "receiver is a local assigned from another call (v = make(...))",
    "local-other": "receiver is a local bound otherwise (loop variable, with ... as, unpacking)",
    "self-attribute": "receiver is an attribute of self (self.x.m())",
    "expression": "receiver is another expression (call result, subscript, module attribute)",
}


def receiver_of(line: str, callee: str) -> str:
    """The object expression before ``.callee(`` on a line ("" when there is none)."""
    found = re.search(rf"([\w.]+)\.{re.escape(callee)}\s*\(", line)
    return found.group(1) if found else ""


def _function_at_first_line(tree: ast.AST, first_line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            starts = [node.lineno, *(d.lineno for d in node.decorator_list)]
            if min(starts) == first_line:
                return node
    return None


def receiver_kind(source: str, first_line: int, receiver: str) -> str:
    """How the receiver of a call is bound in the calling function (a key of ``RECEIVER_KINDS``);
    ``first_line`` is the code object's first line (its first decorator's, if decorated)."""
    if receiver.startswith("self.") or receiver.startswith("cls."):
        return "self-attribute"
    if not receiver.isidentifier():
        return "expression"
    try:
        function = _function_at_first_line(ast.parse(source), first_line)
    except SyntaxError:
        function = None
    if function is None:
        return "expression"
    arguments = function.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        if arg.arg == receiver:
            return "annotated-param" if arg.annotation is not None else "param"
    for node in ast.walk(function):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == receiver:
            return "annotated-param"  # ``v: C = ...``: as good as an annotated parameter
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        if any(isinstance(t, ast.Name) and t.id == receiver for t in node.targets):
            callee = node.value.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            return "local-from-class" if name[:1].isupper() else "local-from-call"
    return "local-other"


class NameCandidates:
    """Why a call that names its callee was not linked by mnemo's by-name fallback."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.cache: dict[str, str] = {}

    def detail(self, short: str) -> str:
        if short not in self.cache:
            self.cache[short] = self._detail(short)
        return self.cache[short]

    def _detail(self, short: str) -> str:
        if short in PythonHooks.builtin_methods:
            return "name of a built-in type's method (never linked by name)"
        found = [
            s
            for s in self.store.symbols_named([short], limit=NAME_LOOKUP_LIMIT)[short]
            if s.short_name == short and s.kind in CALLABLE_KINDS
        ]
        distinct = {(s.path, s.name) for s in found if not s.is_test}
        if len(found) <= AMBIGUOUS_LIMIT:
            return f"at most {AMBIGUOUS_LIMIT} definitions, not linked"
        if len(distinct) <= AMBIGUOUS_LIMIT:
            return (
                f"{len(found)} definitions, {len(distinct)} without @overload stubs and test-file "
                "classes: over the by-name limit only because of those"
            )
        return f"ambiguous: over {AMBIGUOUS_LIMIT} non-test definitions"


Graphs = Mapping[str, Mapping[int, list[Link]]]


def diagnose_misses(
    record: Mapping[str, Any],
    missed: Sequence[str],
    graphs: Graphs,
    codes: Sequence[Code | None],
    index: SymbolIndex,
    store: Store,
    sources: Sources,
    links: DirectLinks,
    candidates: NameCandidates,
) -> list[Finding]:
    """A cause for each missed test of one function."""
    target = index.get(record["path"], record["name"])
    if target is None:
        return [Finding("unindexed", record["name"], t, record["path"], "") for t in missed]
    reach = walk_back(store, [target.id], UNLIMITED_DEPTH)
    wanted = (record["path"], record["name"])
    nodes_of_target = {i for i, c in enumerate(codes) if c and (c.path, c.name) == wanted}
    findings = []
    for test in missed:
        test_path, _, test_qual = test.partition("::")
        test_name = test_qual.replace("::", ".")
        test_symbol = index.get(test_path, test_name)
        function = f"{record['path']}:{record['name']}"
        if test_symbol is not None and test_symbol.id in reach:
            depth = reach[test_symbol.id].depth
            cause = "depth" if depth > TEST_DEPTH else "stopped" if test_symbol.is_test_case else "not-a-test"
            labels = " <- ".join(reach[test_symbol.id].labels)
            findings.append(Finding(cause, function, test, f"{depth} hops", labels))
            continue
        chain = shortest_dynamic_path(graphs.get(test, {}), nodes_of_target)
        if chain is None:
            findings.append(Finding("no-dynamic-path", function, test, "", ""))
            continue
        finding, position = _first_missing_link(
            chain, codes, index, reach, sources, test_name, function, test
        )
        finding.missing_links = 1 + links.missing(chain[:position], codes, index)  # it and those above
        if finding.cause in NAMED_CAUSES:  # the text ends with "[-> Class.callee]"
            short = finding.text.rsplit("[-> ", 1)[-1].rstrip("]").rsplit(".", 1)[-1]
            finding.detail = candidates.detail(short)
        if finding.cause == "receiver" and position < len(chain):
            caller = codes[chain[position].caller]
            if caller is not None:
                line = sources.line(caller.path, chain[position].line)
                receiver = receiver_of(line, short)
                finding.receiver = receiver_kind(sources.text(caller.path), caller.line, receiver)
        findings.append(finding)
    return findings


class DirectLinks:
    """Whether mnemo has a one-hop reverse dependency between two symbols (cached per callee)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.dependants: dict[int, set[int]] = {}

    def has(self, caller: int, callee: int) -> bool:
        if callee not in self.dependants:
            self.dependants[callee] = set(walk_back(self.store, [callee], 1))
        return caller in self.dependants[callee]

    def missing(self, chain: Sequence[Link], codes: Sequence[Code | None], index: SymbolIndex) -> int:
        """Calls of a dynamic chain (between indexed functions) that mnemo has no edge for."""
        count = 0
        for link in chain:
            caller = codes[link.caller] if link.caller != PYTEST_CALLER else None
            callee = codes[link.callee]
            a = index.get(caller.path, caller.name) if caller else None
            b = index.get(callee.path, callee.name) if callee else None
            if a is not None and b is not None and a.id != b.id and not self.has(a.id, b.id):
                count += 1
        return count


def _first_missing_link(
    chain: list[Link],
    codes: Sequence[Code | None],
    index: SymbolIndex,
    reach: Mapping[int, Any],
    sources: Sources,
    test_name: str,
    function: str,
    test: str,
) -> tuple[Finding, int]:
    """Walking the dynamic chain down from pytest: the first call into a function from which mnemo
    knows a path to the changed one (its caller is not connected, or it would be in ``reach`` too).
    Searching from the test's side skips wrappers in between that mnemo links across statically (a
    decorator's ``wrapper(*args)``). Returns the finding and the link's position in the chain."""
    for position, link in enumerate(chain):
        callee = codes[link.callee]
        callee_symbol = index.get(callee.path, callee.name) if callee else None
        if callee is None or callee_symbol is None or callee_symbol.id not in reach:
            continue
        if link.caller == PYTEST_CALLER:
            cause = "closure" if callee.name.startswith(f"{test_name}.") else "fixture"
            where = f"{callee.path}:{callee.line}"
            return Finding(cause, function, test, where, f"pytest -> {callee.name}"), position
        caller = codes[link.caller]
        text = sources.line(caller.path, link.line) if caller else ""
        cause = classify_call(caller, callee, text, link.external, test_name)
        if caller is not None and index.get(caller.path, caller.name) is None and cause != "closure":
            cause = "unindexed"
        where = f"{caller.path}:{link.line}" if caller else ""
        return Finding(cause, function, test, where, f"{text.strip()}  [-> {callee.name}]"), position
    return Finding("stopped", function, test, "", "every caller on the dynamic path is known"), len(chain)


# -- classification of false positives ------------------------------------------------------------------
FP_CAUSES = {
    "name": "a hop resolved by the by-name fallback (ambiguous or wrong target)",
    "dispatch": "a hop through overrides/inheritance (dispatch to another class's method)",
    "import": "a hop through a module import",
    "fixture": "a hop through a fixture the test requests",
    "not-taken": "exact static path, but this test does not run the call site (branch or argument dependent)",
    "not-reached": "exact static path whose last caller this test never runs",
    "unknown": "no path recomputed",
}


def diagnose_false_positives(
    record: Mapping[str, Any],
    wrong: Sequence[str],
    graphs: Mapping[str, Mapping[int, list[Link]]],
    codes: Sequence[Code | None],
    index: SymbolIndex,
    store: Store,
    depth: int,
) -> list[Finding]:
    """A cause for each test mnemo named that does not execute the function."""
    target = index.get(record["path"], record["name"])
    function = f"{record['path']}:{record['name']}"
    if target is None:
        return [Finding("unknown", function, t, "", "") for t in wrong]
    reach = walk_back(store, [target.id], max(depth, TEST_DEPTH), stop_at_tests=True)
    findings = []
    for test in wrong:
        test_path, _, test_qual = test.partition("::")
        symbol = index.get(test_path, test_qual.replace("::", "."))
        if symbol is None or symbol.id not in reach:
            findings.append(Finding("unknown", function, test, "", ""))
            continue
        r = reach[symbol.id]
        hops = list(zip(r.path, r.path[1:], r.labels, strict=False))
        resolutions = [_resolution(store, a, b) for a, b, _ in hops]
        labels = list(r.labels)
        names = store.symbols_by_ids(r.path)
        described = " -> ".join(
            f"{names[a].name} [{label}/{how}]" for (a, _, label), how in zip(hops, resolutions, strict=True)
        )
        if "name" in resolutions:
            cause = "name"
        elif any(label in ("overrides", "dispatches to", "inherits from") for label in labels):
            cause = "dispatch"
        elif "imports" in labels:
            cause = "import"
        elif "fixture" in resolutions:
            cause = "fixture"
        else:
            last_caller = names.get(r.path[1]) if len(r.path) > 1 else None
            ran = _ran(graphs.get(test, {}), codes, last_caller)
            cause = "not-taken" if ran else "not-reached"
        findings.append(Finding(cause, function, test, f"{r.depth} hops", described))
    return findings


def _resolution(store: Store, a: int, b: int) -> str:
    for e in store.edges_touching([a], "out") + store.edges_touching([a], "in"):
        if {e.src, e.dst} == {a, b} and e.type != "contains":
            return e.resolution
    return "?"


def _ran(links_into: Mapping[int, list[Link]], codes: Sequence[Code | None], symbol: Symbol | None) -> bool:
    if symbol is None:
        return False
    return any(
        codes[n] is not None and (codes[n].path, codes[n].name) == (symbol.path, symbol.name)  # type: ignore[union-attr]
        for n in links_into
    )


# -- what a score cut-off would do ------------------------------------------------------------------
SCORE_CUTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)


def score_sweep(functions: Sequence[Mapping[str, Any]]) -> list[dict[str, float]]:
    """Macro recall, precision and F1 if mnemo dropped the tests whose path weight is below a cut
    (mnemo names every test it reaches, however weak the path)."""
    rows = []
    for cut in SCORE_CUTS:
        scores = []
        for r in functions:
            unjudged = set(r["mnemo_unjudged"])
            kept = {k for k, v in r["mnemo"].items() if v.get("score", 1.0) >= cut and k not in unjudged}
            scores.append(metrics.score(kept, r["oracle"]))
        s = metrics.summarise(scores)
        rows.append(
            {
                "min_score": cut,
                "macro_recall": s.macro_recall,
                "macro_precision": s.macro_precision,
                "macro_f1": s.macro_f1,
                "tests_per_function": s.predicted_mean,
            }
        )
    return rows


def recall_if_fixed(functions: Sequence[Mapping[str, Any]], misses: Sequence[Finding]) -> dict[str, float]:
    """Per cause, mnemo's macro recall if every miss of that cause whose missing call is the only one
    on its dynamic path were found (an estimate: the depth limit and the walk's stop at tests may
    still cut some of them)."""
    fixable: dict[str, Counter[str]] = defaultdict(Counter)
    for f in misses:
        if f.missing_links == 1:
            fixable[f.cause][f.function] += 1
    out = {}
    for cause, per_function in fixable.items():
        recalls = []
        for r in functions:
            key = f"{r['path']}:{r['name']}"
            recalls.append((r["scores"]["mnemo"]["tp"] + per_function[key]) / max(len(r["oracle"]), 1))
        out[cause] = sum(recalls) / len(recalls) if recalls else 0.0
    return out


# -- report ---------------------------------------------------------------------------------
def summarise(findings: Sequence[Finding], causes: Mapping[str, str]) -> list[dict[str, Any]]:
    """Counts per cause (most frequent first) with the most common call sites as examples."""
    by_cause: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_cause[f.cause].append(f)
    out = []
    for cause, items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        sites = Counter((f.where, f.text) for f in items)
        details = Counter(f.detail for f in items if f.detail)
        receivers = Counter(RECEIVER_KINDS[f.receiver] for f in items if f.receiver)
        out.append(
            {
                "cause": cause,
                "what": causes.get(cause, cause),
                "count": len(items),
                "functions": len({f.function for f in items}),
                "details": dict(details.most_common()),
                "receivers": dict(receivers.most_common()),
                "single_missing_link": sum(1 for f in items if f.missing_links == 1),
                "examples": [
                    {"where": w, "text": t, "count": n} for (w, t), n in sites.most_common(EXAMPLES)
                ],
                "sample": {"function": items[0].function, "test": items[0].test},
            }
        )
    return out


def print_summary(title: str, rows: Sequence[Mapping[str, Any]], total: int, misses: bool) -> None:
    """Counts and examples as text."""
    print(f"\n{title} ({total})")
    for row in rows:
        share = row["count"] / max(total, 1)
        print(
            f"  {row['count']:5d} ({share:5.1%}) in {row['functions']:3d} functions  "
            f"{row['cause']}: {row['what']}"
        )
        for detail, n in [*row["details"].items(), *row["receivers"].items()]:
            print(f"          {n:5d} {detail}")
        if misses and row["cause"] not in ("depth", "stopped", "not-a-test", "no-dynamic-path"):
            print(f"          {row['single_missing_link']:5d} with no other call missing on that path")
        for ex in row["examples"][:3]:
            print(f"          {ex['count']:4d}x {ex['where']}  {ex['text'][:120]}")


def diagnose(name: str, workdir: Path, label: str = "") -> dict[str, Any]:
    """Classify every miss and false positive of the last run (of that label) on one repository."""
    import json

    repo = lookup(name)
    results = json.loads((OUT_DIR / f"impact-{name}{label and '-' + label}.json").read_text(encoding="utf-8"))
    clone = clone_of(repo, workdir)
    calls = record_calls(repo, workdir)
    root = Path(calls["rootdir"])
    codes = codes_of(calls, root)
    graphs = test_graphs(calls, root)
    opened = Repository.open(clone)
    opened.update_index(full=True)  # the engine installed now, as in run.py
    store = opened.store
    paths = {c.path for c in codes if c} | {r["path"] for r in results["functions"]}
    paths |= {t.split("::", 1)[0] for r in results["functions"] for t in [*r["oracle"], *r["mnemo"]]}
    index = SymbolIndex(store, paths)
    sources = Sources(clone)
    links, candidates = DirectLinks(store), NameCandidates(store)
    misses: list[Finding] = []
    wrong: list[Finding] = []
    for record in results["functions"]:
        predicted = set(record["mnemo"]) - set(record["mnemo_unjudged"])
        truth = set(record["oracle"])
        misses += diagnose_misses(
            record, sorted(truth - predicted), graphs, codes, index, store, sources, links, candidates
        )
        wrong += diagnose_false_positives(
            record, sorted(predicted - truth), graphs, codes, index, store, results["depth"]
        )
    report: dict[str, Any] = {
        "repo": name,
        "misses": summarise(misses, MISS_CAUSES),
        "false_positives": summarise(wrong, FP_CAUSES),
        "all_misses": [vars(f) for f in misses],
        "all_false_positives": [vars(f) for f in wrong],
    }
    print(f"== {name}: diagnosis of {len(results['functions'])} functions ==")
    print_summary("misses (oracle tests mnemo did not name)", report["misses"], len(misses), misses=True)
    print_summary(
        "false positives (named tests that do not run the function)",
        report["false_positives"],
        len(wrong),
        misses=False,
    )
    report["recall_if_fixed"] = recall_if_fixed(results["functions"], misses)
    print(
        "\nmacro recall if the only missing call of such misses were linked (estimate; now "
        f"{results['summary']['mnemo']['macro_recall']:.3f}):"
    )
    for cause, value in sorted(report["recall_if_fixed"].items(), key=lambda kv: -kv[1]):
        print(f"  {value:.3f}  {cause}")
    report["score_sweep"] = score_sweep(results["functions"])
    print("\nif mnemo dropped tests whose path weight is below a cut (macro values):")
    print(
        table(
            ("min score", "recall", "precision", "F1", "tests/fn"),
            [
                [
                    r["min_score"],
                    r["macro_recall"],
                    r["macro_precision"],
                    r["macro_f1"],
                    round(r["tests_per_function"], 1),
                ]
                for r in report["score_sweep"]
            ],
        )
    )
    return report


def main(argv: list[str] | None = None) -> int:
    """Diagnose the last ``run.py`` results of the chosen repositories."""
    parser = argument_parser(__doc__, "clones, venvs and scratch files")
    parser.add_argument(
        "--label",
        default="",
        help="diagnose run.py's results of that label "
        "(impact-<repo>-<label>.json) and write impact-diagnosis-<repo>-<label>.json",
    )
    args = parser.parse_args(argv)
    for name in args.repos.split(","):
        suffix = f"-{args.label}" if args.label else ""
        path = write_json(f"impact-diagnosis-{name}{suffix}", diagnose(name, args.workdir, args.label))
        print(f"details: {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
