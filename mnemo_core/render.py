"""Rendering of answers: JSON (the contract every front end shares), Markdown and plain text."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mnemo_core.model import ContextPack, Explanation, Impact, ScoredSymbol
from mnemo_core.retrieve.snippets import header

SCHEMA = 1
IMPACT_LINES = 25  # per list in text output; JSON lists everything
MULTIPLIER_NAMES = {"test": "test code, and the task is not about tests", "kind": "kind prior"}


def symbol_json(s: ScoredSymbol) -> dict[str, Any]:
    """One ranked symbol in the JSON contract's shape."""
    sym = s.symbol
    return {
        "path": sym.path, "name": sym.name, "kind": sym.kind, "language": sym.language,
        "start_line": sym.start_line, "end_line": sym.end_line, "signature": sym.signature,
        "score": s.score, "tokens": s.tokens, "distance": s.distance, "is_test": sym.is_test,
        "changed": s.changed, "components": dict(s.components), "reasons": list(s.reasons),
        "docstring": sym.docstring, "body": s.body,
    }


def impact_json(impact: Impact) -> dict[str, Any]:
    """The impact section of the contract."""
    return {
        "changed": [symbol_json(s) for s in impact.changed],
        "callers": [symbol_json(s) for s in impact.callers],
        "tests": [symbol_json(s) for s in impact.tests],
        "risk": impact.risk,
        "reasons": list(impact.reasons),
        "changed_files": list(impact.changed_files),
    }


def pack_json(pack: ContextPack) -> dict[str, Any]:
    """A whole answer as the JSON contract (``schema`` 1)."""
    data: dict[str, Any] = {
        "schema": SCHEMA, "mode": pack.mode, "query": pack.query, "repo": pack.repo, "commit": pack.commit,
        "budget_tokens": pack.budget_tokens, "used_tokens": pack.used_tokens,
        "symbols": [symbol_json(s) for s in pack.symbols],
    }
    if pack.impact is not None:
        data["impact"] = impact_json(pack.impact)
    data["stats"] = dict(pack.stats)
    data["notes"] = list(pack.notes)
    return data


def to_json(pack: ContextPack) -> str:
    """The answer as JSON text (deterministic: same input, same bytes)."""
    return json.dumps(pack_json(pack), indent=2, ensure_ascii=False)


def test_ids(tests: Iterable[ScoredSymbol]) -> list[str]:
    """Runnable test ids: pytest node ids for Python (``path::Class::test``), ``path::name`` otherwise."""
    return list(dict.fromkeys(f"{t.symbol.path}::{t.symbol.name.replace('.', '::')}" for t in tests))


def impact_text(impact: Impact) -> list[str]:
    """The impact section for a terminal."""
    lines = [f"risk: {impact.risk}"] + [f"  - {r}" for r in impact.reasons]
    for title, items in (("changed", impact.changed), ("callers", impact.callers), ("tests", impact.tests)):
        lines.append(f"{title} ({len(items)}):")
        lines += [f"  {s.symbol.path}:{s.symbol.start_line}  {s.symbol.name}  {'; '.join(s.reasons)}"
                  for s in items[:IMPACT_LINES]]
        if len(items) > IMPACT_LINES:
            lines.append(f"  ... and {len(items) - IMPACT_LINES} more (--format json lists all)")
    if impact.tests:
        lines.append("run: pytest " + " ".join(test_ids(impact.tests)))
    return lines


def to_text(pack: ContextPack) -> str:
    """A terminal-friendly answer: ranked anchors, scores and reasons, then the shown code."""
    lines = [f"{pack.mode}: {pack.query}", f"{len(pack.symbols)} symbols, {pack.used_tokens}/{pack.budget_tokens} tokens"]
    lines += [f"note: {n}" for n in pack.notes]
    if pack.impact is not None:
        lines += impact_text(pack.impact)
    for rank, s in enumerate(pack.symbols, start=1):
        sym = s.symbol
        lines.append("")
        lines.append(f"{rank:>3}. {sym.path}:{sym.start_line}  {sym.name}  ({sym.kind}, score {s.score:.3f})")
        lines.append(f"     {'; '.join(s.reasons)}")
        body = s.body if s.body is not None else header(s.symbol)
        lines += [f"     | {line}" for line in body.splitlines()]
    return "\n".join(lines)


def to_markdown(pack: ContextPack) -> str:
    """A Markdown report: a ranked table, then each symbol's code under its anchor."""
    out = [f"# mnemo: {_md(pack.query)}", "",
           f"{len(pack.symbols)} symbols, {pack.used_tokens} of {pack.budget_tokens} tokens", ""]
    out += [f"> {_md(n)}" for n in pack.notes]
    if pack.impact is not None:
        out += impact_markdown(pack.impact)
    out += ["| # | symbol | where | score | why |", "|---|---|---|---|---|"]
    for rank, s in enumerate(pack.symbols, start=1):
        sym = s.symbol
        out.append(f"| {rank} | `{_code(sym.name)}` | `{_code(sym.path)}:{sym.start_line}` | {s.score:.3f} "
                   f"| {_md('; '.join(s.reasons))} |")
    for rank, s in enumerate(pack.symbols, start=1):
        sym = s.symbol
        out += ["", f"## {rank}. `{_code(sym.name)}` — `{_code(sym.path)}:{sym.start_line}-{sym.end_line}`", "",
                f"```{sym.language}", s.body if s.body is not None else header(s.symbol), "```"]
    return "\n".join(out) + "\n"


def impact_markdown(impact: Impact) -> list[str]:
    """The impact section as Markdown: verdict, reasons, changed symbols, collapsible lists."""
    out = [f"**Risk: {impact.risk}** · {len(impact.changed)} changed · {len(impact.callers)} impacted · "
           f"{len(impact.tests)} tests", ""]
    out += [f"- {_md(r)}" for r in impact.reasons] + [""]
    out += ["| changed | where | what |", "|---|---|---|"]
    out += [f"| `{_code(s.symbol.name)}` | `{_code(s.symbol.path)}:{s.symbol.start_line}` | {_md('; '.join(s.reasons))} |"
            for s in impact.changed]
    for title, items in (("Impacted symbols", impact.callers), ("Impacted tests", impact.tests)):
        out += ["", f"<details><summary>{title} ({len(items)})</summary>", ""]
        out += [f"- `{_code(s.symbol.name)}` `{_code(s.symbol.path)}:{s.symbol.start_line}` — {_md('; '.join(s.reasons))}"
                for s in items]
        out += ["", "</details>"]
    if impact.tests:
        out += ["", "```", "pytest " + " ".join(test_ids(impact.tests)), "```"]
    return out + [""]


def explanation_text(e: Explanation) -> str:
    """``mnemo why``: every part of one symbol's score."""
    sym = e.symbol
    rank = f"rank {e.rank} of {e.candidates} candidates" if e.rank else f"not ranked ({e.candidates} candidates)"
    lines = [f"{sym.key}  ({sym.path}:{sym.start_line}, {sym.kind})", f"task: {e.task}", f"{rank}, score {e.score:.4f}",
             "", "channels (reciprocal-rank fusion):"]
    lines += [f"  {channel:<5} rank {rank_:>3}  {detail}" for channel, rank_, detail in e.channel_hits] or \
        ["  none: no channel matched this symbol"]
    lines += [f"  fused seed score {e.seed_score:.6f}", "", "graph:",
              f"  walk probability {e.walk_score:.6f}" + (f" (rank {e.walk_rank} in the walk)" if e.walk_rank else ""),
              f"  hops from the seeds {e.hops if e.hops is not None else 'not reached'}",
              f"  authority {e.authority:.4f}, hub {e.hub:.4f}", "", "components (value x weight = contribution):"]
    lines += [f"  {c.name:<10} {c.value:>7.4f} x {c.weight:>5.2f} = {c.contribution:>7.4f}" for c in e.contributions]
    lines += [f"  x {factor:.2f}  ({MULTIPLIER_NAMES.get(name, name)})" for name, factor in e.multipliers.items()]
    lines += ["", f"recency: {e.recency}"]
    lines += [f"note: {n}" for n in e.notes]
    return "\n".join(lines)


def explanation_json(e: Explanation) -> dict[str, Any]:
    """``mnemo why --format json``."""
    return {
        "schema": SCHEMA, "symbol": {"path": e.symbol.path, "name": e.symbol.name, "kind": e.symbol.kind,
                                     "start_line": e.symbol.start_line, "end_line": e.symbol.end_line},
        "task": e.task, "rank": e.rank, "candidates": e.candidates, "score": e.score,
        "components": {c.name: {"value": c.value, "weight": c.weight, "contribution": c.contribution}
                       for c in e.contributions},
        "channels": [{"channel": c, "rank": r, "detail": d} for c, r, d in e.channel_hits],
        "seed_score": e.seed_score, "walk": {"score": e.walk_score, "rank": e.walk_rank, "hops": e.hops},
        "authority": e.authority, "hub": e.hub, "multipliers": dict(e.multipliers), "recency": e.recency, "notes": list(e.notes),
    }


def _md(text: str) -> str:
    """Escape text for a Markdown table cell or paragraph (no HTML, no table breaks)."""
    for char in "\\`*_[]<>|#":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def _code(text: str) -> str:
    return text.replace("`", "'").replace("|", "\\|")
