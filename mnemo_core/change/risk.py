"""The risk verdict of a change: low, medium or high, with the rules that produced it.

Each rule that fires adds a reason and a level; the verdict is the highest level. A deleted or
renamed symbol that is still referenced is always high. Thresholds are named constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemo_core.change.diffmap import ChangedSymbol
from mnemo_core.index.languages import language_for_path
from mnemo_core.model import RISK_LEVELS, RiskLevel
from mnemo_core.retrieve.score import non_product_dirs

BLAST_MEDIUM = 10  # this many impacted symbols: reviewers should look beyond the diff
BLAST_HIGH = 50  # this many: the change ripples through much of the codebase
HOTSPOT_COMMITS = 5  # commits in 90 days on the changed lines: the code is in flux
MAX_LISTED = 5
COMMENTS_ONLY = "only comments, docstrings, layout or the spelling of annotations changed"


@dataclass(frozen=True, slots=True)
class Dangling:
    """A reference to a deleted or renamed symbol that the change left in place."""

    symbol: ChangedSymbol
    path: str
    line: int
    scope: str


@dataclass(frozen=True, slots=True)
class RiskInput:
    """What the verdict is judged on."""

    changed: list[ChangedSymbol]
    impacted: int
    untested: list[ChangedSymbol]
    dangling: list[Dangling]
    churn: dict[str, int]  # changed symbol key -> commits on its lines in the last 90 days
    measured: frozenset[str] = frozenset()  # keys whose tests came from coverage data
    undeterminable: list[ChangedSymbol] = field(default_factory=list)  # reached dynamically, no test found
    tests: int = 0  # tests that reach the change
    uncalled: list[ChangedSymbol] = field(default_factory=list)  # called by nothing here, no test found


def verdict(facts: RiskInput) -> tuple[RiskLevel, list[str]]:
    """The risk level and the reasons for it, most severe first."""
    findings: list[tuple[RiskLevel, str]] = []
    for symbol in {d.symbol.key: d.symbol for d in facts.dangling}.values():
        refs = [d for d in facts.dangling if d.symbol.key == symbol.key]
        where = ", ".join(f"{d.path}:{d.line}" for d in refs[:MAX_LISTED]) + (
            "..." if len(refs) > MAX_LISTED else ""
        )
        if symbol.status == "dropped":
            spec = language_for_path(symbol.path)
            module = spec.hooks.module_name(symbol.path) if spec else symbol.path
            finding = f"{symbol.name} is no longer imported in {module} but is still imported from it"
        else:
            what = f"renamed to {symbol.name}" if symbol.status == "renamed" else "deleted"
            finding = f"{symbol.old_name or symbol.name} was {what} but is still referenced"
        findings.append(("high", f"{finding} ({len(refs)}): {where}"))
    if facts.impacted >= BLAST_HIGH:
        findings.append(("high", f"large blast radius: {facts.impacted} symbols depend on the change"))
    elif facts.impacted >= BLAST_MEDIUM:
        findings.append(("medium", f"wide blast radius: {facts.impacted} symbols depend on the change"))
    product = [s for s in facts.changed if not non_product_dirs(s.path)]  # a benchmark is no one's API
    redefined = [  # a test's signature is no one's API; ``Optional[int]`` as ``int | None`` is the same one
        s
        for s in product
        if s.signature_changed and s.exported and s.kind != "module" and not (s.is_test or s.comments_only)
    ]
    signatures = [s for s in redefined if s.kind != "constant"]
    values = [s for s in redefined if s.kind == "constant"]  # a constant's signature is its assignment
    if signatures:
        findings.append(("medium", "public signature changed: " + _names(signatures)))
    if values:
        findings.append(("medium", "public constant's value changed: " + _names(values)))
    public = [
        s
        for s in product
        if s.exported and s.kind != "module" and not (s.is_test or s.signature_changed or s.comments_only)
    ]
    if public:
        findings.append(("low", "public API touched: " + _names(public)))
    unrun = [s for s in facts.untested if s.key in facts.measured]
    guessed = [s for s in facts.untested if s.key not in facts.measured and not non_product_dirs(s.path)]
    if guessed:
        findings.append(("medium", "no test reaches: " + _names(guessed)))
    if unrun:
        findings.append(("medium", "no test ran, per the coverage data: " + _names(unrun)))
    if facts.undeterminable:
        findings.append(
            (
                "low",
                "reached dynamically, tests not determinable statically (possible tests listed where found): "
                + _names(facts.undeterminable),
            )
        )
    if facts.uncalled:
        findings.append(
            (
                "low",
                "called by nothing in the repository (or only through code nothing in it calls), "
                "so its tests are not determinable statically: " + _names(facts.uncalled),
            )
        )
    deleted_tests = _outermost(
        [s for s in facts.changed if s.is_test and s.status == "deleted" and s.kind != "module"]
    )
    if deleted_tests:  # fewer tests guard the code: never "a small, tested change"
        findings.append(("low", "tests deleted: " + _names(deleted_tests)))
    hot = [(key, n) for key, n in facts.churn.items() if n >= HOTSPOT_COMMITS]
    if hot:
        cells = ", ".join(f"{key.split(':', 1)[1]} ({n} commits)" for key, n in hot[:MAX_LISTED])
        findings.append(("medium", f"hotspot: changed often in the last 90 days: {cells}"))
    if not findings:
        if all(s.comments_only for s in facts.changed):
            return "low", [f"{COMMENTS_ONLY}: no behaviour to test"]
        if facts.tests or all(s.is_test for s in facts.changed):
            return "low", ["small, tested change with a contained blast radius"]
        if all(s.is_test or non_product_dirs(s.path) for s in facts.changed):
            return "low", ["a change to examples, docs, scripts or benchmarks: no product code"]
        return "low", ["small change with a contained blast radius; no test reaches it statically"]
    findings.sort(key=lambda f: -RISK_LEVELS.index(f[0]))
    return findings[0][0], [text for _, text in findings]


def _outermost(symbols: list[ChangedSymbol]) -> list[ChangedSymbol]:
    """The symbols not nested in another of them (a test, not the closures deleted with it)."""
    names = {(s.path, s.name) for s in symbols}
    return [
        s
        for s in symbols
        if not any((s.path, s.name.rsplit(".", n)[0]) in names for n in range(1, s.name.count(".") + 1))
    ]


def _names(symbols: list[ChangedSymbol]) -> str:
    names = [s.name for s in symbols[:MAX_LISTED]]
    return ", ".join(names) + (f" and {len(symbols) - MAX_LISTED} more" if len(symbols) > MAX_LISTED else "")
