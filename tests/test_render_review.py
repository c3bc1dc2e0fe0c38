"""Tests for mnemo_core/render_review.py and the Markdown helpers of mnemo_core/render.py."""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from pathlib import Path

import pytest

from mnemo_core.model import ContextPack, Impact, ScoredSymbol, Symbol
from mnemo_core.render import md_code, md_fence, md_text, plain_text, pytest_command
from mnemo_core.render_review import (
    CHANGED_SHOWN,
    COMMENT_LIMIT,
    MARKER,
    Links,
    comment_markdown,
    review_text,
)

GOLDEN = Path(__file__).parent / "golden"
HOSTILE_NAME = "evil|<img src=x onerror=alert(1)>`@octocat`[x](javascript:alert(1))"
LINKS = Links.github("https://github.com", "acme/shop", "0123456789abcdef0123456789abcdef01234567")


def symbol(path: str, name: str, start: int = 1, end: int = 3, sid: int = 1, is_test: bool = False) -> Symbol:
    return Symbol(
        id=sid,
        path=path,
        name=name,
        kind="function",
        language="python",
        signature=f"def {name}()",
        docstring="",
        start_line=start,
        end_line=end,
        size=10,
        is_test=is_test,
        is_test_case=is_test,
        exported=True,
    )


def scored(
    sym: Symbol,
    reasons: tuple[str, ...],
    components: dict[str, float] | None = None,
    distance: int = 1,
    changed: bool = False,
) -> ScoredSymbol:
    return ScoredSymbol(sym, 1.0, components or {}, reasons, distance=distance, changed=changed)


def pack_of(impact: Impact, notes: tuple[str, ...] = ()) -> ContextPack:
    return ContextPack(
        mode="pr",
        query="0123456789..feature",
        repo="/r",
        commit="abc",
        budget_tokens=8000,
        used_tokens=0,
        symbols=(),
        impact=impact,
        notes=notes,
    )


def sample_impact() -> Impact:
    changed = (
        scored(
            symbol("shop/pricing.py", "price", 4, 5, sid=-1),
            ("deleted",),
            {"change": 1.0, "churn": 0.0, "dangling": 2.0},
            0,
            True,
        ),
        scored(
            symbol("shop/cart.py", "Cart.checkout", 7, 8, sid=2),
            ("modified", "3 dependants, 1 test reaches it"),
            {"change": 1.0, "churn": 0.0, "callers": 3.0, "tests": 1.0},
            0,
            True,
        ),
        scored(
            symbol("shop/x.py", HOSTILE_NAME, 1, 2, sid=3),
            ("added", "0 dependants, no test reaches it"),
            {"change": 1.0, "churn": 0.0, "callers": 0.0, "tests": 0.0},
            0,
            True,
        ),
    )
    callers = (
        scored(
            symbol("shop/api.py", "buy", 3, 4, sid=4),
            (
                "calls Cart.checkout (changed, 1 hop)",
                "last changed 2 days ago by @mallory (abc1234: fix #12 see https://evil.example)",
            ),
        ),
    )
    tests = (
        scored(
            symbol("tests/test_cart.py", "TestCart.test_checkout", 5, 6, sid=5, is_test=True),
            ("calls Cart.checkout (changed, 1 hop)",),
        ),
    )
    reasons = (
        "price was deleted but is still referenced (2): shop/pricing.py:2, shop/api.py:9",
        "no test reaches: " + HOSTILE_NAME,
    )
    files = ("modified shop/cart.py", "modified shop/pricing.py", "added shop/x.py")
    return Impact(changed, callers, tests, "high", reasons, files)


def assert_golden(name: str, actual: str) -> None:
    """Compare with the reference file, showing a unified diff on failure."""
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), name, "actual"))
    assert actual == expected, f"rendering differs from tests/golden/{name}:\n{diff}"


def test_comment_matches_the_reference() -> None:
    assert_golden("review_comment.md", comment_markdown(pack_of(sample_impact(), ("a note",)), LINKS))


def test_precommit_table_matches_the_reference() -> None:
    assert_golden("review_text.txt", "\n".join(review_text(pack_of(sample_impact()), "staged change")) + "\n")


def test_comment_starts_with_the_marker_and_links_only_symbols_at_head() -> None:
    body = comment_markdown(pack_of(sample_impact()), LINKS)
    assert body.startswith(MARKER + "\n")
    assert f"({LINKS.base}/shop/cart.py#L7-L8)" in body
    assert LINKS.base == "https://github.com/acme/shop/blob/0123456789abcdef0123456789abcdef01234567"
    assert "/shop/pricing.py#L4" not in body  # deleted: nothing to link to at the head commit
    assert "](http" not in comment_markdown(pack_of(sample_impact()))


def test_untrusted_text_cannot_inject_markup_mentions_or_links() -> None:
    body = comment_markdown(pack_of(sample_impact()), LINKS)
    outside_code = re.sub(r"(?<!\\)`[^`\n]*(?<!\\)`", "", body)  # code spans show text as it is
    for raw in ("<img", "@octocat", "@mallory", "#12", "https://evil", "](javascript"):
        assert not re.search(r"(?<!\\)" + re.escape(raw), outside_code), raw
    for line in body.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            unescaped_pipes = len(re.findall(r"(?<!\\)\|", line))
            assert unescaped_pipes == line.count(" | ") + 2, line  # the hostile name stays in its cell


def test_githubs_renderer_keeps_hostile_text_inside_its_cell_and_out_of_html() -> None:
    """Rendered with raw HTML allowed (no sanitiser to lean on): only our own tags and links come out."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    body = comment_markdown(pack_of(sample_impact()), LINKS)
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
    assert "<img" not in html and "<script" not in html and 'href="javascript' not in html
    targets = ["shop/cart.py#L7-L8", "shop/x.py#L1-L2", "shop/api.py#L3-L4", "tests/test_cart.py#L5-L6"]
    assert re.findall(r'href="([^"]+)"', html) == [f"{LINKS.base}/{t}" for t in targets]
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    assert [row.count("<td") + row.count("<th") for row in rows] == [5, 5, 5, 5, 3, 3, 2, 2]
    assert html.count("<details>") == html.count("</details>") == 3


def test_a_link_target_is_percent_encoded() -> None:
    target = Links("https://example.com/o/r/blob/sha").to(symbol("dir (x)/a b.py", "f", 3, 4))
    assert target == "https://example.com/o/r/blob/sha/dir%20%28x%29/a%20b.py#L3-L4"


def test_a_huge_change_is_shortened_under_the_limit_with_a_note() -> None:
    many = 4000
    callers = tuple(
        scored(
            symbol(f"pkg/mod{i}.py", f"caller_{i}_" + "x" * 60, sid=i + 10),
            (f"calls f (changed, 1 hop); last changed by Someone ({i:07d}: subject {i})",),
        )
        for i in range(many)
    )
    tests = tuple(
        scored(
            symbol(f"tests/test_{i}.py", f"test_{i}", sid=i + 100_000, is_test=True),
            ("calls f (changed, 2 hops)",),
        )
        for i in range(many)
    )
    changed = tuple(
        scored(
            symbol("pkg/core.py", f"f{i}", sid=200_000 + i),
            ("modified",),
            {"callers": 1.0, "tests": 1.0},
            0,
            True,
        )
        for i in range(300)
    )
    files = tuple(f"modified pkg/mod{i}.py" for i in range(many))
    impact = Impact(changed, callers, tests, "high", ("large blast radius",), files)
    body = comment_markdown(pack_of(impact), LINKS)
    assert len(body.encode("utf-8")) <= COMMENT_LIMIT
    assert body.startswith(MARKER)
    assert "Shortened to fit the 65,536-character comment limit: showing" in body
    assert f"of {many:,} impacted symbols" in body and f"of {many:,} impacted tests" in body
    assert "**Why high risk**" in body and "\n```sh\npytest\n```\n" in body


def test_a_tiny_limit_still_gives_valid_text() -> None:
    body = comment_markdown(pack_of(sample_impact()), LINKS, limit=300)
    assert len(body.encode("utf-8")) <= 300 and body.startswith(MARKER)


def test_a_change_without_code_symbols_gets_a_short_comment() -> None:
    body = comment_markdown(pack_of(Impact(changed_files=("modified README.md", "added docs/ci.md"))))
    assert body.startswith(MARKER)
    assert "mnemo: no code symbols changed" in body and "changes 2 files but no function" in body
    assert "- added docs/ci.md" in body and len(body) < 1000
    assert review_text(pack_of(Impact(changed_files=("modified README.md",))), "staged change") == [
        "mnemo: staged change: no code symbols changed (1 file)"
    ]


def test_no_changes_at_all() -> None:
    body = comment_markdown(pack_of(Impact(), ("no changes in 0123456789..feature",)))
    assert "mnemo: no changes" in body and "> no changes in 0123456789..feature" in body


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a|b", "a\\|b"),
        ("<b>&amp;</b>", "\\<b\\>\\&amp;\\</b\\>"),
        ("*x* _y_ ~z~ $m$", "\\*x\\* \\_y\\_ \\~z\\~ \\$m\\$"),
        ("[t](u) ![i](j)", "\\[t\\](u) \\!\\[i\\](j)"),
        ("@team", "@\u200bteam"),
        ("fixes #3", "fixes \\#\u200b3"),
        ("see https://x.io or www.y.io", "see https:\u200b//x.io or www\u200b.y.io"),
        ("- not a list", "\\- not a list"),
        ("1. not a list", "1\\. not a list"),
        ("line\nbreak\u202eevil", "line break evil"),
    ],
)
def test_md_text(text: str, expected: str) -> None:
    assert md_text(text) == expected


def test_md_code_md_fence_and_plain_text() -> None:
    assert md_code("a`b|c") == "`a'b|c`"
    assert md_code("a|b", table=True) == "`a\\|b`"
    assert md_code("x" * 10, limit=4) == "`xxx\u2026`"
    assert md_fence("a ```` b", "sh") == ["`````sh", "a ```` b", "`````"]
    assert plain_text("\x1b[31mred\x1b[0m") == " [31mred [0m"


def test_pytest_command_quotes_ids_and_falls_back_to_files_then_the_suite() -> None:
    def test(path: str, name: str) -> ScoredSymbol:
        return scored(symbol(path, name, is_test=True), ())

    assert pytest_command([test("tests/a b.py", "T.test_x")]) == "pytest 'tests/a b.py::T::test_x'"
    many = [test(f"tests/test_{i % 3}.py", f"test_{i}") for i in range(50)]
    assert pytest_command(many) == "pytest tests/test_0.py tests/test_1.py tests/test_2.py"
    assert pytest_command([test(f"tests/test_{i}.py", "test_x") for i in range(50)]) == "pytest"
    js = Symbol(1, "a.test.js", "works", "function", "javascript", "", "", 1, 2, 1, True, True, True)
    assert pytest_command([scored(js, ())]) is None


def test_closures_module_changes_and_tests_fold_into_one_row_each() -> None:
    def changed(sym: Symbol, reason: str) -> ScoredSymbol:
        return scored(sym, (reason,), {"change": 1.0, "callers": 1.0, "tests": 1.0}, 0, True)

    outer = symbol("app/views.py", "render", 1, 20, sid=1)
    inner = symbol("app/views.py", "render.inner", 3, 5, sid=2)
    deeper = symbol("app/views.py", "render.inner.leaf", 4, 5, sid=3)
    module_a = replace(symbol("app/views.py", "app.views", 1, 1, sid=4), kind="module")
    module_b = replace(symbol("app/util.py", "app.util", 1, 1, sid=5), kind="module")
    test_files = [
        (symbol("tests/test_views.py", f"test_{i}", 10 * i, 10 * i + 3, sid=10 + i, is_test=True), how)
        for i, how in enumerate(("modified", "added", "added"))
    ]
    other_test = symbol("tests/test_util.py", "test_util", 1, 3, sid=20, is_test=True)
    test_closure = symbol("tests/test_views.py", "test_1.fake", 11, 12, sid=21, is_test=True)  # not a test
    impact = Impact(
        changed=(
            changed(outer, "modified"),
            changed(inner, "modified"),
            changed(deeper, "added"),
            changed(module_a, "modified"),
            changed(module_b, "modified"),
            *(changed(sym, how) for sym, how in test_files),
            changed(test_closure, "added"),
            changed(other_test, "renamed from test_old"),
        ),
        risk="low",
        reasons=("small, tested change with a contained blast radius",),
    )
    body = comment_markdown(pack_of(impact))
    rows = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| changed")]
    assert rows == [
        "| `render` | `app/views.py:1` | modified (and 2 nested functions in it) | 1 | 1 |",
        "| module level | `app/views.py`, `app/util.py` | imports or top-level code changed | - | - |",
        "| 3 tests | `tests/test_views.py` | 1 modified, 2 added | - | - |",
        "| 1 test | `tests/test_util.py` | 1 renamed | - | - |",
    ]
    assert "10 changed symbols" in body.splitlines()[1]  # the verdict still counts every one


def test_impacted_tests_are_counted_by_file_above_their_collapsed_list() -> None:
    tests = tuple(
        scored(
            symbol(path, f"test_{i}", i, i + 1, sid=30 + i, is_test=True), ("calls price (changed, 1 hop)",)
        )
        for i, path in enumerate(["tests/test_b.py", "tests/test_a.py", "tests/test_a.py"])
    )
    changed = scored(
        symbol("shop/pricing.py", "price", sid=2), ("modified",), {"callers": 0, "tests": 3}, 0, True
    )
    body = comment_markdown(pack_of(Impact(changed=(changed,), tests=tests, reasons=("r",))))
    line = next(x for x in body.splitlines() if x.startswith("**3 impacted tests"))
    assert line == "**3 impacted tests in 2 files**: `tests/test_a.py` (2), `tests/test_b.py` (1)"
    assert body.index(line) < body.index("<details><summary>Impacted tests (3)</summary>")


def test_a_shortened_comment_keeps_as_much_as_fits() -> None:
    tests = tuple(
        scored(symbol("tests/test_a.py", f"test_{i}", i, i + 1, sid=40 + i, is_test=True), ("calls price",))
        for i in range(100)
    )
    changed = scored(
        symbol("shop/pricing.py", "price", sid=2), ("modified",), {"callers": 0, "tests": 100}, 0, True
    )
    pack = pack_of(Impact(changed=(changed,), tests=tests, reasons=("r",)))
    whole = comment_markdown(pack)
    limit = len(whole.encode("utf-8")) - 200  # two or three rows too long
    body = comment_markdown(pack, limit=limit)
    assert limit - 400 < len(body.encode("utf-8")) <= limit  # not cut by half
    shown = re.search(r"showing (\d+) of 100 impacted tests", body)
    assert shown is not None and 90 <= int(shown[1]) < 100


def test_a_long_list_of_changed_symbols_opens_with_its_first_rows() -> None:
    changed = tuple(
        scored(symbol("pkg/core.py", f"f{i}", start=10 * i + 1, sid=i + 1), ("modified",), changed=True)
        for i in range(CHANGED_SHOWN + 12)
    )
    body = comment_markdown(pack_of(Impact(changed, (), (), "medium", ("many changes",))), LINKS)
    opened = body.split("<details>")[0]
    assert "`f0`" in opened and f"`f{CHANGED_SHOWN - 1}`" in opened and f"`f{CHANGED_SHOWN}`" not in opened
    assert "<summary>More changed symbols (12)</summary>" in body and f"`f{CHANGED_SHOWN + 11}`" in body
    assert len(opened.splitlines()) <= CHANGED_SHOWN + 10
