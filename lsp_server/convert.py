"""Engine values -> LSP values and Markdown: pure functions, no I/O, tested directly.

Lines: the engine counts from 1, LSP from 0. Paths: the engine's are repository-relative POSIX
paths, LSP's are ``file://`` URIs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from mnemo_core.engine import LastChange, Lens, SymbolCard, SymbolHistory
from mnemo_core.model import ScoredSymbol, Symbol
from mnemo_core.terminal import escape_controls

BLAST_RADIUS_COMMAND = "mnemo.blastRadius"
COMPONENTS_SHOWN = 5  # the largest score components in a hover; the explain command has them all
HISTORY_SHOWN = 3  # the newest commits of a symbol's history in a hover
MARKDOWN_SPECIALS = "\\`*_[]<>|#"
ANNOTATION = re.compile(r"\s*(@|#\[|\[)")  # a decorator, attribute or annotation line above a definition
DECORATOR_LINES = 30  # looked through past a symbol's first line for the line naming it
OPENING, CLOSING = re.compile(r"[(\[{]"), re.compile(r"[)\]}]")


def uri(root: Path, path: str) -> str:
    """The ``file://`` URI of a repository-relative path."""
    return file_uri(root / path)


def file_uri(path: Path) -> str:
    """The ``file://`` URI of an absolute path."""
    return from_fs_path(str(path)) or ""


def symbol_range(symbol: Symbol) -> types.Range:
    """The lines a symbol spans, as a 0-based range ending at the start of the line after it."""
    return types.Range(
        start=types.Position(line=symbol.start_line - 1, character=0),
        end=types.Position(line=symbol.end_line, character=0),
    )


def location(root: Path, symbol: Symbol) -> types.Location:
    """Where a symbol is defined."""
    return types.Location(uri=uri(root, symbol.path), range=symbol_range(symbol))


def definition_line(symbol: Symbol, lines: Sequence[str]) -> int:
    """The 1-based line that names a symbol: its first line, or, when that is a decorator,
    attribute or annotation, the first line after them (and their bracketed arguments) that names
    the symbol (where hover has something to say); its first line when none does within
    ``DECORATOR_LINES``."""
    first = symbol.start_line
    if first > len(lines) or not ANNOTATION.match(lines[first - 1]):
        return first
    name = re.compile(rf"(?<!\w){re.escape(symbol.short_name)}(?!\w)")
    depth = 0  # brackets a decorator opened and has not closed: its arguments go on
    for number in range(first, min(symbol.end_line, len(lines), first + DECORATOR_LINES) + 1):
        text = lines[number - 1]
        if depth == 0 and not ANNOTATION.match(text) and name.search(text):
            return number
        depth = max(0, depth + len(OPENING.findall(text)) - len(CLOSING.findall(text)))
    return first


def code_lens(root: Path, lens: Lens, lines: Sequence[str]) -> types.CodeLens:
    """A lens on the line naming a symbol (past its decorators; ``lines`` are its file's) whose
    command shows its blast radius."""
    symbol = lens.symbol
    start = types.Position(line=definition_line(symbol, lines) - 1, character=0)
    argument = {"uri": uri(root, symbol.path), "position": {"line": start.line, "character": start.character}}
    command = types.Command(title=lens.title, command=BLAST_RADIUS_COMMAND, arguments=[argument])
    return types.CodeLens(range=types.Range(start=start, end=start), command=command)


def hover(markdown: str) -> types.Hover:
    """A Markdown hover, without control characters (an editor may draw it in a terminal)."""
    value = escape_controls(markdown)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


def card_markdown(
    root: Path,
    card: SymbolCard,
    task: tuple[str, tuple[int, ScoredSymbol] | None, int] | None,
    show_history_note: bool,
    history: SymbolHistory | None = None,
    history_pending: bool = False,
) -> str:
    """The hover card of a symbol: what it is, who depends on it, what tests it, its history, and
    (with an active task) its rank for the task. ``task`` is (text, (rank, scored) or None, pack size);
    ``history`` the commits that changed its lines, when read (``history_pending``: being read)."""
    symbol = card.symbol
    where = link(root, symbol, f"{symbol.path}:{symbol.start_line}")
    parts = [f"**{symbol.kind}** `{_code(symbol.name)}` · {where}"]
    if symbol.signature:
        parts.append(f"```{symbol.language}\n{symbol.signature}\n```")
    parts.append(_callers_line(root, card))
    parts.append(_impact_line(root, card))
    if card.last_change is not None:
        parts.append(f"**Last change:** {last_change_line(card.last_change)}")
    elif card.history_note and show_history_note:
        parts.append(f"**Last change:** {escape(card.history_note)}")
    if history is not None:
        parts.append(history_markdown(history))
    elif history_pending:
        parts.append("**History:** being read from git; hover again to see the commits")
    if task is not None:
        parts.append(task_line(*task))
    return "\n\n".join(parts)


def _impact_line(root: Path, card: SymbolCard) -> str:
    if not card.walked:
        return "**Blast radius, tests and last change:** being counted; hover again to see them"
    blast = _count(card.blast_radius, "symbol")
    verb = "depends" if card.blast_radius == 1 else "depend"
    return f"**Blast radius:** {blast} {verb} on it · {_tests_line(root, card)}"


def _callers_line(root: Path, card: SymbolCard) -> str:
    line = f"**{_count(card.callers, 'caller')}**"
    if card.top_callers:
        line += ": " + ", ".join(link(root, s) for s in card.top_callers)
        if card.callers > len(card.top_callers):
            line += f" and {card.callers - len(card.top_callers)} more"
    return line + _possible(card.possible_callers)


def _possible(count: int) -> str:
    """`` (+2 possible, by name guess)``: links too uncertain to count."""
    return f" (+{count} possible, by name guess)" if count else ""


def _tests_line(root: Path, card: SymbolCard) -> str:
    if not card.tests and card.dynamic:
        return f"**no test reaches it statically** ({card.dynamic})" + _possible(card.possible_tests)
    if not card.tests:
        return "**no test reaches it**" + _possible(card.possible_tests)
    verb = "reaches" if card.tests == 1 else "reach"
    line = f"**{_count(card.tests, 'test')}** {verb} it: " + ", ".join(link(root, s) for s in card.top_tests)
    if card.tests > len(card.top_tests):
        line += f" and {card.tests - len(card.top_tests)} more"
    return line + _possible(card.possible_tests)


def last_change_line(change: LastChange) -> str:
    """``3 days ago · abc1234 · Author · subject · 2 commits in 90 days``."""
    if change.uncommitted:
        head = "uncommitted changes"
    else:
        head = f"{change.relative} · `{change.sha[:7]}` · {escape(change.author)} · {escape(change.summary)}"
    if change.churn_90d:
        head += f" · {_count(change.churn_90d, 'commit')} on these lines in 90 days"
    return head


def history_markdown(history: SymbolHistory) -> str:
    """The newest commits that changed a symbol's lines, one line each, and how many more."""
    commits = history.commits
    if not commits:
        return "**History:** no commit changed these lines"
    count = _count(len(commits), "commit") + ("+" if history.limited else "")
    lines = [f"**History:** {count} changed these lines, newest first"]
    for c in commits[:HISTORY_SHOWN]:
        day = datetime.fromtimestamp(c.time, timezone.utc).date().isoformat()
        pr = f" · #{c.pull_request}" if c.pull_request is not None else ""
        lines.append(f"- {day} · `{c.sha[:7]}` · {escape(c.author)} · {escape(c.subject)}{pr}")
    if len(commits) > HISTORY_SHOWN:
        more = len(commits) - HISTORY_SHOWN
        lines.append(f"- and {more} more: `mnemo history {_code(history.symbol.key)}`")
    return "\n".join(lines)


def task_line(text: str, ranked: tuple[int, ScoredSymbol] | None, size: int) -> str:
    """The symbol's place in the active task's answer, with its largest score components."""
    head = f"**Task** “{escape(text)}”: "
    if ranked is None:
        return head + f"not among the {size} symbols of its context"
    rank, scored = ranked
    present = [(name, value) for name, value in scored.components.items() if value > 0]
    biggest = sorted(present, key=lambda kv: (-kv[1], kv[0]))[:COMPONENTS_SHOWN]
    line = head + f"rank {rank} of {size} · score {scored.score:.3f}"
    return line + "".join(f" · {name} {value:.2f}" for name, value in biggest)


def link(root: Path, symbol: Symbol, text: str | None = None) -> str:
    """A Markdown link to a symbol's first line."""
    label = text if text is not None else symbol.name
    return f"[`{_code(label)}`]({uri(root, symbol.path)}#L{symbol.start_line})"


def escape(text: str) -> str:
    """Text safe in a Markdown paragraph."""
    for char in MARKDOWN_SPECIALS:
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def _code(text: str) -> str:
    return text.replace("`", "'")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def position_line(position: types.Position) -> int:
    """An LSP position's line as the engine's 1-based line."""
    return position.line + 1


SYMBOL_KINDS = {  # mnemo's kinds -> the LSP's (anything else: Variable)
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "struct": types.SymbolKind.Struct,
    "interface": types.SymbolKind.Interface,
    "trait": types.SymbolKind.Interface,
    "enum": types.SymbolKind.Enum,
    "type": types.SymbolKind.TypeParameter,
    "constant": types.SymbolKind.Constant,
    "namespace": types.SymbolKind.Namespace,
    "module": types.SymbolKind.Module,
}


def symbol_kind(symbol: Symbol) -> types.SymbolKind:
    """A symbol's LSP kind."""
    return SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Variable)


def name_range(line: int, text: str, name: str) -> types.Range:
    """Where ``name`` is on a 1-based ``line`` whose text is ``text`` (as a whole word, first
    occurrence); the whole line when it is not there. Characters are UTF-16 code units, the LSP's
    default position encoding."""
    found = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
    start, end = (found.start(), found.end()) if found else (0, len(text))
    return types.Range(
        start=types.Position(line=line - 1, character=_utf16(text[:start])),
        end=types.Position(line=line - 1, character=_utf16(text[:end])),
    )


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def call_item(root: Path, symbol: Symbol, first_line: str) -> types.CallHierarchyItem:
    """A call-hierarchy item for a symbol; ``first_line`` is the text of its first line. ``data``
    finds it again: its id, and its qualified name and kind should the id have changed."""
    return types.CallHierarchyItem(
        name=symbol.short_name,
        kind=symbol_kind(symbol),
        uri=uri(root, symbol.path),
        range=symbol_range(symbol),
        selection_range=name_range(symbol.start_line, first_line, symbol.short_name),
        detail=symbol.name if symbol.name != symbol.short_name else symbol.path,
        data={"id": symbol.id, "name": symbol.name, "kind": symbol.kind},
    )


def symbol_information(root: Path, symbol: Symbol) -> types.SymbolInformation:
    """A workspace symbol: its name, kind and where it is defined (its class, else its file, as
    the container)."""
    parent = symbol.name.rsplit(".", 1)[0] if "." in symbol.name else symbol.path
    return types.SymbolInformation(
        name=symbol.short_name,
        kind=symbol_kind(symbol),
        location=location(root, symbol),
        container_name=parent,
    )
