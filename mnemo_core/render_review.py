"""Renderings of a change for review: the pull-request comment (Markdown) and the pre-commit table.

The comment is what ``mnemo-ci`` posts and ``mnemo pr --format markdown`` prints, byte for byte: a
hidden marker (so one comment per pull request is found and updated), a one-line verdict, the
changed symbols with their callers and tests (a closure folded into the function it is nested in,
module-level changes in one row, each test file's changed tests in one row), the reasons for the
risk, collapsible lists of the impacted symbols and tests linked to the head commit (the tests
counted by file above theirs), and a test command. Everything that comes from the repository
(names, paths, commit subjects, authors) goes through ``md_text``/``md_code``.
GitHub rejects comments over 65,536 characters: while the body is longer (counted in UTF-8 bytes,
the strictest reading of that limit), the longest list is halved; each list cut is then grown back
to the most that fits, and a note says what was cut and how to see everything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from mnemo_core.errors import MnemoError
from mnemo_core.model import ContextPack, Impact, RiskLevel, ScoredSymbol, Symbol
from mnemo_core.render import (
    POSSIBLE_TESTS,
    md_code,
    md_fence,
    md_text,
    plain_text,
    possible_callers_how,
    pytest_command,
    test_id,
    test_ids,
)

MARKER = "<!-- mnemo:blast-radius -->"
_HEADER = re.compile(r"[A-Za-z0-9._-]{1,64}")
REVIEW_BUDGET = 1  # these renderings show the impact, not code: ask ``for_pr`` to pack no source
COMMENT_LIMIT = 65_536  # GitHub's maximum length of an issue or pull-request comment
NAME_CHARS = 150  # an untrusted name or path is cut to this length in the comment
REASON_CHARS = 500  # one reason (a dependency path, a commit subject) is cut to this length
RISK_ICONS: dict[RiskLevel, str] = {"low": "\U0001f7e2", "medium": "\U0001f7e1", "high": "\U0001f534"}
LISTS = ("changed", "callers", "tests", "files")  # what can be shortened, in the comment's order
LIST_TITLES = {
    "changed": "changed symbols",
    "callers": "impacted symbols",
    "tests": "impacted tests",
    "files": "changed files",
}
TEXT_ROWS = 20  # changed symbols in the pre-commit table
TEXT_NAMES = 8  # callers and tests named on one line of the pre-commit output
TEXT_COLUMN = 44  # widest name or location column in the pre-commit table
TEXT_TEST_ID = 90  # a test id is cut to this length in the pre-commit output
POSSIBLE_NAMED = 5  # possible callers and tests (not counted) named in a review
NO_COUNT = "-"
CHANGE_STATUSES = ("modified", "added", "deleted", "renamed")
PATHS_NAMED = 3  # files named in the one row of module-level changes
TEST_FILES_NAMED = 10  # test files named, with their counts, above the collapsed list of impacted tests
CHANGED_HEADER = "| changed symbol | where | change | callers | tests |"
CHANGED_SHOWN = 30  # rows of changed symbols open in a PR comment; the rest collapsed under the table


@dataclass(frozen=True, slots=True)
class Links:
    """Where symbols link to: ``{base}/{path}#L{start}-L{end}`` (GitHub's blob URL at a commit)."""

    base: str

    @classmethod
    def github(cls, server_url: str, repository: str, sha: str) -> Links:
        """Links into ``repository`` (``owner/name``) at commit ``sha``."""
        return cls(f"{server_url.rstrip('/')}/{quote(repository)}/blob/{quote(sha)}")

    def to(self, symbol: Symbol) -> str:
        """The URL of a symbol's lines, percent-encoded so it cannot end the Markdown link early."""
        return (
            f"{quote(self.base.rstrip('/'), safe=':/%')}/{quote(symbol.path)}"
            f"#L{symbol.start_line}-L{symbol.end_line}"
        )


# -- the pull-request comment ------------------------------------------------------------------
def sticky_marker(header: str | None = None) -> str:
    """The hidden first line that identifies mnemo's comment; a ``header`` names one of several
    (two workflow steps keep two comments). ``MnemoError`` for a header that could end the HTML comment."""
    if not header:
        return MARKER
    if not _HEADER.fullmatch(header):
        raise MnemoError(f"a comment header is letters, digits, '.', '_' or '-' (got {header[:40]!r})")
    return f"<!-- mnemo:blast-radius:{header} -->"


def comment_markdown(
    pack: ContextPack, links: Links | None = None, limit: int = COMMENT_LIMIT, marker: str = MARKER
) -> str:
    """The review comment for a change (``mode`` pr), at most ``limit`` UTF-8 bytes long, starting
    with ``marker``."""
    impact = pack.impact or Impact()
    full = {
        "changed": len(impact.changed),
        "callers": len(impact.callers),
        "tests": len(impact.tests),
        "files": len(impact.changed_files),
    }
    caps = dict(full)

    def render(caps: dict[str, int]) -> tuple[dict[str, list[str]], str]:
        sections = (
            _comment_sections(pack, impact, links, caps, full, limit)
            if impact.changed
            else _no_code_sections(pack, impact, caps, full, limit)
        )
        return sections, _join({"marker": [marker], **sections})

    def fits(caps: dict[str, int]) -> bool:
        return len(render(caps)[1].encode("utf-8")) <= limit

    while True:
        sections, body = render(caps)
        size = len(body.encode("utf-8"))
        shrinkable = [key for key in LISTS if caps[key] > 0 and sections.get(key)]
        if size <= limit:
            return render(_grown(caps, full, fits))[1]
        if not shrinkable:
            return body.encode("utf-8")[:limit].decode("utf-8", "ignore")
        longest = max(shrinkable, key=lambda key: len(_join({key: sections[key]}).encode("utf-8")))
        caps[longest] //= 2


Caps = dict[str, int]  # how many items of each list the comment shows


def _grown(caps: Caps, full: Caps, fits: Callable[[Caps], bool]) -> Caps:
    """Each list halving cut, grown back (a binary search, in the comment's order) to the most that
    still fits: a comment is shortened by what the limit needs, not by halves."""
    grown = dict(caps)
    for key in LISTS:
        low, high = grown[key], min(full[key], max(1, grown[key] * 2))
        while low < high:
            middle = (low + high + 1) // 2
            if fits({**grown, key: middle}):
                low = middle
            else:
                high = middle - 1
        grown[key] = low
    return grown


def _join(sections: dict[str, list[str]]) -> str:
    return "\n".join(line for lines in sections.values() for line in lines) + "\n"


def _comment_sections(
    pack: ContextPack,
    impact: Impact,
    links: Links | None,
    caps: dict[str, int],
    full: dict[str, int],
    limit: int,
) -> dict[str, list[str]]:
    icon = RISK_ICONS.get(impact.risk, "")
    verdict = (
        f"### {icon} mnemo: {impact.risk} risk · {_count(full['changed'], 'changed symbol')} · "
        f"{_count(full['callers'], 'impacted symbol')} · {_count(full['tests'], 'impacted test')}"
    )
    sections = {
        "head": [
            verdict,
            "",
            f"Blast radius of {md_code(pack.query)}, {_count(full['files'], 'changed file')}.",
            *_notes(pack),
        ]
    }
    rows = _changed_rows(impact.changed[: caps["changed"]], links)
    shown, more = rows[:CHANGED_SHOWN], rows[CHANGED_SHOWN:]
    sections["changed"] = ["", CHANGED_HEADER, "|---|---|---|--:|--:|", *shown]
    sections["changed"] += _details("More changed symbols", len(more), CHANGED_HEADER, more)
    sections["reasons"] = [
        "",
        f"**Why {impact.risk} risk**",
        "",
        *(f"- {md_text(r, REASON_CHARS)}" for r in impact.reasons),
    ]
    callers = [_reach_row(s, links, with_where=True) for s in impact.callers[: caps["callers"]]]
    sections["callers"] = _details(
        "Impacted symbols", full["callers"], "| symbol | where | how it depends on the change |", callers
    )
    tests = [_reach_row(s, links, with_where=False) for s in impact.tests[: caps["tests"]]]
    sections["tests"] = _tests_by_file(impact.tests) + _details(
        "Impacted tests", full["tests"], "| test | how it reaches the change |", tests
    )
    sections["possible"] = _possible_lines(impact)
    command = pytest_command(impact.tests)
    sections["command"] = ["", "**Run the impacted tests**", "", *md_fence(command, "sh")] if command else []
    sections["files"] = _file_list(impact, caps, full)
    sections["cut"] = _cut_note(caps, full, limit)
    return sections


def _no_code_sections(
    pack: ContextPack, impact: Impact, caps: dict[str, int], full: dict[str, int], limit: int
) -> dict[str, list[str]]:
    icon = RISK_ICONS["low"]
    if not impact.changed_files:
        return {
            "head": [
                f"### {icon} mnemo: no changes",
                "",
                f"Nothing changed in {md_code(pack.query)}.",
                *_notes(pack),
            ]
        }
    return {
        "head": [
            f"### {icon} mnemo: no code symbols changed",
            "",
            f"{md_code(pack.query)} changes {_count(full['files'], 'file')} but no function, method or "
            "class in them (documentation, configuration or files mnemo does not parse), so no code "
            "depends on the change.",
            *_notes(pack),
        ],
        "files": _file_list(impact, caps, full),
        "cut": _cut_note(caps, full, limit),
    }


def _possible_lines(impact: Impact) -> list[str]:
    """A short line each for the possible callers and tests (a name guess or a fallback: not counted)."""
    out = []
    for title, how, items in (
        ("callers", possible_callers_how(impact.possible_callers), impact.possible_callers),
        ("tests", POSSIBLE_TESTS, impact.possible_tests),
    ):
        if items:
            names = ", ".join(md_code(s.symbol.name, NAME_CHARS) for s in items[:POSSIBLE_NAMED])
            more = f" and {len(items) - POSSIBLE_NAMED} more" if len(items) > POSSIBLE_NAMED else ""
            out += ["", f"Possible {title} ({len(items)}, {how}, not counted): {names}{more}"]
    return out


def _notes(pack: ContextPack) -> list[str]:
    return ["", *(f"> {md_text(n, REASON_CHARS)}" for n in pack.notes)] if pack.notes else []


def _changed_rows(changed: Sequence[ScoredSymbol], links: Links | None) -> list[str]:
    """The changed-symbols table: a row per changed product symbol, its changed nested closures
    folded into it; the module-level changes (imports, top-level code) in one row; each test file's
    changed tests in one row."""
    by_name = {(s.symbol.path, s.symbol.name): s for s in changed}
    nested: Counter[int] = Counter()
    modules: list[ScoredSymbol] = []
    tests: dict[str, list[ScoredSymbol]] = {}
    rows: list[ScoredSymbol] = []
    for s in changed:
        if s.symbol.is_test:
            tests.setdefault(s.symbol.path, []).append(s)
        elif s.symbol.kind == "module":
            modules.append(s)
        elif (outer := _enclosing(s, by_name)) is not None:
            nested[id(outer)] += 1
        else:
            rows.append(s)
    out = [_changed_row(s, links, nested[id(s)]) for s in rows]
    if modules:
        out.append(
            f"| module level | {_paths(s.symbol.path for s in modules)} | imports or top-level code changed "
            f"| {NO_COUNT} | {NO_COUNT} |"
        )
    for path, in_file in tests.items():
        counted = [
            s for s in in_file if s.symbol.kind in ("function", "method") and _enclosing(s, by_name) is None
        ]  # tests, not their closures or their module's top-level code
        how = Counter(_status(s) for s in counted)
        summary = ", ".join(f"{n} {what}" for what, n in how.items())
        if any(s.symbol.kind == "module" for s in in_file):
            summary = ", ".join(filter(None, (summary, "module-level code changed")))
        out.append(
            f"| {_count(len(counted), 'test')} | {md_code(path, NAME_CHARS, table=True)} | {summary} "
            f"| {NO_COUNT} | {NO_COUNT} |"
        )
    return out


def _status(s: ScoredSymbol) -> str:
    """How a changed symbol changed, in one word (its first reason begins with it)."""
    first = s.reasons[0].split()[0] if s.reasons and s.reasons[0] else ""
    return first if first in CHANGE_STATUSES else "changed"


def _enclosing(s: ScoredSymbol, by_name: dict[tuple[str, str], ScoredSymbol]) -> ScoredSymbol | None:
    """The outermost changed function or method a changed symbol is nested in (a closure), if any."""
    parts = s.symbol.name.split(".")
    for cut in range(1, len(parts)):
        outer = by_name.get((s.symbol.path, ".".join(parts[:cut])))
        if outer is not None and outer.symbol.kind in ("function", "method"):
            return outer
    return None


def _paths(paths: Iterable[str]) -> str:
    unique = list(dict.fromkeys(paths))
    shown = ", ".join(md_code(p, NAME_CHARS, table=True) for p in unique[:PATHS_NAMED])
    return shown + (f" and {len(unique) - PATHS_NAMED} more" if len(unique) > PATHS_NAMED else "")


def _changed_row(s: ScoredSymbol, links: Links | None, nested: int = 0) -> str:
    counts = s.components
    change = md_text(s.reasons[0] if s.reasons else "changed", REASON_CHARS)
    if counts.get("dangling"):
        change += f", **still referenced {int(counts['dangling'])}\u00d7**"
    if nested:
        change += f" (and {_count(nested, 'nested function')} in it)"
    return (
        f"| {_name(s.symbol, links)} | {_where(s.symbol)} | {change} | {_counted(counts, 'callers')} "
        f"| {_counted(counts, 'tests')} |"
    )


def _reach_row(s: ScoredSymbol, links: Links | None, with_where: bool) -> str:
    how = md_text("; ".join(s.reasons), REASON_CHARS)
    if with_where:
        return f"| {_name(s.symbol, links)} | {_where(s.symbol)} | {how} |"
    return f"| {_name(s.symbol, links, test_id(s))} | {how} |"


def _name(symbol: Symbol, links: Links | None, text: str | None = None) -> str:
    """A symbol's name as a code span, linked to its lines when it exists at the head commit."""
    code = md_code(text or symbol.name, NAME_CHARS, table=True)
    return f"[{code}]({links.to(symbol)})" if links is not None and symbol.id > 0 else code


def _where(symbol: Symbol) -> str:
    return md_code(f"{symbol.path}:{symbol.start_line}", NAME_CHARS, table=True)


def _details(title: str, total: int, header: str, rows: list[str]) -> list[str]:
    if not total:
        return []
    columns = header.count("|") - 1
    return [
        "",
        f"<details><summary>{title} ({total})</summary>",
        "",
        header,
        "|---" * columns + "|",
        *rows,
        "",
        "</details>",
    ]


def _tests_by_file(tests: Sequence[ScoredSymbol]) -> list[str]:
    """One line: how many impacted tests each file holds, the fullest first (the list is collapsed)."""
    if not tests:
        return []
    files = Counter(s.symbol.path for s in tests).most_common()
    named = ", ".join(f"{md_code(path, NAME_CHARS)} ({n})" for path, n in files[:TEST_FILES_NAMED])
    more = f" and {len(files) - TEST_FILES_NAMED} more files" if len(files) > TEST_FILES_NAMED else ""
    return ["", f"**{_count(len(tests), 'impacted test')} in {_count(len(files), 'file')}**: {named}{more}"]


def _file_list(impact: Impact, caps: dict[str, int], full: dict[str, int]) -> list[str]:
    if not full["files"]:
        return []
    files = [f"- {md_text(f, REASON_CHARS)}" for f in impact.changed_files[: caps["files"]]]
    return ["", f"<details><summary>Changed files ({full['files']})</summary>", "", *files, "", "</details>"]


def _cut_note(caps: dict[str, int], full: dict[str, int], limit: int) -> list[str]:
    cut = [f"{caps[key]:,} of {full[key]:,} {LIST_TITLES[key]}" for key in LISTS if caps[key] < full[key]]
    if not cut:
        return []
    return [
        "",
        f"> \u2702\ufe0f Shortened to fit the {limit:,}-character comment limit: showing "
        f"{', '.join(cut)}. Run `mnemo pr --format json` with the same base and head for everything.",
    ]


def _counted(components: dict[str, float], key: str) -> str:
    """A changed symbol's count of callers or tests; a dash where it has none to count (deleted, module)."""
    return str(int(components[key])) if key in components else NO_COUNT


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


# -- the pre-commit table ----------------------------------------------------------------------
def review_text(pack: ContextPack, title: str) -> list[str]:
    """A compact terminal summary of a change: verdict, reasons, changed symbols, callers, tests."""
    impact = pack.impact or Impact()
    notes = [f"  note: {plain_text(n)}" for n in pack.notes]
    if not impact.changed:
        files = len(impact.changed_files)
        what = f"no code symbols changed ({_count(files, 'file')})" if files else "no changes"
        return [f"mnemo: {title}: {what}", *notes]
    stale = sum(int(s.components.get("dangling", 0)) for s in impact.changed)
    counts = (
        _count(len(impact.changed), "changed symbol"),
        *([_count(stale, "stale reference")] if stale else []),  # what "still referenced Nx" counts
        _count(len(impact.callers), "impacted caller"),
        _count(len(impact.tests), "impacted test"),
    )
    lines = [f"mnemo: {title}: risk {impact.risk.upper()} · {' · '.join(counts)}"]
    lines += [f"  why: {plain_text(r)}" for r in impact.reasons]
    lines += notes
    lines += _table(impact.changed[:TEXT_ROWS])
    if len(impact.changed) > TEXT_ROWS:
        lines.append(f"  ... and {len(impact.changed) - TEXT_ROWS} more changed symbols")
    lines += _named("callers", [s.symbol.name for s in impact.callers], TEXT_COLUMN)
    lines += _named("tests", test_ids(impact.tests), TEXT_TEST_ID)
    lines += _named(
        f"possible callers, {possible_callers_how(impact.possible_callers)}, not counted",
        [s.symbol.name for s in impact.possible_callers],
        TEXT_COLUMN,
    )
    lines += _named(
        "possible tests, by name guess, not counted", test_ids(impact.possible_tests), TEXT_TEST_ID
    )
    command = pytest_command(impact.tests)
    if command:
        lines.append(f"  run: {command}")
    return lines


def _table(changed: Sequence[ScoredSymbol]) -> list[str]:
    rows = [("changed symbol", "where", "change", "callers", "tests")]
    for s in changed:
        counts = s.components
        change = plain_text(s.reasons[0] if s.reasons else "changed", TEXT_COLUMN)
        if counts.get("dangling"):
            change += f", still referenced {int(counts['dangling'])}x"
        rows.append(
            (
                plain_text(s.symbol.name, TEXT_COLUMN),
                plain_text(f"{s.symbol.path}:{s.symbol.start_line}", TEXT_COLUMN),
                change,
                _counted(counts, "callers"),
                _counted(counts, "tests"),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [
        f"  {r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]:>7}  {r[4]:>5}".rstrip()
        for r in rows
    ]


def _named(label: str, names: list[str], width: int) -> list[str]:
    if not names:
        return []
    shown = ", ".join(plain_text(n, width) for n in names[:TEXT_NAMES])
    more = f" (+{len(names) - TEXT_NAMES} more)" if len(names) > TEXT_NAMES else ""
    return [f"  {label} ({len(names)}): {shown}{more}"]
