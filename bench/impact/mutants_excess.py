"""Why a selection runs more than the exact base coverage: its extra items, by the rule that chose them.

``python -m bench.impact.mutants --excess stale`` asks ``mnemo tests --format json`` once more per
mutant for each named column and keeps, per mutant, the items selected beyond the exact base
coverage (the tests that ran the mutated function at the base) grouped by the first reason mnemo
gives for the id that selects them, normalised to the rule's name (``RULES``: the names, paths and
commits in a reason left out). The summary prints, per rule, only aggregates: the extra items summed
over the mutants, the mutants it added to, and the median size beside the exact coverage had that
rule added nothing (so a held-out repository says which rule costs its ratio without any per-mutant
row being read).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from mnemo_core.covmap.select import selection_order

# (rule, a phrase its reasons hold), the first match wins; the order puts the specific before the general
RULES: tuple[tuple[str, str], ...] = (
    ("added since the map", "added since the coverage map"),
    ("edited since the map", "edited since the coverage map"),
    ("added or edited by the change", "added or edited by the change"),
    ("a caller of code new since ran", ", new since the coverage data"),
    ("new since, its class's peers ran it", "new since the coverage data, calling nothing"),
    ("ran the changed symbol (map)", "ran the lines of"),
    ("module-level code: the tests that ran its file", "outside its functions changed"),
    ("nothing reaches it: the tests that ran its file", "nothing reaches"),
    ("every test runs", "every test runs"),
    ("a conftest changed", "the tests under it"),
    ("a deleted or moved file", "was deleted or moved"),
    ("a deleted or renamed symbol", ", which the change"),
    ("a test file new", " is new"),
)
STATIC = "the static graph"  # any other reason: a path the static graph found
UNKNOWN = "no reason given"


def rule_of(reason: str) -> str:
    """The rule a reason ``mnemo tests`` gives names (``STATIC`` for the static graph's)."""
    return next((rule for rule, phrase in RULES if phrase in reason), STATIC)


def excess_by_rule(answer: str, ids: list[str], exact: set[str], suite: list[str]) -> dict[str, int]:
    """The items ``ids`` (a selection, as ``mnemo tests`` prints it) runs beyond ``exact``, counted by
    the rule of the first reason ``answer`` (the same selection as ``--format json``) gives the id
    that selects each."""
    reasons: dict[str, str] = {}
    for test in json.loads(answer or "{}").get("tests", []):
        for nodeid in test.get("runs") or [test["id"]]:
            reasons.setdefault(nodeid, (test.get("reasons") or [""])[0])
    order = {test: rank for rank, test in enumerate(ids)}
    counted: Counter[str] = Counter()
    for item in suite:
        rank = selection_order(order, item)
        if rank is None or item in exact:
            continue
        reason = reasons.get(ids[rank])
        counted[UNKNOWN if reason is None else rule_of(reason)] += 1
    return dict(counted)


def excess_lines(label: str, rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Aggregate lines for one column: per rule, its extra items summed, the mutants it added to, and
    the median size beside the exact coverage without them (rows: scored mutants with ``excess``)."""
    scored = [r for r in rows if f"{label}_excess" in r and label in r]
    if not scored:
        return []
    rules = sorted({rule for r in scored for rule in r[f"{label}_excess"]})
    median = statistics.median(r[label]["exact"] for r in scored)
    lines = [f"{label} excess by rule over {len(scored)} mutants (median {median:.2f}x with every rule):"]
    for rule in sorted(rules, key=lambda x: -sum(r[f"{label}_excess"].get(x, 0) for r in scored)):
        items = [r[f"{label}_excess"].get(rule, 0) for r in scored]
        without = statistics.median(
            r[label]["exact"] - n / max(r["covering"], 1) for r, n in zip(scored, items, strict=True)
        )
        lines.append(
            f"  {rule}: {sum(items)} items in {sum(1 for n in items if n)} mutants; "
            f"median without it {without:.2f}x"
        )
    return lines
