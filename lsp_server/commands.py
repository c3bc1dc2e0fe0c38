"""``workspace/executeCommand``: context for a task, a PR or files, blast radius, explain, re-index.

Every command takes one JSON object (``{"task": "..."}``); anything else is InvalidParams with a
message that shows the expected shape. A command on a document answers from the index of the
workspace folder holding it; one without (a task, a PR, a re-index) from the first folder, or from
the folder named by an optional ``"folder"`` field (its URI, or any file's in it). A budget or depth
the command does not give comes from the client's settings, else it is the engine's (the project's
``mnemo.toml`` budget and change depth, else mnemo's defaults). A budget is a contract: the answer's
JSON holds at most that many tokens, fitted as the MCP tools' are (``mnemo_core.render_budget``),
with ``omitted`` counting what did not fit and ``more`` saying how to ask for it. Answers are the
JSON contract of ``mnemo_core.render`` plus a ``report`` URI: a Markdown rendering of the same
answer written under ``.mnemo/reports/`` that the client is asked to open (``window/showDocument``)
when it can. ``mnemo.reindex`` is registered by ``indexing``, which owns the indexers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server import convert
from lsp_server.server import ActiveTask, BadArguments, MnemoServer
from mnemo_core.engine import BLAST_DEPTH, DEFAULT_FILES_DEPTH, Engine
from mnemo_core.model import ContextPack
from mnemo_core.render import explanation_json, explanation_text, to_markdown
from mnemo_core.render_budget import Fit, code_budget, fit_answer, json_tokens, left_out_line, next_offset
from mnemo_core.statedir import own_subdir, state_dir, write_own_text

TASK = "mnemo.contextForTask"
PR = "mnemo.contextForPR"
FILES = "mnemo.contextForFiles"
BLAST = convert.BLAST_RADIUS_COMMAND
EXPLAIN = "mnemo.explain"
REINDEX = "mnemo.reindex"
SHAPES = {  # the one object each command takes, shown when it gets something else
    TASK: '{"task": "fix the login redirect", "budget": 8000, "offset": 0}',
    PR: '{"base": "main", "head": "HEAD", "staged": false}',
    FILES: '{"uris": ["file:///..."]}',
    BLAST: '{"uri": "file:///...", "position": {"line": 0, "character": 0}}',
    EXPLAIN: '{"uri": "file:///...", "position": {"line": 0, "character": 0}, "task": "..."}',
    REINDEX: "{}",
}
FIELDS = {
    TASK: {"task", "budget", "offset", "folder"},
    PR: {"base", "head", "staged", "budget", "folder"},
    FILES: {"uris", "budget"},
    BLAST: {"uri", "position", "budget"},
    EXPLAIN: {"uri", "position", "task"},
    REINDEX: {"folder"},
}
REPORTS_DIR = "reports"  # in mnemo's state directory, which git ignores
SLUG_CHARS = 48


# -- arguments ------------------------------------------------------------------------------
def arguments(command: str, args: Sequence[Any]) -> dict[str, Any]:
    """The single object argument of ``command`` (no argument at all counts as ``{}``)."""
    if not args:
        return {}
    if len(args) != 1 or not isinstance(args[0], dict):
        raise BadArguments(f"expected one object argument like {SHAPES[command]}, got {_shown(args)}")
    given: dict[str, Any] = args[0]
    unknown = sorted(set(given) - FIELDS[command])
    if unknown:
        raise BadArguments(f"unknown field {', '.join(map(repr, unknown))}; expected {SHAPES[command]}")
    return given


def _shown(args: Sequence[Any]) -> str:
    text = repr(list(args))
    return text if len(text) <= 80 else text[:77] + "..."


def text_field(given: dict[str, Any], name: str) -> str | None:
    """An optional non-empty string field."""
    value = given.get(name)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise BadArguments(f'"{name}" must be a non-empty string, got {value!r}')
    return value


def required_text(given: dict[str, Any], name: str) -> str:
    """A non-empty string field that must be there."""
    value = text_field(given, name)
    if value is None:
        raise BadArguments(f'"{name}" is required')
    return value


def budget_field(given: dict[str, Any], default: int | None = None) -> int | None:
    """The token budget (``default`` when absent; None: the project's, else the engine's default)."""
    value = given.get("budget")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadArguments(f'"budget" must be a positive integer (tokens), got {value!r}')
    return value


def count_field(given: dict[str, Any], name: str) -> int:
    """A field counting something: 0 or more (0 when absent)."""
    value = given.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadArguments(f'"{name}" must be 0 or a positive integer, got {value!r}')
    return value


def bool_field(given: dict[str, Any], name: str) -> bool:
    """A boolean field (false when absent)."""
    value = given.get(name, False)
    if not isinstance(value, bool):
        raise BadArguments(f'"{name}" must be true or false, got {value!r}')
    return value


def position_field(given: dict[str, Any]) -> types.Position:
    """``{"line": n, "character": n}``, both 0-based."""
    value = given.get("position")
    if not isinstance(value, dict) or not all(
        isinstance(value.get(k), int) and not isinstance(value.get(k), bool) and value[k] >= 0
        for k in ("line", "character")
    ):
        raise BadArguments(f'"position" must be {{"line": n, "character": n}} (0-based), got {value!r}')
    return types.Position(line=value["line"], character=value["character"])


# -- the commands (on a read thread) --------------------------------------------------------
Answer = tuple[dict[str, Any], str]  # the JSON answer and the URI of its Markdown report


def context_for_task(ls: MnemoServer, args: Sequence[Any]) -> Answer:
    """The ranked, budgeted context of a task in words (after the ``offset`` best-ranked symbols:
    the next page); it becomes the session's active task."""
    given = arguments(TASK, args)
    task = required_text(given, "task")
    offset = count_field(given, "offset")
    engine, partial = _partial_engine(ls, text_field(given, "folder"))
    total = _total(engine, given, ls)
    pack = engine.task(task, budget=code_budget("task", total), offset=offset)
    ls.task = ActiveTask.from_pack(pack)
    return _answer(engine, pack, total, f"task-{_slug(task)}", lambda fit: _next_page(fit, pack), partial)


def context_for_pr(ls: MnemoServer, args: Sequence[Any]) -> Answer:
    """The blast radius of a change: ``base..head``, or the staged change."""
    given = arguments(PR, args)
    base, head = text_field(given, "base"), text_field(given, "head")
    staged = bool_field(given, "staged")
    engine, partial = _partial_engine(ls, text_field(given, "folder"))
    total = _total(engine, given, ls)
    budget = code_budget("pr", total)
    pack = engine.pr(base=base, head=head, staged=staged, depth=ls.settings.depth, budget=budget)
    name = "pr-staged" if staged else f"pr-{_slug(pack.query)}"
    return _answer(engine, pack, total, name, _narrower, partial)


def context_for_files(ls: MnemoServer, args: Sequence[Any]) -> Answer:
    """The context of some files: their symbols, callers and tests."""
    given = arguments(FILES, args)
    uris = given.get("uris")
    if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
        raise BadArguments(f'"uris" must be a non-empty list of file URIs; expected {SHAPES[FILES]}')
    paths = [ls.relpath(u) for u in uris]
    if len({ls.folder(u).root for u in uris}) > 1:
        raise BadArguments('"uris" must all be in one workspace folder')
    engine, partial = _partial_engine(ls, uris[0])
    depth, total = _depth(ls, DEFAULT_FILES_DEPTH), _total(engine, given, ls)
    pack = engine.files(paths, depth=depth, budget=code_budget("files", total))
    return _answer(engine, pack, total, f"files-{_slug(' '.join(paths))}", _narrower, partial)


def blast_radius(ls: MnemoServer, args: Sequence[Any]) -> Answer:
    """The symbol at a position, its transitive callers and the tests that reach it."""
    given = arguments(BLAST, args)
    uri, position = required_text(given, "uri"), position_field(given)
    path = ls.relpath(uri)
    engine = _ready_engine(ls, uri)
    line, word = convert.position_line(position), _word(ls, uri, position)
    depth, total = _depth(ls, BLAST_DEPTH), _total(engine, given, ls)
    pack = engine.blast_radius_at(path, line, word, depth=depth, budget=code_budget("files", total))
    return _answer(engine, pack, total, f"blast-{_slug(pack.query)}", _narrower)


def explain_at(ls: MnemoServer, args: Sequence[Any]) -> Answer:
    """Every part of the score of the symbol at a position, for a task (default: the active one)."""
    given = arguments(EXPLAIN, args)
    uri, position = required_text(given, "uri"), position_field(given)
    task = text_field(given, "task") or (ls.task.text if ls.task else None)
    if task is None:
        raise BadArguments('no task: pass {"task": "..."} or run mnemo.contextForTask first')
    path = ls.relpath(uri)
    engine = _ready_engine(ls, uri)
    symbol = engine.definition_at(path, convert.position_line(position), _word(ls, uri, position))
    explanation = engine.explain(task, symbol.key)
    text = explanation_text(explanation)
    markdown = f"# mnemo: why `{symbol.name}`\n\n```\n{text}\n```\n"
    report = _write_report(engine.root, f"explain-{_slug(symbol.name)}", markdown)
    return {**explanation_json(explanation), "text": text, "report": report}, report


def _ready_engine(ls: MnemoServer, uri: str | None) -> Engine:
    """This worker thread's engine on the folder of ``uri`` (default: the first), once its index
    can answer."""
    return ls.require_index(uri).engine()


def _partial_engine(ls: MnemoServer, uri: str | None) -> tuple[Engine, str | None]:
    """This worker thread's engine on the folder of ``uri``, once its index can answer or its first
    build has been waited for long enough; the note a partial answer carries (None: it is whole)."""
    folder = ls.require_index(uri, partial=True)
    return folder.engine(), ls.partial_note(folder)


def _depth(ls: MnemoServer, default: int) -> int:
    """The configured depth, else the answer's own default."""
    return default if ls.settings.depth is None else ls.settings.depth


def _word(ls: MnemoServer, uri: str, position: types.Position) -> str | None:
    """The identifier under the cursor (from the editor's buffer, else from disk)."""
    return ls.workspace.get_text_document(uri).word_at_position(position) or None


def _total(engine: Engine, given: dict[str, Any], ls: MnemoServer) -> int:
    """The whole answer's budget: the command's, else the client's setting, else the project's."""
    return budget_field(given, ls.settings.budget) or engine.config.budget


def _answer(
    engine: Engine,
    pack: ContextPack,
    total: int,
    name: str,
    more: Callable[[Fit], str | None],
    partial: str | None = None,
) -> Answer:
    """A pack's JSON within ``total`` tokens (``omitted`` counts what did not fit, ``more`` says
    how to ask for it) and its report; an answer given during the first build says it is partial."""
    if partial is not None:
        pack = replace(pack, notes=(partial, *pack.notes))
    path = _report_path(engine.root, name)
    extras: dict[str, Any] = {"report": convert.file_uri(path)} | ({"partial": True} if partial else {})
    room = max(1, total - json_tokens(extras))  # the answer's own fields count too
    fitted = fit_answer(replace(pack, budget_tokens=total), room, more)
    said = tuple(line for line in (left_out_line(fitted.fit, total), fitted.payload.get("more")) if line)
    write_own_text(path, to_markdown(replace(fitted.fit.pack, notes=(*fitted.fit.pack.notes, *said))))
    return {**fitted.payload, **extras}, extras["report"]


def _next_page(fit: Fit, pack: ContextPack) -> str | None:
    """How to see the symbols ranked after those a task's answer shows (None: there are none)."""
    last = next_offset(fit, pack)
    if last is None:
        return None
    return f'"offset": {last} shows the symbols ranked after these; a larger "budget" shows more at once'


def _narrower(fit: Fit) -> str | None:
    """How to see what a change's answer left out: narrower commands, or a larger budget."""
    if not fit.omitted:
        return None
    return (
        f"{BLAST} on one symbol lists its callers and tests, {FILES} one file's context; "
        'a larger "budget" shows more at once'
    )


def _report_path(root: Path, name: str) -> Path:
    """Where a report goes: under ``.mnemo/reports/``."""
    return own_subdir(state_dir(root), REPORTS_DIR) / f"{name}.md"


def _write_report(root: Path, name: str, markdown: str) -> str:
    """Write a report under ``.mnemo/reports/``; its URI."""
    path = _report_path(root, name)
    write_own_text(path, markdown)
    return convert.file_uri(path)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:SLUG_CHARS].rstrip("-") or "report"


# -- registration -----------------------------------------------------------------------------
def _register(server: MnemoServer, name: str, work: Callable[[MnemoServer, Sequence[Any]], Answer]) -> None:
    @server.command(name)
    async def command(ls: MnemoServer, *args: Any) -> dict[str, Any]:
        result, report = await ls.answer(name, work, ls, args)
        _show(ls, report)
        return result


def _show(ls: MnemoServer, uri: str) -> None:
    """Ask the client to open a report, when it can."""
    if ls.supports("window", "show_document", "support"):
        ls.window_show_document(types.ShowDocumentParams(uri=uri, take_focus=True))


def setup(server: MnemoServer) -> None:
    """Register every ``mnemo.*`` command (pygls advertises them in ``executeCommandProvider``)."""
    for name, work in (
        (TASK, context_for_task),
        (PR, context_for_pr),
        (FILES, context_for_files),
        (BLAST, blast_radius),
        (EXPLAIN, explain_at),
    ):
        _register(server, name, work)
