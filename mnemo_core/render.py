"""Rendering of answers: JSON (the contract every front end shares), Markdown and plain text."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.index.languages.naming import display_name
from mnemo_core.model import (
    ContextPack,
    Explanation,
    Feedback,
    Impact,
    IndexStats,
    LeftReference,
    ScoredSymbol,
    Symbol,
    symbol_test_id,
)
from mnemo_core.retrieve.snippets import header

if TYPE_CHECKING:
    from mnemo_core.lookup import Hop
    from mnemo_core.semantic.vectors import VectorStats
    from mnemo_core.symbol_history import SymbolHistory

SCHEMA = 1
IMPACT_LINES = 25  # per list in text output; JSON lists everything
POSSIBLE_LINES = 5  # possible callers and tests (reached only through a guess) shown in text and Markdown
POSSIBLE_CALLERS = "through a name guess"  # how a caller or test comes to be only possible
UNSEEN = "through a change importers cannot see"  # an importer of a module whose private code alone changed
POSSIBLE_TESTS = "through a name guess or a stated fallback"
MAX_TEST_TARGETS = 40  # more tests than this: the suggested command names their files, then none at all
MAX_COMMAND_CHARS = 2000  # a suggested command longer than this falls back the same way
JSON_LISTS_ALL = "--format json lists all"  # where the CLI's text sends a reader for a cut list
MULTIPLIER_NAMES = {
    "test": "test code, and the task is not about tests",
    "kind": "kind prior",
    "declaration": "a declaration without the implementation (overload or stub)",
    "useless": "said useless for a similar past task",
    "generated": "build output (a bundle under dist/ or build/), and the task does not name it",
    "vendored": "vendored code (vendor/, third_party/), and the task does not name it",
    "minified": "minified code (*.min.js, or lines a minifier writes), and the task does not name it",
    "type": "a type: its methods are where changes land",
    "size": "the function's length: changes land in long functions more often than in one-liners",
    "named": "the task names it as code is written",
}


def symbol_json(s: ScoredSymbol) -> dict[str, Any]:
    """One ranked symbol in the JSON contract's shape."""
    sym = s.symbol
    return {
        "path": sym.path,
        "name": sym.name,
        "display_name": display_name(sym),
        "kind": sym.kind,
        "language": sym.language,
        "start_line": sym.start_line,
        "end_line": sym.end_line,
        "signature": sym.signature,
        "score": s.score,
        "tokens": s.tokens,
        "distance": s.distance,
        "is_test": sym.is_test,
        "changed": s.changed,
        "components": dict(s.components),
        "reasons": list(s.reasons),
        "docstring": sym.docstring,
        "body": s.body,
    } | _evidence_json(s)


def _evidence_json(s: ScoredSymbol) -> dict[str, Any]:
    """Added fields: how an impacted symbol was reached; which tests reach a changed one; which tests
    a test file made at run time reach the change (``runs``)."""
    data: dict[str, Any] = {}
    if s.evidence is not None:
        data.update(
            resolution=s.evidence.resolution,
            confidence=s.evidence.confidence,
            evidence=s.evidence.path,
            possible=s.evidence.possible,
            source=s.evidence.source,
        )
    if s.changed:
        data.update(reached_by=list(s.reached_by), possibly_reached_by=list(s.possibly_reached_by))
    if s.runs:
        data["runs"] = list(s.runs)
    return data


def impact_json(impact: Impact) -> dict[str, Any]:
    """The impact section of the contract."""
    return {
        "changed": [symbol_json(s) for s in impact.changed],
        "callers": [symbol_json(s) for s in impact.callers],
        "tests": [symbol_json(s) for s in impact.tests],
        "risk": impact.risk,
        "reasons": list(impact.reasons),
        "changed_files": list(impact.changed_files),
        "possible_callers": [symbol_json(s) for s in impact.possible_callers],
        "possible_tests": [symbol_json(s) for s in impact.possible_tests],
        "left_references": [left_reference_json(r) for r in impact.left_references],
    }


def left_reference_json(r: LeftReference) -> dict[str, Any]:
    """A line a change left using the old name of a symbol it deleted or renamed."""
    return {"name": r.name, "path": r.path, "line": r.line, "scope": r.scope}


def pack_json(pack: ContextPack) -> dict[str, Any]:
    """A whole answer as the JSON contract (``schema`` 1)."""
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "mode": pack.mode,
        "query": pack.query,
        "repo": pack.repo,
        "commit": pack.commit,
        "budget_tokens": pack.budget_tokens,
        "used_tokens": pack.used_tokens,
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


def test_id(test: ScoredSymbol) -> str:
    """A runnable test id (see ``symbol_test_id``)."""
    return symbol_test_id(test.symbol)


def test_ids(tests: Iterable[ScoredSymbol]) -> list[str]:
    """The tests' runnable ids (see ``test_id``), each once; a test file by the ids of the tests it
    made at run time that coverage data saw reach the change (``path::TestPlugin_table``), if any."""
    return list(dict.fromkeys(i for t in tests for i in (t.runs or (test_id(t),))))


def tests_format(tests: Sequence[ScoredSymbol]) -> str:
    """How ``mnemo tests`` prints tests by default: pytest node ids for Python's, ``go test``'s
    arguments for Go's (:func:`go_test_args`), else their files (``mocha $(mnemo tests)``)."""
    if all(t.symbol.path.endswith(".py") for t in tests):
        return "pytest"
    return "go" if go_test_args(tests) is not None else "files"


def go_test_args(tests: Sequence[ScoredSymbol]) -> str | None:
    """``go test``'s arguments for Go test functions: ``-run ^(TestA|TestB)$ ./pkg ./other``; None
    when some test is no top-level ``Test`` function of a ``_test.go`` file (a suite's method runs
    under its runner)."""
    names = dict.fromkeys(t.symbol.name for t in tests)
    if (
        not names
        or any("." in n for n in names)
        or not all(t.symbol.path.endswith("_test.go") for t in tests)
    ):
        return None
    packages = dict.fromkeys("./" + d if (d := t.symbol.path.rpartition("/")[0]) else "." for t in tests)
    return f"-run ^({'|'.join(names)})$ {' '.join(packages)}"


def tests_json(tests: Iterable[ScoredSymbol]) -> list[dict[str, Any]]:
    """``mnemo tests --format json``: each impacted test with its runnable id, its reasons and how it
    reaches the change (its path and that path's least sure link)."""
    return [
        {"path": t.symbol.path, "name": t.symbol.name, "id": test_id(t), "reasons": list(t.reasons)}
        | _evidence_json(t)
        for t in tests
    ]


def tests_answer_json(tests: Iterable[ScoredSymbol]) -> dict[str, Any]:
    """``mnemo tests --format json`` and the MCP tool ``impacted_tests``: schema 1 and the tests."""
    return {"schema": SCHEMA, "tests": tests_json(tests)}


def pytest_command(tests: Sequence[ScoredSymbol]) -> str | None:
    """A ready-to-run pytest command for the Python tests among ``tests`` (None when there are none):
    their node ids, or their files when there are many, or the whole suite when even those are many."""
    python = [t for t in tests if t.symbol.language == "python"]
    if not python:
        return None
    for targets in (test_ids(python), list(dict.fromkeys(t.symbol.path for t in python))):
        command = " ".join(["pytest", *(shlex.quote(plain_text(t)) for t in targets)])
        if len(targets) <= MAX_TEST_TARGETS and len(command) <= MAX_COMMAND_CHARS:
            return command
    return "pytest"


def impact_text(impact: Impact, more: str = JSON_LISTS_ALL) -> list[str]:
    """The impact section for a terminal; a cut list says ``more`` (where the rest is)."""
    lines = [f"risk: {impact.risk}"] + [f"  - {r}" for r in impact.reasons]
    for title, items in (("changed", impact.changed), ("callers", impact.callers), ("tests", impact.tests)):
        lines.append(f"{title} ({len(items)}):")
        lines += [impact_line(s) for s in items[:IMPACT_LINES]]
        if len(items) > IMPACT_LINES:
            lines.append(f"  ... and {len(items) - IMPACT_LINES} more ({more})")
    for title, how, items in (
        ("callers", possible_callers_how(impact.possible_callers), impact.possible_callers),
        ("tests", POSSIBLE_TESTS, impact.possible_tests),
    ):
        if items:
            lines.append(f"possible {title}, {how}, not counted ({len(items)}):")
            lines += [possible_line(s) for s in items[:POSSIBLE_LINES]]
            if len(items) > POSSIBLE_LINES:
                lines.append(f"  ... and {len(items) - POSSIBLE_LINES} more ({more})")
    command = pytest_command(impact.tests)
    if command:
        lines.append(f"run: {command}")
    return lines


def impact_line(s: ScoredSymbol) -> str:
    """One changed symbol, caller or test in the impact section for a terminal."""
    return f"  {s.symbol.path}:{s.symbol.start_line}  {display_name(s.symbol)}  {'; '.join(s.reasons)}"


def possible_line(s: ScoredSymbol) -> str:
    """One possible caller or test in the impact section for a terminal."""
    return f"  {s.symbol.path}:{s.symbol.start_line}  {display_name(s.symbol)}"


def to_text(pack: ContextPack, more: str = JSON_LISTS_ALL) -> str:
    """A terminal-friendly answer: ranked anchors, scores and reasons, then the shown code; a cut
    list of the impact says ``more`` (where the rest is)."""
    lines = [
        f"{pack.mode}: {pack.query}",
        f"{len(pack.symbols)} symbols, {pack.used_tokens}/{pack.budget_tokens} tokens",
    ]
    lines += [f"note: {n}" for n in pack.notes]
    if pack.impact is not None:
        lines += impact_text(pack.impact, more)
    for rank, s in enumerate(pack.symbols, start=1):
        lines += symbol_lines(rank, s)
    return "\n".join(lines)


def symbol_lines(rank: int, s: ScoredSymbol) -> list[str]:
    """One ranked symbol for a terminal: a blank line, its anchor, its reasons and its shown code."""
    sym = s.symbol
    body = s.body if s.body is not None else header(s.symbol)
    return [
        "",
        f"{rank:>3}. {sym.path}:{sym.start_line}  {display_name(sym)}  ({sym.kind}, score {s.score:.3f})",
        f"     {'; '.join(s.reasons)}",
        *(f"     | {line}" for line in body.splitlines()),
    ]


def shown_header(symbol: Symbol) -> str:
    """What shows a symbol whose source does not fit: its signature and docstring."""
    return header(symbol)


def to_markdown(pack: ContextPack) -> str:
    """A Markdown report: a ranked table, then each symbol's code under its anchor."""
    out = [
        f"# mnemo: {md_text(pack.query)}",
        "",
        f"{len(pack.symbols)} symbols, {pack.used_tokens} of {pack.budget_tokens} tokens",
        "",
    ]
    out += [f"> {md_text(n)}" for n in pack.notes]
    if pack.impact is not None:
        out += impact_markdown(pack.impact)
    out += ["| # | symbol | where | score | why |", "|---|---|---|---|---|"]
    for rank, s in enumerate(pack.symbols, start=1):
        sym = s.symbol
        where = md_code(f"{sym.path}:{sym.start_line}", table=True)
        out.append(
            f"| {rank} | {md_code(display_name(sym), table=True)} | {where} | {s.score:.3f} "
            f"| {md_text('; '.join(s.reasons))} |"
        )
    for rank, s in enumerate(pack.symbols, start=1):
        sym = s.symbol
        where = md_code(f"{sym.path}:{sym.start_line}-{sym.end_line}")
        out += [
            "",
            f"## {rank}. {md_code(display_name(sym))} — {where}",
            "",
            *md_fence(s.body if s.body is not None else header(s.symbol), sym.language),
        ]
    return "\n".join(out) + "\n"


def impact_markdown(impact: Impact) -> list[str]:
    """The impact section as Markdown: verdict, reasons, changed symbols, collapsible lists."""
    out = [
        f"**Risk: {impact.risk}** · {len(impact.changed)} changed · {len(impact.callers)} impacted · "
        f"{len(impact.tests)} tests",
        "",
    ]
    out += [f"- {md_text(r)}" for r in impact.reasons] + [""]
    out += ["| changed | where | what |", "|---|---|---|"]
    for s in impact.changed:
        where = md_code(f"{s.symbol.path}:{s.symbol.start_line}", table=True)
        out.append(f"| {md_code(s.symbol.name, table=True)} | {where} | {md_text('; '.join(s.reasons))} |")
    for title, items in (("Impacted symbols", impact.callers), ("Impacted tests", impact.tests)):
        out += ["", f"<details><summary>{title} ({len(items)})</summary>", ""]
        out += [
            f"- {md_code(s.symbol.name)} {md_code(f'{s.symbol.path}:{s.symbol.start_line}')} — "
            f"{md_text('; '.join(s.reasons))}"
            for s in items
        ]
        out += ["", "</details>"]
    out += _possible_markdown(impact)
    command = pytest_command(impact.tests)
    if command:
        out += ["", *md_fence(command, "sh")]
    return [*out, ""]


def possible_callers_how(callers: Sequence[ScoredSymbol]) -> str:
    """How the possible callers came to be possible: a name guess, or an import of a module whose
    change touches only its imports, comments or private names (the import edge is sure; nothing it
    can read changed)."""
    hows = {UNSEEN if s.evidence and s.evidence.resolution == "import" else POSSIBLE_CALLERS for s in callers}
    return " or ".join(sorted(hows, key=(POSSIBLE_CALLERS, UNSEEN).index))


def _possible_markdown(impact: Impact) -> list[str]:
    """One short line per list of possible callers and tests (reached only through a name guess, or
    a stated fallback's tests)."""
    out = []
    for title, how, items in (
        ("callers", possible_callers_how(impact.possible_callers), impact.possible_callers),
        ("tests", POSSIBLE_TESTS, impact.possible_tests),
    ):
        if items:
            names = ", ".join(md_code(s.symbol.name) for s in items[:POSSIBLE_LINES])
            more = f" and {len(items) - POSSIBLE_LINES} more" if len(items) > POSSIBLE_LINES else ""
            out += ["", f"Possible {title} ({len(items)}, {how}, not counted): {names}{more}"]
    return out


def explanation_text(e: Explanation) -> str:
    """``mnemo why``: every part of one symbol's score."""
    sym = e.symbol
    rank = (
        f"rank {e.rank} of {e.candidates} candidates" if e.rank else f"not ranked ({e.candidates} candidates)"
    )
    lines = [
        f"{sym.key}  ({sym.path}:{sym.start_line}, {sym.kind})",
        f"task: {e.task}",
        f"{rank}, score {e.score:.4f}",
        "",
        "channels (reciprocal-rank fusion):",
    ]
    lines += [f"  {channel:<5} rank {rank_:>3}  {detail}" for channel, rank_, detail in e.channel_hits] or [
        "  none: no channel matched this symbol"
    ]
    lines += [
        f"  fused seed score {e.seed_score:.6f}",
        "",
        "graph:",
        f"  walk probability {e.walk_score:.6f}"
        + (f" (rank {e.walk_rank} in the walk)" if e.walk_rank else ""),
        f"  hops from the seeds {e.hops if e.hops is not None else 'not reached'}",
        f"  authority {e.authority:.4f}, hub {e.hub:.4f}",
        "",
        "components (value x weight = contribution):",
    ]
    lines += [
        f"  {c.name:<10} {c.value:>7.4f} x {c.weight:>5.2f} = {c.contribution:>7.4f}" for c in e.contributions
    ]
    lines += [
        f"  x {factor:.2f}  ({MULTIPLIER_NAMES.get(name, name)})" for name, factor in e.multipliers.items()
    ]
    lines += ["", f"recency: {e.recency}"]
    lines += [f"note: {n}" for n in e.notes]
    return "\n".join(lines)


def explanation_json(e: Explanation) -> dict[str, Any]:
    """``mnemo why --format json``."""
    return {
        "schema": SCHEMA,
        "symbol": {
            "path": e.symbol.path,
            "name": e.symbol.name,
            "kind": e.symbol.kind,
            "start_line": e.symbol.start_line,
            "end_line": e.symbol.end_line,
        },
        "task": e.task,
        "rank": e.rank,
        "candidates": e.candidates,
        "score": e.score,
        "components": {
            c.name: {"value": c.value, "weight": c.weight, "contribution": c.contribution}
            for c in e.contributions
        },
        "channels": [{"channel": c, "rank": r, "detail": d} for c, r, d in e.channel_hits],
        "seed_score": e.seed_score,
        "walk": {"score": e.walk_score, "rank": e.walk_rank, "hops": e.hops},
        "authority": e.authority,
        "hub": e.hub,
        "multipliers": dict(e.multipliers),
        "recency": e.recency,
        "notes": list(e.notes),
    }


def index_symbol_json(symbol: Symbol) -> dict[str, Any]:
    """A symbol of the index (not ranked) in the JSON contract's shape (``find``, ``callers``)."""
    return {
        "path": symbol.path,
        "name": symbol.name,
        "kind": symbol.kind,
        "language": symbol.language,
        "start_line": symbol.start_line,
        "end_line": symbol.end_line,
        "signature": symbol.signature,
        "is_test": symbol.is_test,
    }


def find_json(pattern: str, symbols: Sequence[Symbol]) -> dict[str, Any]:
    """``mnemo find --format json``: the pattern and the symbols it matched."""
    return {"schema": SCHEMA, "query": pattern, "symbols": [index_symbol_json(s) for s in symbols]}


def index_run_json(root: Path, stats: IndexStats, vectors: VectorStats | None = None) -> dict[str, Any]:
    """``mnemo index --format json``: what one run of the indexer did (``vectors``: what the
    semantic channel's step did, null without the extra or with ``--no-vectors``)."""
    return {
        "schema": SCHEMA,
        "repo": str(root),
        **asdict(stats),
        "vectors": asdict(vectors) if vectors is not None else None,
    }


def index_stats_json(stats: Mapping[str, Any]) -> dict[str, Any]:
    """``mnemo stats --format json``: what the index holds."""
    return {"schema": SCHEMA, **stats}


def walk_json(start: Sequence[Symbol], hops: Sequence[Hop], direction: str) -> dict[str, Any]:
    """``mnemo callers`` / ``mnemo callees`` as JSON: the symbols walked from and each hop reached
    (``direction`` is ``in`` for callers, ``out`` for callees)."""
    return {
        "schema": SCHEMA,
        "symbols": [index_symbol_json(s) for s in start],
        "direction": "callers" if direction == "in" else "callees",
        "hops": [
            {
                **index_symbol_json(h.symbol),
                "depth": h.depth,
                "resolution": h.via.resolution,
                "confidence": h.via.confidence,
                "line": h.via.line,
            }
            for h in hops
        ],
    }


def walk_text(start: Sequence[Symbol], hops: Sequence[Hop], direction: str) -> str:
    """``mnemo callers`` / ``mnemo callees`` for a terminal: one line per hop, indented by depth."""
    lines = [f"{s.key}  ({s.path}:{s.start_line})" for s in start]
    lines += [
        f"{'  ' * h.depth}{h.symbol.key}  {h.symbol.path}:{h.symbol.start_line}"
        f"  [{h.via.resolution} {h.via.confidence:.2f}]"
        for h in hops
    ]
    if not hops:
        lines.append(f"  no {'callers' if direction == 'in' else 'callees'} in the index")
    return "\n".join(lines)


def history_json(histories: Sequence[SymbolHistory]) -> dict[str, Any]:
    """``mnemo history`` as JSON: for each symbol the name matched, the commits that changed its
    lines, newest first."""
    return {"schema": SCHEMA, "histories": [_history_json(h) for h in histories]}


def _history_json(history: SymbolHistory) -> dict[str, Any]:
    return {
        "symbol": index_symbol_json(history.symbol),
        "commits": [
            {
                "sha": c.sha,
                "author": c.author,
                "author_email": c.author_email,
                "date": datetime.fromtimestamp(c.time, timezone.utc).isoformat(),
                "subject": c.subject,
                "path": c.path,
                "pull_request": c.pull_request,
            }
            for c in history.commits
        ],
        "notes": list(history.notes),
    }


def history_text(history: SymbolHistory) -> str:
    """``mnemo history`` for a terminal: one line per commit, newest first."""
    symbol = history.symbol
    lines = [f"{symbol.key}  ({symbol.kind}, {symbol.path}:{symbol.start_line}-{symbol.end_line})"]
    for c in history.commits:
        day = datetime.fromtimestamp(c.time, timezone.utc).date().isoformat()
        where = f"  [{c.path}]" if c.path != symbol.path else ""
        lines.append(
            f"  {c.sha[:10]}  {day}  {plain_text(c.author, 40)}  {plain_text(c.subject, 100)}{where}"
        )
    if not history.commits:
        lines.append("  no commits changed these lines")
    lines += [f"note: {n}" for n in history.notes]
    return "\n".join(lines)


# Markdown that renders untrusted text (names, paths, commit subjects, author names) as plain text:
# block and inline syntax, HTML and entities are backslash-escaped, and mentions, issue references and
# autolinks are broken with a zero-width space so a comment cannot ping people or link other threads.
MD_SPECIAL = frozenset("\\`*_[]<>|#!~&$")
ZWSP = "\u200b"
_UNSAFE_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BLOCK_START = re.compile(r"^([-+=])|^(\d+)([.)])")  # a list item or setext underline at the start
_LINK_TRIGGERS = (
    ("@", "@" + ZWSP),
    ("\\#", "\\#" + ZWSP),
    ("://", ":" + ZWSP + "//"),
    ("www.", "www" + ZWSP + "."),
)
ELLIPSIS = "\u2026"


def plain_text(text: str, limit: int | None = None) -> str:
    """One line of text without control or bidirectional-override characters, cut to ``limit``."""
    text = _UNSAFE_CHARS.sub(" ", text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + ELLIPSIS
    return text


def md_text(text: str, limit: int | None = None) -> str:
    """Untrusted text for a Markdown paragraph, list item or table cell: rendered as it reads."""
    escaped = "".join("\\" + c if c in MD_SPECIAL else c for c in plain_text(text, limit))
    for pattern, broken in _LINK_TRIGGERS:
        escaped = escaped.replace(pattern, broken)
    return _BLOCK_START.sub(lambda m: "\\" + m[1] if m[1] else f"{m[2]}\\{m[3]}", escaped)


def md_code(text: str, limit: int | None = None, table: bool = False) -> str:
    """Untrusted text as an inline code span (backticks included); ``table`` escapes ``|`` for a cell."""
    body = plain_text(text, limit).replace("`", "'") or " "
    if table:
        body = body.replace("|", "\\|")
    return f"`{body}`"


def md_fence(body: str, info: str = "") -> list[str]:
    """A fenced code block that no run of backticks inside ``body`` can close early."""
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def feedback_json(feedback: Feedback) -> dict[str, Any]:
    """``mnemo feedback --format json``: what was remembered for the task."""
    return {
        "schema": SCHEMA,
        "task": feedback.task,
        "used": [index_symbol_json(s) for s in feedback.used],
        "useless": [index_symbol_json(s) for s in feedback.useless],
    }


def feedback_text(feedback: Feedback) -> str:
    """``mnemo feedback``: one line per symbol remembered."""
    lines = [f"remembered for the task {feedback.task!r}:"]
    lines += [f"  useful   {s.key}  ({s.path}:{s.start_line})" for s in feedback.used]
    lines += [f"  useless  {s.key}  ({s.path}:{s.start_line})" for s in feedback.useless]
    return "\n".join(lines)
