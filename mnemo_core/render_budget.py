"""Answers that keep to their budget: an MCP tool or an LSP command given ``budget`` tokens answers
in at most that many, in its text and in its structured content alike (one implementation for both
front ends; each says in its own words, through ``more``, how to ask for what was left out).

The engine packs the code of the ranked symbols into a share of the budget (``CODE_SHARE``); what
surrounds it (anchors, reasons, score components, the impact's lists) is fitted here. Each list
of the answer is cut to a prefix, the lists taken in order of what an agent needs most (the
changed symbols, the ranked code, the callers, the tests, then the guesses), each item costing
what its JSON and its text lines cost; the answer then says what it left out (how many of each)
and how to ask for it. Tokens are counted the way the packer counts (``mnemo_core.tokens``), and
never fewer than one per ``CHARS_PER_TOKEN`` characters, so a client counting characters agrees.
The structured content is measured as ``json.dumps`` writes it (with its spaces), a little more
than the compact wire form.

An item of the impact's lists is slimmed first: it leaves out the parts an agent reads elsewhere
(its docstring, its score components: ``explain`` has them). A ranked symbol lists only its score
components that are not zero, and leaves out its docstring when its whole source, which holds it,
is shown. Either one's lists of the tests reaching it
keep the first ``REACHED_SHOWN`` ids and say how many there are (``impacted_tests`` lists them all).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mnemo_core.model import ContextPack, Impact, ScoredSymbol
from mnemo_core.render import (
    IMPACT_LINES,
    POSSIBLE_LINES,
    impact_line,
    left_reference_json,
    pack_json,
    possible_line,
    shown_header,
    symbol_json,
    symbol_lines,
    to_text,
)
from mnemo_core.tokens import estimate_tokens

CHARS_PER_TOKEN = 4  # the rule of thumb clients count with; on code the estimator counts fewer
# Of the budget, for source; the rest frames it (anchors, reasons, scores: ~150 tokens a symbol in
# JSON). Measured on flask at budgets 2,000 and 8,000: a larger share shows fewer symbols, not more code.
CODE_SHARE = {"task": 0.3, "pr": 0.3, "files": 0.3}
IMPACT_LISTS = ("changed", "changed_files", "callers", "tests", "left_references")
GUESS_LISTS = ("possible_callers", "possible_tests")
ORDER = ("changed", "symbols", "changed_files", "callers", "tests", "left_references", *GUESS_LISTS)
LIST_NAMES = {  # how the summary names each list's left-out items
    "symbols": "ranked symbols",
    "changed": "changed symbols",
    "changed_files": "changed files",
    "callers": "impacted callers",
    "tests": "impacted tests",
    "left_references": "lines still using a removed name",
    "possible_callers": "possible callers",
    "possible_tests": "possible tests",
}
REACHED_SHOWN = 5  # test ids kept per changed symbol; a widely used one is reached by hundreds
REACHED_LISTS = ("reached_by", "possibly_reached_by", "runs")
SLIMMED = ("docstring", "components", "body")  # left out of an impact item: read elsewhere
SHOWN_HERE = "the structured content lists those shown"  # a text list cut shorter than the JSON's

Answer = tuple[dict[str, Any], str]  # the JSON answer and its text rendering


def tokens(text: str) -> int:
    """What ``text`` costs a client: the packer's estimate, and at least a token per 4 characters."""
    return max(estimate_tokens(text), math.ceil(len(text) / CHARS_PER_TOKEN))


def json_tokens(payload: object) -> int:
    """What a JSON value costs a client (see :func:`tokens`)."""
    return tokens(json.dumps(payload, ensure_ascii=False))


def code_budget(mode: str, budget: int) -> int:
    """The share of ``budget`` the engine may fill with source."""
    return max(1, int(budget * CODE_SHARE[mode]))


@dataclass(frozen=True, slots=True)
class Fit:
    """A pack cut to a budget: what is shown, and how many items of each list were left out."""

    pack: ContextPack
    omitted: dict[str, int]


@dataclass(frozen=True, slots=True)
class Fitted:
    """A fitted answer: its JSON and text, the pack they show, and what was left out of it."""

    payload: dict[str, Any]
    text: str
    fit: Fit

    @property
    def answer(self) -> Answer:
        """The JSON answer and its text rendering."""
        return self.payload, self.text


def fit_pack(pack: ContextPack, budget: int, more: Callable[[Fit], str | None]) -> Answer:
    """``pack`` as JSON and text, each within ``budget`` tokens (see :func:`fit_answer`)."""
    return fit_answer(pack, budget, more).answer


def next_offset(fit: Fit, pack: ContextPack) -> int | None:
    """The ``offset`` of a task's next page: the rank of the last symbol a fit of ``pack`` shows
    (None: no symbol is ranked after it)."""
    shown = fit.pack.symbols
    last = shown[-1].rank if shown else (pack.symbols[0].rank - 1 if pack.symbols else 0)
    return None if last >= pack.stats.get("candidates", 0) else last


def left_out_line(fit: Fit, budget: int) -> str | None:
    """``left out to keep within N tokens: 3 ranked symbols, ...`` (None when nothing was)."""
    if not fit.omitted:
        return None
    left = ", ".join(f"{count} {LIST_NAMES[name]}" for name, count in fit.omitted.items())
    return f"left out to keep within {budget} tokens: {left}"


def fit_answer(pack: ContextPack, budget: int, more: Callable[[Fit], str | None]) -> Fitted:
    """``pack`` as JSON and text, each within ``budget`` tokens; ``more`` says how to ask for what
    a fit left out (JSON ``more``, and a ``more:`` line of the text). Lists are cut greedily by
    their items' costs, then, should the whole still pass the budget (the costs are estimates),
    one item at a time from the least needed list. A ranked symbol whose source no longer fits is
    shown by its header, if that fits.
    The lists are filled in rounds, an item of each in turn, so a long list of changed symbols
    leaves room for their callers and tests."""
    lists = _lists(pack)
    frame = _render(Fit(_cut(pack, dict.fromkeys(lists, 0)), _counts(lists)), more, budget)
    room = [budget - json_tokens(frame[0]), budget - tokens(frame[1])]
    kept = dict.fromkeys(ORDER, 0)
    symbols = list(pack.symbols)
    costs = {name: _costs(name, lists[name]) for name in ORDER}
    open_lists = [name for name in ORDER if lists[name]]
    while open_lists:  # a round takes the next item of each list still open, in ORDER
        for name in list(open_lists):
            cost = next(costs[name], None)
            if name == "symbols" and cost and not _fits(cost, room) and symbols[kept[name]].body is not None:
                symbols[kept[name]] = _as_header(symbols[kept[name]])  # its header may still fit
                cost = _symbol_cost(symbols[kept[name]])
            if cost is None or not _fits(cost, room):
                open_lists.remove(name)
                continue
            room = [room[0] - cost[0], room[1] - cost[1]]
            kept[name] += 1
    pack = replace(pack, symbols=tuple(symbols))
    while True:
        fit = Fit(_cut(pack, kept), {n: len(lists[n]) - kept[n] for n in ORDER if len(lists[n]) > kept[n]})
        payload, text = _render(fit, more, budget)
        if (json_tokens(payload) <= budget and tokens(text) <= budget) or not any(kept.values()):
            return Fitted(payload, text, fit)
        least = next(n for n in reversed(ORDER) if kept[n])
        kept[least] -= 1


def _lists(pack: ContextPack) -> dict[str, Sequence[Any]]:
    impact = pack.impact or Impact()
    return {"symbols": pack.symbols} | {name: getattr(impact, name) for name in (*IMPACT_LISTS, *GUESS_LISTS)}


def _counts(lists: dict[str, Sequence[Any]]) -> dict[str, int]:
    return {name: len(items) for name, items in lists.items() if items}


def _cut(pack: ContextPack, kept: dict[str, int]) -> ContextPack:
    symbols = pack.symbols[: kept["symbols"]]
    used = sum(s.tokens for s in symbols)
    if pack.impact is None:
        return replace(pack, symbols=symbols, used_tokens=used)
    names = (*IMPACT_LISTS, *GUESS_LISTS)
    impact = replace(pack.impact, **{n: getattr(pack.impact, n)[: kept[n]] for n in names})
    return replace(pack, symbols=symbols, used_tokens=used, impact=impact)


def _costs(name: str, items: Sequence[Any]) -> Iterator[tuple[int, int]]:
    """Each item's cost in the JSON (with its separator) and in the text (with its line break)."""
    for position, item in enumerate(items):
        if name == "symbols":
            yield _symbol_cost(item)
        elif name == "changed_files":
            yield json_tokens(item) + 1, 0
        elif name == "left_references":
            yield json_tokens(left_reference_json(item)) + 1, 0
        else:
            yield json_tokens(impact_item_json(item)) + 1, _text_cost(name, position, item)


def _symbol_cost(s: ScoredSymbol) -> tuple[int, int]:
    return json_tokens(ranked_json(s)) + 1, tokens("\n".join(symbol_lines(1, s))) + 1


def _as_header(s: ScoredSymbol) -> ScoredSymbol:
    """A ranked symbol shown by its signature and docstring only."""
    return replace(s, body=None, tokens=estimate_tokens(shown_header(s.symbol)))


def _fits(cost: tuple[int, int], room: list[int]) -> bool:
    return cost[0] <= room[0] and cost[1] <= room[1]


def _text_cost(name: str, position: int, item: ScoredSymbol) -> int:
    """What an impact item's line costs the text, which shows the first few of each list."""
    if name in GUESS_LISTS:
        return tokens(possible_line(item)) + 1 if position < POSSIBLE_LINES else 0
    return tokens(impact_line(item)) + 1 if position < IMPACT_LINES else 0


def ranked_json(s: ScoredSymbol) -> dict[str, Any]:
    """A ranked symbol in a fitted answer: its components that are not zero, and its docstring
    only when its source is not shown."""
    data = _few_tests(symbol_json(s))
    data["components"] = {name: value for name, value in s.components.items() if value}
    if s.body is not None:
        del data["docstring"]
    return data


def impact_item_json(s: ScoredSymbol) -> dict[str, Any]:
    """An item of the impact in a fitted answer (see the module's docstring)."""
    return _few_tests({key: value for key, value in symbol_json(s).items() if key not in SLIMMED})


def _few_tests(data: dict[str, Any]) -> dict[str, Any]:
    """The first ``REACHED_SHOWN`` ids of each list of tests reaching a symbol, and their count."""
    for key in REACHED_LISTS:
        if len(data.get(key, ())) > REACHED_SHOWN:
            data[f"{key}_count"] = len(data[key])
            data[key] = data[key][:REACHED_SHOWN]
    return data


def _render(fit: Fit, more: Callable[[Fit], str | None], budget: int) -> Answer:
    payload = pack_json(fit.pack)
    payload["symbols"] = [ranked_json(s) for s in fit.pack.symbols]
    if fit.pack.impact is not None:
        for name in ("changed", "callers", "tests", *GUESS_LISTS):
            payload["impact"][name] = [impact_item_json(s) for s in getattr(fit.pack.impact, name)]
    text = to_text(fit.pack, SHOWN_HERE)
    hint = more(fit)
    if (left := left_out_line(fit, budget)) is not None:
        payload["omitted"] = dict(fit.omitted)
        text += f"\n\n{left}"
    if hint:
        payload["more"] = hint
        text += f"\nmore: {hint}"
    return payload, text
