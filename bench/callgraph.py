"""Call-graph accuracy: mnemo's resolved ``calls`` edges against an independent ``ast`` oracle.

For each repository (a bare mirror brought by the search tool's ``fetch`` under
``/work/.mirror/<owner>+<name>/repo``; it is cloned into a temporary directory and never committed),
mnemo indexes the checkout in a fresh process, and ``pyoracle.Oracle`` (no mnemo code) resolves every
call site of every ``.py`` file mnemo indexed. Both sides become sets of ``(caller, callee)`` pairs of
symbols written ``path:qualified_name`` (``path:<module>`` for module-level code).

Normalisation (applied to both sides):

- constructors: mnemo links ``Foo()`` to the class ``Foo`` *and* to ``Foo.__init__``/``Foo.__new__``;
  every callee ``X.__init__`` / ``X.__new__`` is counted as ``X`` (so ``super().__init__()`` is an edge to
  the base class, on both sides);
- callers: mnemo gives module-level ``UPPER_CASE = ...`` constants their own symbol and attributes calls
  in their right-hand side to it; such callers are counted as the module. Decorators, defaults and
  annotations belong to the definition they decorate, on both sides (mnemo's convention);
- implicit calls are left out of mnemo's side: they have no call site for the oracle to resolve. These
  are ``with`` statements (edges to ``__enter__`` / ``__exit__``), calling an instance (``__call__``),
  property reads (edges to a ``@property``), and the constructor a class inherits (``C()`` with
  ``Base.__init__``: the edge to ``C`` at the same line is kept);
- self-loops (recursion) are dropped (mnemo never emits them); ``fixture`` edges (pytest parameter ->
  fixture, no call site) are left out; only files the oracle could parse are compared.

Metrics, per repository and over all of them:

- **recall** = |mnemo ∩ oracle| / |oracle|, where the oracle pairs come from the call sites it
  resolves to a repository definition;
- **precision** = |mnemo ∩ oracle| / |judged|, on calls the oracle can resolve: a mnemo pair is judged
  when it is an oracle pair, or when one of its edges sits at a call site the oracle resolved to a
  repository definition. An edge is located by its caller and line; when several calls share the line,
  the sites whose called name is the callee's short name (or whose oracle target is the callee) are the
  candidates, and all candidates must be resolved. Edges at sites the oracle leaves unresolved
  (unknown receiver types, dynamic attributes, names bound several ways) are not judged.
  ``precision+ext`` also judges edges at sites the oracle resolves *outside* the repository (builtins,
  stdlib and third-party members): a mnemo edge there is wrong too, but the brief counts externals out.
- both broken down by mnemo's resolution kind (self, local, import, name) and by the oracle's call form.

The disagreements are grouped into patterns (false positive: which resolution, which call form, what
the oracle saw; false negative: which call form, what mnemo did at that site) and the most common ones
are printed with ``path:line`` examples.

Two further views, outside the headline:

- **extension**: the oracle also types a receiver bound once by ``v = C(...)`` or annotated with a
  repository class (``p: C``, ``C | None``, ``Optional[C]``, ``"C"``) and resolves ``v.m()`` / ``p.m()``
  along C's MRO. These are exactly the sites where mnemo falls back to name matching, so this is where
  its ``name`` edges get judged; precision and recall are reported per form and overall.
- **Jedi** (``--jedi-sample``): ``Script.goto`` on random samples of oracle sites (brief forms and
  extension forms separately: does Jedi agree with the oracle?), of the false positives and negatives
  (who is right?), and of mnemo's pairs at sites the oracle cannot resolve, per resolution kind, which
  gives an estimated precision for the edges no metric above judges.

Run: ``python bench/callgraph.py [--repos pallets/flask,psf/black] [--jedi-sample 50]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callgraph_report import (
    EXAMPLES_PER_PATTERN,
    FLOORS,
    TOP_PATTERNS,
    markdown,
    merge_patterns,
    overall,
    ratio,
    report,
)
from common import check_run, machine_info, run_measured, write_json
from pyoracle import Oracle
from pyoracle_scopes import EXTENSION_FORMS, MODULE_CALLER, Site, Target, import_root

NAME = "callgraph"
DEFAULT_REPOS = ("pallets/flask", "psf/black", "pytest-dev/pytest")
MIRROR_ROOT = Path("/work/.mirror")
CONSTRUCTOR_SUFFIXES = (".__init__", ".__new__")
IMPLICIT_DUNDERS = frozenset(
    {"__enter__", "__exit__", "__call__"}
)  # run by with statements and calling an instance
DEFAULT_JEDI_SAMPLE = 40  # per pool (oracle sites, false positives, false negatives) and repository
DEFAULT_JEDI_UNJUDGED_SAMPLE = 150  # per resolution kind and repository: the estimate the oracle cannot give
SEED = 20240101  # the Jedi sample and the examples are reproducible
CONFIDENT = frozenset({"self", "local", "import"})  # resolutions mnemo claims are proven, not guessed
TOP_UNJUDGED = 8
NO_REPO_ANSWER = frozenset({"external", "none", "error", "variable"})  # Jedi keys naming no repo definition
VERDICT_RANK = {"repo": 3, "external": 2, "unresolved": 1, "no-site": 0}


# -- the two graphs ---------------------------------------------------------------------------
@dataclass(frozen=True)
class MEdge:
    """One mnemo ``calls`` edge, with normalised symbol keys."""

    caller: str
    callee: str  # normalised (constructors -> class)
    raw_callee: str
    line: int
    resolution: str
    confidence: float


@dataclass
class MnemoGraph:
    """mnemo's symbols and call edges for the files the oracle analysed."""

    symbols: dict[str, str] = field(default_factory=dict)  # key -> kind
    edges: list[MEdge] = field(default_factory=list)
    fixture_edges: int = 0
    outside_edges: int = 0  # edges from files the oracle did not analyse


def normalise(key: str) -> str:
    """``path:X.__init__`` -> ``path:X`` (see the module docstring)."""
    for suffix in CONSTRUCTOR_SUFFIXES:
        if key.endswith(suffix) and ":" in key[: -len(suffix)]:
            return key[: -len(suffix)]
    return key


def short(key: str) -> str:
    """The last component of a symbol key's qualified name."""
    return key.rsplit(":", 1)[-1].rsplit(".", 1)[-1]


def load_mnemo(root: Path, analysed: set[str]) -> MnemoGraph:
    """Read symbols and ``calls`` edges from ``.mnemo/index.db``."""
    from mnemo_core.index.store import Store

    store = Store.open(root, create=False)
    try:
        conn = store.conn
        rows = conn.execute(
            "SELECT s.id, f.path, s.name, s.kind, s.decorators FROM symbols s "
            "JOIN files f ON f.id = s.file_id"
        )
        by_id: dict[int, tuple[str, str, str]] = {}
        properties: set[int] = set()
        graph = MnemoGraph()
        for sid, path, name, kind, decorators in rows:
            key = f"{path}:{MODULE_CALLER if kind == 'module' else name}"
            by_id[sid] = (path, key, kind)
            graph.symbols.setdefault(key, kind)
            if "property" in decorators:
                properties.add(sid)
        edges = conn.execute("SELECT src, dst, resolution, confidence, line FROM edges WHERE type = 'calls'")
        for src, dst, resolution, confidence, line in explicit_calls(list(edges), by_id, properties):
            if resolution == "fixture":
                graph.fixture_edges += 1
                continue
            path, caller, kind = by_id[src]
            if path not in analysed:
                graph.outside_edges += 1
                continue
            if kind == "constant":
                caller = f"{path}:{MODULE_CALLER}"
            raw = by_id[dst][1]
            callee = normalise(raw)
            if callee != caller:
                graph.edges.append(MEdge(caller, callee, raw, line, resolution, confidence))
        return graph
    finally:
        store.close()


def explicit_calls(
    edges: list[tuple[int, int, str, float, int]],
    by_id: dict[int, tuple[str, str, str]],
    properties: set[int],
) -> list[tuple[int, int, str, float, int]]:
    """mnemo's call edges without its implicit calls (see the module docstring)."""
    classes_at: dict[tuple[int, int], set[str]] = defaultdict(set)
    for src, dst, _, _, line in edges:
        if by_id[dst][2] == "class":
            classes_at[(src, line)].add(by_id[dst][1])
    kept = []
    for edge in edges:
        src, dst, _, _, line = edge
        raw = by_id[dst][1]
        if short(raw) in IMPLICIT_DUNDERS or dst in properties:
            continue
        built = classes_at.get((src, line), set())
        if normalise(raw) != raw and built and normalise(raw) not in built:
            continue
        kept.append(edge)
    return kept


def target_key(target: Target) -> str:
    """The normalised symbol key of a repository definition."""
    return normalise(f"{target.path}:{target.qualname}")


def caller_key(site: Site) -> str:
    """The symbol key of a site's caller."""
    return f"{site.path}:{site.caller}"


# -- comparison -------------------------------------------------------------------------------
@dataclass
class Comparison:
    """Everything the metrics and the disagreement patterns are computed from."""

    oracle: dict[tuple[str, str], list[Site]]  # oracle pairs -> their sites
    mnemo: dict[tuple[str, str], list[MEdge]]  # mnemo pairs -> their edges
    verdicts: dict[tuple[str, str], tuple[str, list[Site]]]  # mnemo pair -> (verdict, candidate sites)
    sites_at: dict[tuple[str, int], list[Site]]
    edges_at: dict[tuple[str, int], list[MEdge]]


def compare(sites: list[Site], graph: MnemoGraph) -> Comparison:
    """Pair up the two graphs and judge every mnemo pair against the oracle's sites."""
    oracle: dict[tuple[str, str], list[Site]] = defaultdict(list)
    sites_at: dict[tuple[str, int], list[Site]] = defaultdict(list)
    for site in sites:
        sites_at[(caller_key(site), site.line)].append(site)
        if site.status == "repo" and site.target is not None:
            pair = (caller_key(site), target_key(site.target))
            if pair[0] != pair[1]:
                oracle[pair].append(site)
    mnemo: dict[tuple[str, str], list[MEdge]] = defaultdict(list)
    edges_at: dict[tuple[str, int], list[MEdge]] = defaultdict(list)
    for edge in graph.edges:
        mnemo[(edge.caller, edge.callee)].append(edge)
        edges_at[(edge.caller, edge.line)].append(edge)
    verdicts = {}
    for pair, edges in mnemo.items():
        judged = [_judge(e, sites_at) for e in edges]
        best = max(judged, key=lambda j: VERDICT_RANK[j[0]])
        verdicts[pair] = ("repo", oracle[pair]) if pair in oracle else best
    return Comparison(dict(oracle), dict(mnemo), verdicts, sites_at, edges_at)


def _judge(edge: MEdge, sites_at: dict[tuple[str, int], list[Site]]) -> tuple[str, list[Site]]:
    """Whether the oracle resolved the call site an edge comes from: repo, external, unresolved, no-site."""
    sites = sites_at.get((edge.caller, edge.line), [])
    if not sites:
        return "no-site", []
    names = {short(edge.raw_callee), short(edge.callee)}
    candidates = [
        s
        for s in sites
        if s.name in names
        or (s.target is not None and s.status == "repo" and target_key(s.target) == edge.callee)
    ]
    candidates = candidates or sites
    statuses = {s.status for s in candidates}
    if statuses == {"repo"}:
        return "repo", candidates
    if statuses <= {"repo", "external"}:
        return "external", candidates
    return "unresolved", candidates


def best_edge(edges: list[MEdge]) -> MEdge:
    """The edge mnemo is most sure of (its resolution names the pair)."""
    return max(edges, key=lambda e: (e.confidence, -e.line))


def metrics(c: Comparison) -> dict[str, Any]:
    """Precision, recall and their breakdowns."""
    oracle, mnemo = set(c.oracle), set(c.mnemo)
    tp = oracle & mnemo
    judged = {p for p, (v, _) in c.verdicts.items() if v == "repo"}
    judged_ext = {p for p, (v, _) in c.verdicts.items() if v in {"repo", "external"}}
    by_resolution: dict[str, dict[str, int]] = defaultdict(lambda: {"judged": 0, "tp": 0, "all": 0})
    for pair, edges in c.mnemo.items():
        row = by_resolution[best_edge(edges).resolution]
        row["all"] += 1
        row["judged"] += pair in judged
        row["tp"] += pair in tp
    by_form: dict[str, dict[str, int]] = defaultdict(lambda: {"oracle": 0, "found": 0, "judged": 0, "tp": 0})
    for pair, sites in c.oracle.items():
        row = by_form[_first(sites).form]
        row["oracle"] += 1
        row["found"] += pair in mnemo
    for pair in judged:
        candidates = [s for s in c.verdicts[pair][1] if s.status == "repo"] or c.verdicts[pair][1]
        row = by_form[_first(candidates).form]
        row["judged"] += 1
        row["tp"] += pair in tp
    edge_verdicts = Counter(v for v, _ in c.verdicts.values())
    unresolved_reasons = Counter(
        s.reason for p, (v, sites) in c.verdicts.items() if v == "unresolved" for s in sites[:1]
    )
    return {
        "oracle_pairs": len(oracle),
        "mnemo_pairs": len(mnemo),
        "judged": len(judged),
        "tp": len(tp),
        "precision": ratio(len(tp), len(judged)),
        "recall": ratio(len(tp), len(oracle)),
        "judged_ext": len(judged_ext),
        "precision_ext": ratio(len(tp), len(judged_ext)),
        "by_resolution": {
            k: {**v, "precision": ratio(v["tp"], v["judged"])} for k, v in sorted(by_resolution.items())
        },
        "by_form": {
            k: {**v, "recall": ratio(v["found"], v["oracle"]), "precision": ratio(v["tp"], v["judged"])}
            for k, v in sorted(by_form.items())
        },
        "mnemo_pair_verdicts": dict(edge_verdicts),
        "mnemo_pairs_at_unresolved_sites_by_reason": dict(unresolved_reasons.most_common()),
    }


def _first(sites: list[Site]) -> Site:
    return min(sites, key=lambda s: (s.line, s.column))


# -- disagreement patterns --------------------------------------------------------------------
@dataclass
class Disagreement:
    """One false positive or false negative, with the pattern it belongs to."""

    kind: str  # FP or FN
    pattern: str
    example: str
    pair: tuple[str, str]
    site: Site | None
    mnemo_callee: str = ""
    oracle_callee: str = ""


def disagreements(c: Comparison, graph: MnemoGraph) -> list[Disagreement]:
    """Every judged false positive and every false negative, classified."""
    found: list[Disagreement] = []
    for pair, (v, candidates) in sorted(c.verdicts.items()):
        if pair in c.oracle or v not in {"repo", "external"}:
            continue
        edge = best_edge(c.mnemo[pair])
        site = _first(candidates)
        found.append(_false_positive(pair, edge, site, candidates, graph, v))
    for pair, sites in sorted(c.oracle.items()):
        if pair not in c.mnemo:
            found.append(_false_negative(pair, _first(sites), c, graph))
    return found


def _false_positive(
    pair: tuple[str, str], edge: MEdge, site: Site, candidates: list[Site], graph: MnemoGraph, v: str
) -> Disagreement:
    mnemo_kind = graph.symbols.get(edge.raw_callee, "?")
    targets = sorted(
        {
            target_key(s.target)
            if s.status == "repo" and s.target
            else f"external {s.target.qualname}"
            if s.target
            else "?"
            for s in candidates
        }
    )
    if v == "external":
        what = "oracle: an external callee"
    elif any(short(t) == short(pair[1]) for t in targets):
        same_file = any(t.split(":")[0] == pair[1].split(":")[0] for t in targets)
        what = f"oracle: another same-named {'def in the same file' if same_file else 'def in another file'}"
    else:
        what = "oracle: a differently named callee"
    pattern = f"FP {edge.resolution:<6} {site.form}: mnemo -> {mnemo_kind}, {what}"
    example = (
        f"{site.path}:{site.line} {site.caller} calls `{site.name}`: mnemo -> {edge.raw_callee} "
        f"[{edge.resolution}]; oracle -> {', '.join(targets)}"
    )
    return Disagreement("FP", pattern, example, pair, site, edge.raw_callee, ", ".join(targets))


def _false_negative(pair: tuple[str, str], site: Site, c: Comparison, graph: MnemoGraph) -> Disagreement:
    at_site = [
        e
        for e in c.edges_at.get((pair[0], site.line), [])
        if site.name in {short(e.callee), short(e.raw_callee)}
    ]
    if pair[1] not in graph.symbols:
        what = "callee not in mnemo's symbols"
    elif pair[0] not in graph.symbols:
        what = "caller not in mnemo's symbols"
    elif at_site:
        what = f"mnemo links another target [{best_edge(at_site).resolution}]"
    else:
        what = "no mnemo edge at this site"
    mnemo_targets = ", ".join(sorted({f"{e.raw_callee} [{e.resolution}]" for e in at_site})) or "none"
    pattern = f"FN {site.form}: {what}"
    example = (
        f"{site.path}:{site.line} {site.caller} calls `{site.name}`: oracle -> {pair[1]}; "
        f"mnemo -> {mnemo_targets}"
    )
    return Disagreement("FN", pattern, example, pair, site, mnemo_targets, pair[1])


def top_patterns(found: list[Disagreement], limit: int = TOP_PATTERNS) -> list[dict[str, Any]]:
    """The most common patterns with a few reproducible examples each."""
    groups: dict[str, list[Disagreement]] = defaultdict(list)
    for d in found:
        groups[d.pattern].append(d)
    rng = random.Random(SEED)
    out = []
    for pattern, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]:
        sample = rng.sample(items, min(EXAMPLES_PER_PATTERN, len(items)))
        out.append({"pattern": pattern, "count": len(items), "examples": [d.example for d in sample]})
    return out


def unjudged_patterns(c: Comparison, limit: int = TOP_UNJUDGED) -> list[dict[str, Any]]:
    """mnemo's confident pairs (self, local, import) at sites the oracle leaves unresolved, by the
    oracle's reason: not counted in precision, but where a resolver bug would hide."""
    found: list[Disagreement] = []
    for pair, (v, candidates) in sorted(c.verdicts.items()):
        edge = best_edge(c.mnemo[pair])
        if v != "unresolved" or pair in c.oracle or edge.resolution not in CONFIDENT or not candidates:
            continue
        site = _first([s for s in candidates if s.name == short(pair[1])] or candidates)
        pattern = f"{edge.resolution:<6} at a site the oracle leaves unresolved ({site.reason}; {site.form})"
        example = (
            f"{site.path}:{site.line} {site.caller} calls `{site.name}`: mnemo -> {edge.raw_callee} "
            f"[{edge.resolution}]"
        )
        found.append(Disagreement("UNJUDGED", pattern, example, pair, site, edge.raw_callee))
    return top_patterns(found, limit)


# -- Jedi as a second opinion -------------------------------------------------------------------
class JediOracle:
    """Jedi's ``goto`` at a call site, mapped to the same symbol keys (or ``external``/``none``)."""

    def __init__(self, root: Path, oracle: Oracle) -> None:
        import jedi

        self.jedi = jedi
        self.root = root
        self.oracle = oracle
        roots = sorted({import_root(m) for m in oracle.modules.values()})
        sys_path = [str(root / r) if r else str(root) for r in roots] + [sysconfig.get_paths()["stdlib"]]
        self.project = jedi.Project(
            root, sys_path=sys_path, smart_sys_path=False, load_unsafe_extensions=False
        )
        self._scripts: dict[str, Any] = {}

    def keys(self, site: Site) -> set[str]:
        """The normalised keys Jedi's definitions map to."""
        script = self._scripts.get(site.path)
        if script is None:
            source = (self.root / site.path).read_text(encoding="utf-8", errors="replace")
            script = self._scripts[site.path] = self.jedi.Script(
                source, path=self.root / site.path, project=self.project
            )
        try:
            names = script.goto(site.line, site.column, follow_imports=True)
        except Exception:  # Jedi's own failures count as "no answer"
            return {"error"}
        keys = set()
        for name in names:
            path = name.module_path
            if path is None or not str(path).startswith(str(self.root) + "/"):
                keys.add("external")
                continue
            rel = Path(path).relative_to(self.root).as_posix()
            if name.type in {"param", "statement"}:
                keys.add("variable")  # the callee is a parameter's or a variable's value
                continue
            is_def = name.type in {"function", "class"}
            qual = self.oracle.def_lines.get((rel, name.line or 0)) if is_def else None
            keys.add(normalise(f"{rel}:{qual}") if qual else f"other {name.type}")
        return keys or {"none"}


def jedi_check(
    root: Path,
    oracle: Oracle,
    sites: list[Site],
    c: Comparison,
    found: list[Disagreement],
    sample: int,
    unjudged_sample: int,
) -> dict[str, Any]:
    """Jedi's opinion on random samples: oracle-resolved sites (is the oracle right?), the false
    positives and negatives (who is right?), and, per resolution kind, mnemo's pairs at sites the
    oracle cannot resolve (how good are the edges the main metric cannot judge?)."""
    if sample <= 0:
        return {}
    started = time.perf_counter()
    jedi = JediOracle(root, oracle)
    rng = random.Random(SEED)
    result: dict[str, Any] = {}
    for group, extension_forms in (("oracle_sites", False), ("oracle_extension_sites", True)):
        resolved = [s for s in sites if s.status == "repo" and s.extension == extension_forms]
        agree: Counter[str] = Counter()
        disagreeing_examples: list[str] = []
        for site in rng.sample(resolved, min(sample, len(resolved))):
            keys = jedi.keys(site)
            vote = (
                "agrees"
                if site.target and target_key(site.target) in keys
                else "jedi external/none"
                if keys <= NO_REPO_ANSWER
                else "disagrees"
            )
            agree[vote] += 1
            if vote != "agrees" and site.target and len(disagreeing_examples) < EXAMPLES_PER_PATTERN:
                disagreeing_examples.append(
                    f"{site.path}:{site.line} `{site.name}`: oracle -> "
                    f"{target_key(site.target)}; jedi -> {', '.join(sorted(keys))}"
                )
        result[group] = {**agree, "examples": disagreeing_examples}
    for kind in ("FP", "FN"):
        disagreeing = [d for d in found if d.kind == kind and d.site is not None]
        result[kind] = _disagreement_votes(jedi, rng.sample(disagreeing, min(sample, len(disagreeing))), kind)
    unjudged: dict[str, list[tuple[tuple[str, str], Site]]] = defaultdict(list)
    for pair, (v, candidates) in sorted(c.verdicts.items()):
        if v in {"unresolved", "external"} and pair not in c.oracle and candidates:
            named = [s for s in candidates if s.name == short(pair[1])] or candidates
            unjudged[best_edge(c.mnemo[pair]).resolution].append((pair, _first(named)))
    result["unjudged"] = {}
    for resolution, pool in sorted(unjudged.items()):
        votes: Counter[str] = Counter()
        examples: list[str] = []
        for pair, site in rng.sample(pool, min(unjudged_sample, len(pool))):
            keys = jedi.keys(site)
            vote = (
                "agrees with mnemo"
                if pair[1] in keys
                else "jedi: external"
                if "external" in keys
                else "jedi: a parameter or variable"
                if "variable" in keys
                else "jedi: no answer"
                if keys <= {"none", "error"} or all(k.startswith("other") for k in keys)
                else "jedi: another repo def"
            )
            votes[vote] += 1
            if vote in {"jedi: external", "jedi: another repo def"} and len(examples) < EXAMPLES_PER_PATTERN:
                examples.append(
                    f"{site.path}:{site.line} {site.caller} calls `{site.name}`: "
                    f"mnemo -> {pair[1]} "
                    f"[{resolution}]; jedi -> {', '.join(sorted(keys))}"
                )
        decided = votes["agrees with mnemo"] + votes["jedi: external"] + votes["jedi: another repo def"]
        result["unjudged"][resolution] = {
            "pool": len(pool),
            **votes,
            "est_precision": ratio(votes["agrees with mnemo"], decided),
            "examples_jedi_disagrees": examples,
        }
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _disagreement_votes(jedi: JediOracle, items: list[Disagreement], kind: str) -> dict[str, Any]:
    votes: Counter[str] = Counter()
    examples: list[str] = []
    for d in items:
        assert d.site is not None
        keys = jedi.keys(d.site)
        mnemo_keys = {normalise(k.split(" [")[0]) for k in d.mnemo_callee.split(", ")} - {"none"}
        oracle_keys = {"external" if k.startswith("external") else k for k in d.oracle_callee.split(", ")}
        mnemo_ok, oracle_ok = bool(mnemo_keys & keys), bool(oracle_keys & keys)
        vote = (
            "jedi agrees with mnemo"
            if mnemo_ok and not oracle_ok
            else "jedi agrees with the oracle"
            if oracle_ok and not mnemo_ok
            else "jedi agrees with both"
            if oracle_ok
            else "jedi agrees with neither"
        )
        votes[vote] += 1
        if vote == "jedi agrees with mnemo" and len(examples) < EXAMPLES_PER_PATTERN:
            examples.append(f"{d.example}; jedi -> {', '.join(sorted(keys))}")
    return {**votes, "examples_jedi_sides_with_mnemo": examples}


# -- one repository -----------------------------------------------------------------------------
def checkout(repo: str, workdir: Path, mirror_root: Path) -> tuple[Path, str]:
    """Clone the fetched mirror of ``owner/name`` into ``workdir``; returns (path, commit)."""
    mirror = mirror_root / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise FileNotFoundError(f"{mirror} is missing: fetch github:{repo} with the search tool first")
    dest = workdir / repo.replace("/", "+")
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True, capture_output=True)
    commit = subprocess.run(
        ["git", "-C", str(dest), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return dest, commit


def index_with_mnemo(root: Path) -> dict[str, Any]:
    """``mnemo index`` in a fresh process."""
    run = check_run(run_measured([sys.executable, "-m", "mnemo_core.cli", "index", str(root)]), "mnemo index")
    return {"wall_s": round(run.wall_s, 2), "output": run.stdout.strip()}


def python_files(root: Path) -> list[str]:
    """The ``.py`` files mnemo indexed (the comparison's universe)."""
    from mnemo_core.index.store import Store

    store = Store.open(root, create=False)
    try:
        rows = store.conn.execute("SELECT path FROM files WHERE language = 'python'")
        return sorted(p for (p,) in rows if p.endswith(".py"))
    finally:
        store.close()


def evaluate(
    repo: str, workdir: Path, mirror_root: Path, jedi_sample: int, unjudged_sample: int
) -> dict[str, Any]:
    """Check out, index, build the oracle, compare; everything for one repository."""
    root, commit = checkout(repo, workdir, mirror_root)
    indexed = index_with_mnemo(root)
    paths = python_files(root)
    started = time.perf_counter()
    oracle = Oracle(root, paths)
    sites = list(oracle.sites())
    oracle_s = time.perf_counter() - started
    graph = load_mnemo(root, set(oracle.modules))
    c = compare([_brief_only(s) for s in sites], graph)
    found = disagreements(c, graph)
    return {
        "repo": repo,
        "commit": commit,
        "mnemo_index": indexed,
        "files": len(paths),
        "files_not_parsed": len(oracle.failed),
        "oracle_seconds": round(oracle_s, 1),
        "sites": dict(Counter(s.status for s in sites)),
        "unresolved_reasons": dict(
            Counter(s.reason for s in sites if s.status == "unresolved").most_common()
        ),
        "mnemo_edges": len(graph.edges),
        "mnemo_fixture_edges": graph.fixture_edges,
        "mnemo_edges_outside_analysed_files": graph.outside_edges,
        "metrics": metrics(c),
        "fp": sum(d.kind == "FP" and c.verdicts[d.pair][0] == "repo" for d in found),
        "fn": sum(d.kind == "FN" for d in found),
        "patterns": top_patterns([d for d in found if d.kind == "FN" or c.verdicts[d.pair][0] == "repo"]),
        "external_site_patterns": top_patterns(
            [d for d in found if d.kind == "FP" and c.verdicts[d.pair][0] == "external"], limit=5
        ),
        "unjudged_confident_patterns": unjudged_patterns(c),
        "jedi": jedi_check(root, oracle, sites, c, found, jedi_sample, unjudged_sample),
        "extension": extension(sites, graph),
    }


def _brief_only(site: Site) -> Site:
    """The headline metrics count only the brief's call forms: a typed-receiver site is unresolved there."""
    if not site.extension:
        return site
    return dataclasses.replace(site, status="unresolved", target=None, reason="typed receiver (extension)")


def extension(sites: list[Site], graph: MnemoGraph) -> dict[str, Any]:
    """The metrics again with the typed-receiver forms judged too (``v = C(); v.m()``, ``p: C; p.m()``):
    the sites where mnemo falls back to name matching."""
    c = compare(sites, graph)
    m = metrics(c)
    found = [
        d
        for d in disagreements(c, graph)
        if d.site is not None and d.site.extension and (d.kind == "FN" or c.verdicts[d.pair][0] == "repo")
    ]
    return {
        "precision": m["precision"],
        "recall": m["recall"],
        "judged": m["judged"],
        "tp": m["tp"],
        "oracle_pairs": m["oracle_pairs"],
        "by_form": {k: v for k, v in m["by_form"].items() if k in EXTENSION_FORMS},
        "by_resolution": m["by_resolution"],
        "patterns": top_patterns(found, TOP_UNJUDGED),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", default=",".join(DEFAULT_REPOS), help="comma-separated owner/name list")
    parser.add_argument("--mirror-root", type=Path, default=MIRROR_ROOT, help="where fetched mirrors live")
    parser.add_argument(
        "--jedi-sample",
        type=int,
        default=DEFAULT_JEDI_SAMPLE,
        help="sites per pool checked with Jedi (0: skip Jedi)",
    )
    parser.add_argument(
        "--jedi-unjudged-sample",
        type=int,
        default=DEFAULT_JEDI_UNJUDGED_SAMPLE,
        help="mnemo pairs per resolution kind, at sites the oracle cannot resolve, checked with Jedi",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where to check out (default: a temp dir)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Evaluate every repository, print the report, write JSON."""
    args = parse_args(argv)
    info = machine_info()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mnemo-callgraph-"))
    results = []
    try:
        for repo in (r for r in args.repos.split(",") if r):
            try:
                results.append(
                    evaluate(repo, workdir, args.mirror_root, args.jedi_sample, args.jedi_unjudged_sample)
                )
            except FileNotFoundError as exc:
                print(f"skipping {repo}: {exc}", file=sys.stderr)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if not results:
        print("no repository evaluated", file=sys.stderr)
        return 2
    total = overall(results)
    print(report(info, results, total))
    print("\n" + markdown(results, total))
    path = write_json(
        NAME,
        {
            "machine": info,
            "floors": FLOORS,
            "overall": total,
            "repos": results,
            "top_patterns": merge_patterns(results),
        },
    )
    print(f"\nwrote {path}")
    return 0 if all(total[m] >= v for m, v in FLOORS.items()) else 1


if __name__ == "__main__":
    sys.exit(main())
