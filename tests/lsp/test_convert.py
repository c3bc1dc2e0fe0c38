"""The pure converters from engine values to LSP values and Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from lsp_server import convert
from mnemo_core.insight import LastChange, Lens, SymbolCard
from mnemo_core.model import ScoredSymbol, Symbol
from mnemo_core.symbol_history import SymbolHistory
from mnemo_core.vcs.linelog import RangeCommit

ROOT = Path("/work/repo")
A_URI = "file:///work/repo/pkg/a.py"
CHANGE = LastChange(
    sha="abc1234def",
    author="Bo Maker",
    summary="fix *bold* claims",
    time=0,
    relative="3 days ago",
    churn_90d=2,
    uncommitted=False,
)


def symbol(name: str, start: int = 10, end: int = 12, path: str = "pkg/a.py") -> Symbol:
    test = name.startswith("test_")
    return Symbol(
        id=len(name),
        path=path,
        name=name,
        kind="function",
        language="python",
        signature=f"def {name.rsplit('.', 1)[-1]}(x)",
        docstring="",
        start_line=start,
        end_line=end,
        size=40,
        is_test=test,
        is_test_case=test,
        exported=True,
    )


def card(**changes: object) -> SymbolCard:
    fields: dict[str, object] = {
        "symbol": symbol("App.route"),
        "callers": 7,
        "top_callers": (symbol("main", 3, 4), symbol("run", 8, 9)),
        "blast_radius": 12,
        "tests": 1,
        "top_tests": (symbol("test_route", 1, 2, path="tests/test_a.py"),),
        "last_change": CHANGE,
        "history_note": None,
    }
    fields.update(changes)
    return SymbolCard(**fields)  # type: ignore[arg-type]


def test_ranges_count_lines_from_zero() -> None:
    assert convert.symbol_range(symbol("f", 10, 12)) == types.Range(
        start=types.Position(line=9, character=0), end=types.Position(line=12, character=0)
    )
    assert convert.position_line(types.Position(line=0, character=4)) == 1
    assert convert.location(ROOT, symbol("f")).uri == A_URI


def test_a_code_lens_runs_the_blast_radius_at_its_symbol() -> None:
    lines = ["x = 1"] * 9 + ["def f():", "    return 1", ""]
    lens = convert.code_lens(ROOT, Lens(symbol("f", 10, 12), callers=1, tests=0, last_change=None), lines)
    assert lens.range.start == lens.range.end == types.Position(line=9, character=0)
    assert lens.command is not None and lens.command.title == "1 caller · 0 tests"
    assert lens.command.command == "mnemo.blastRadius"
    assert lens.command.arguments == [{"uri": A_URI, "position": {"line": 9, "character": 0}}]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("def f():\n    return 1\n", 1),
        ("@app.route('/f')\n@cache(\n    f=1,\n)\ndef f():\n    return 1\n", 5),  # past every decorator
        ("#[derive(Debug)]\n#[cfg(test)]\nstruct f {}\n", 3),
        ("@Override\npublic void f() {}\n", 2),
        ("@decorator\n", 1),  # nothing names it: its first line
    ],
)
def test_a_lens_stands_on_the_line_naming_its_symbol(source: str, line: int) -> None:
    lines = source.splitlines()
    assert convert.definition_line(symbol("f", 1, len(lines)), lines) == line


def test_the_hover_card() -> None:
    text = convert.card_markdown(ROOT, card(), None, show_history_note=True)
    assert text.split("\n\n") == [
        f"**function** `App.route` · [`pkg/a.py:10`]({A_URI}#L10)",
        "```python\ndef route(x)\n```",
        f"**7 callers**: [`main`]({A_URI}#L3), [`run`]({A_URI}#L8) and 5 more",
        "**Blast radius:** 12 symbols depend on it · **1 test** reaches it: "
        "[`test_route`](file:///work/repo/tests/test_a.py#L1)",
        "**Last change:** 3 days ago · `abc1234` · Bo Maker · fix \\*bold\\* claims · "
        "2 commits on these lines in 90 days",
    ]


def test_the_card_without_history_or_tests() -> None:
    untested = card(last_change=None, history_note="a.py has no committed history yet", tests=0, top_tests=())
    text = convert.card_markdown(ROOT, untested, None, show_history_note=True)
    assert "**no test reaches it**" in text and "**Last change:** a.py has no committed history yet" in text
    no_git = card(last_change=None, history_note="history needs git")
    assert "Last change" not in convert.card_markdown(ROOT, no_git, None, show_history_note=False)


def test_a_quick_card_says_what_it_is_still_counting() -> None:
    quick = card(blast_radius=0, tests=0, top_tests=(), last_change=None, walked=False)
    parts = convert.card_markdown(ROOT, quick, None, show_history_note=True).split("\n\n")
    assert parts[2].startswith("**7 callers**")
    assert parts[3:] == ["**Blast radius, tests and last change:** being counted; hover again to see them"]


def test_a_card_reached_only_dynamically_says_so_instead_of_untested() -> None:
    dynamic = card(tests=0, top_tests=(), dynamic="reached dynamically through FILTERS")
    text = convert.card_markdown(ROOT, dynamic, None, show_history_note=True)
    assert "**no test reaches it statically** (reached dynamically through FILTERS)" in text
    assert "**no test reaches it**" not in text


def test_the_history_lists_the_newest_commits_and_counts_the_rest() -> None:
    day = 86400
    commits = tuple(
        RangeCommit(f"{i}" * 40, f"Dev {i}", "d@x", 1_700_000_000 - i * day, f"change {i}", "pkg/a.py", None)
        for i in range(5)
    )
    hot = SymbolHistory(symbol("App.route"), commits, limited=True)
    text = convert.card_markdown(ROOT, card(), None, show_history_note=True, history=hot)
    assert text.split("\n\n")[-1].split("\n") == [
        "**History:** 5 commits+ changed these lines, newest first",
        "- 2023-11-14 · `0000000` · Dev 0 · change 0",
        "- 2023-11-13 · `1111111` · Dev 1 · change 1",
        "- 2023-11-12 · `2222222` · Dev 2 · change 2",
        "- and 2 more: `mnemo history pkg/a.py:App.route`",
    ]
    merged = RangeCommit("a" * 40, "<b>", "m@x", 0, "Merge pull request #7 from x/y", "pkg/a.py", 7)
    one = convert.history_markdown(SymbolHistory(symbol("f"), (merged,)))
    assert one == (
        "**History:** 1 commit changed these lines, newest first\n"
        "- 1970-01-01 · `aaaaaaa` · \\<b\\> · Merge pull request \\#7 from x/y · #7"
    )
    assert (
        convert.history_markdown(SymbolHistory(symbol("f"), ()))
        == "**History:** no commit changed these lines"
    )
    pending = convert.card_markdown(ROOT, card(), None, show_history_note=True, history_pending=True)
    assert pending.endswith("**History:** being read from git; hover again to see the commits")


def test_an_uncommitted_change() -> None:
    change = LastChange("0" * 40, "Not Committed Yet", "", 0, "now", 0, True)
    assert convert.last_change_line(change) == "uncommitted changes"


def test_the_task_line() -> None:
    scored = ScoredSymbol(symbol("f"), 0.4123, {"lexical": 0.6, "walk": 0.9, "recency": 0.0}, ())
    ranked = "**Task** “fix f”: rank 2 of 9 · score 0.412 · walk 0.90 · lexical 0.60"
    assert convert.task_line("fix f", (2, scored), 9) == ranked
    outside = "**Task** “fix \\*f\\*”: not among the 9 symbols of its context"
    assert convert.task_line("fix *f*", None, 9) == outside
    with_task = convert.card_markdown(ROOT, card(), ("fix f", (2, scored), 9), show_history_note=True)
    assert with_task.endswith(ranked)


def test_escape_keeps_markdown_inert() -> None:
    assert convert.escape("a_b [x](y) <b>|#") == "a\\_b \\[x\\](y) \\<b\\>\\|\\#"
    assert convert.link(ROOT, symbol("a`b")) == f"[`a'b`]({A_URI}#L10)"
