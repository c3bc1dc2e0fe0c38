"""The MCP tools: each one is a ``mnemo`` verb on the server's repository.

A tool answers with the JSON of the verb's ``--format json`` as structured content and the verb's
text rendering as its text content, so a client that reads either gets the whole answer. A failure
is a tool error (``isError``) whose text is the CLI's one line (``mnemo: error: ...``); a bug writes
its traceback to a crash log and names it, never sending the traceback to the client. The engine
runs on the SDK's worker threads, one call at a time (each call brings the index up to date first,
and one indexer at a time is all the index needs), on a repository opened for that call (an SQLite
connection belongs to the thread that opened it).
"""

from __future__ import annotations

import inspect
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from mcp_server.schemas import (
    ExplainAnswer,
    FeedbackAnswer,
    HistoryAnswer,
    ImpactedTestsAnswer,
    PackAnswer,
    WalkAnswer,
)
from mnemo_core import __version__
from mnemo_core.boundary import failure
from mnemo_core.engine import (
    DEFAULT_BUDGET,
    DEFAULT_DEPTH,
    DEFAULT_FILES_DEPTH,
    DEFAULT_HISTORY,
    Engine,
    Progress,
    Walk,
    recovering,
)
from mnemo_core.model import ContextPack
from mnemo_core.render import (
    explanation_json,
    explanation_text,
    feedback_json,
    feedback_text,
    history_json,
    history_text,
    pytest_command,
    tests_answer_json,
    walk_json,
    walk_text,
)
from mnemo_core.render_budget import Fit, code_budget, fit_pack, next_offset
from mnemo_core.terminal import escape_controls

log = logging.getLogger(__name__)

PROG = "mnemo"  # errors read as the CLI's: the tools are its verbs
INSTRUCTIONS = (
    "mnemo knows this repository's code as a graph of functions, classes and calls. Start a task with "
    "task_context (the code to read, ranked, with reasons); before changing a function, ask callers; "
    "after editing, change_context with worktree=true shows the blast radius and impacted_tests the "
    "tests to run; when done, feedback says which symbols helped, so similar tasks rank them first. "
    "Symbols are named 'name', 'Class.method' or 'path:name'."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
REMEMBERS = ToolAnnotations(  # feedback writes mnemo's memory, and nothing else
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Answer = tuple[dict[str, Any], str]  # the JSON answer and its text rendering

Depth = Annotated[
    int | None,
    Field(ge=1, description=f"caller hops to follow (default: the project's, else {DEFAULT_DEPTH})"),
]
Base = Annotated[
    str | None,
    Field(description="base git ref (default: the merge-base with the upstream or default branch)"),
]
Head = Annotated[str | None, Field(description="head git ref (default: HEAD); not with staged or worktree")]
Staged = Annotated[bool, Field(description="the staged change (index against HEAD) instead of commits")]
Worktree = Annotated[
    bool, Field(description="the uncommitted working tree against HEAD, untracked files included")
]
SymbolName = Annotated[
    str, Field(description="a function, method or class: 'name', 'Class.method' or 'path:name'")
]
At = Annotated[
    str | None,
    Field(
        description="answer against the files of this commit (a branch, tag, sha or HEAD~50) instead of "
        "the working tree, e.g. to see the code as it was before a change; nothing on disk changes"
    ),
]
Hops = Annotated[int, Field(ge=1, description="how many hops to walk (default 1: direct ones only)")]
MIN_BUDGET = 200  # an answer's frame (query, risk, counts, what was left out) needs about this much
Budget = Annotated[
    int | None,
    Field(
        ge=MIN_BUDGET,
        description="the most tokens the answer may take, text and structured content each (default: "
        f"the project's budget, else {DEFAULT_BUDGET}); what does not fit is counted under 'omitted'",
    ),
]
Offset = Annotated[
    int,
    Field(
        ge=0,
        description="skip this many of the best-ranked symbols: the next page of an answer cut "
        "by its budget (its 'more' says which offset)",
    ),
]
Packed = Annotated[CallToolResult, PackAnswer]
Walked = Annotated[CallToolResult, WalkAnswer]
PROGRESS_STEPS = 20  # progress notifications for a whole first index: often enough to show it moves
FLAG = re.compile(r"--([a-z][a-z-]*)")  # a CLI flag in an engine message


class MnemoTools:
    """The tools of one server, on the repository at ``root``. Each public method is a tool; its
    docstring is the description a model reads to choose it."""

    def __init__(self, root: Path, memory: bool | None = None) -> None:
        self.root = root
        self.memory = memory
        self._lock = threading.Lock()

    def task_context(
        self,
        task: Annotated[str, Field(description="the task in words, e.g. 'retry when the upload fails'")],
        budget: Budget = None,
        limit: Annotated[int | None, Field(ge=1, description="at most this many symbols")] = None,
        offset: Offset = 0,
        at: At = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Packed:
        """The code to read for a task described in words: the repository's functions, methods and
        classes ranked by relevance (names, docstrings, code, past commits, call graph), with their
        source and the reasons for each rank, the whole answer within a token budget. Use it first
        when starting work on a feature, bug or question about this repository."""

        def run(engine: Engine) -> Answer:
            total = budget or engine.config.budget
            pack = engine.task(task, budget=code_budget("task", total), limit=limit, offset=offset)
            return fit_pack(replace(pack, budget_tokens=total), total, lambda fit: _next_page(fit, pack))

        return self._answer("task_context", run, ctx, at)

    def change_context(
        self,
        base: Base = None,
        head: Head = None,
        staged: Staged = False,
        worktree: Worktree = False,
        depth: Depth = None,
        budget: Budget = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Packed:
        """The blast radius of a change (like reviewing a pull request): the changed symbols, their
        transitive callers, the tests that reach them and a risk verdict with reasons, with their
        source, the whole answer within a token budget. By default the commits of this branch
        (base..HEAD); staged=true for the staged change, worktree=true for uncommitted edits. Use
        it after editing, or to review a branch."""

        def run(engine: Engine) -> Answer:
            total = budget or engine.config.budget
            pack = engine.pr(base, head, staged, worktree, depth, code_budget("pr", total))
            return fit_pack(replace(pack, budget_tokens=total), total, _narrower)

        return self._answer("change_context", run, ctx)

    def files_context(
        self,
        paths: Annotated[
            list[str], Field(min_length=1, description="files, relative to the repository or absolute")
        ],
        depth: Annotated[
            int, Field(ge=1, description=f"caller hops (default {DEFAULT_FILES_DEPTH})")
        ] = DEFAULT_FILES_DEPTH,
        budget: Budget = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Packed:
        """The context of some files: every symbol they define, the code elsewhere that calls them
        and the tests that reach them, ranked, with source, the whole answer within a token
        budget. Use it before changing or reviewing specific files."""

        def run(engine: Engine) -> Answer:
            total = budget or engine.config.budget
            pack = engine.files(paths, depth=depth, budget=code_budget("files", total))
            return fit_pack(replace(pack, budget_tokens=total), total, _narrower)

        return self._answer("files_context", run, ctx)

    def explain(
        self,
        task: Annotated[str, Field(description="the task the score is for, as given to task_context")],
        symbol: SymbolName,
        at: At = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, ExplainAnswer]:
        """Why one symbol ranks where it does for a task: its rank, each seed channel that matched
        it, its place in the call-graph walk and every score component with its weight. Use it when
        task_context ranks a symbol surprisingly high or low, or leaves one out."""

        def run(engine: Engine) -> Answer:
            explanation = engine.explain(task, symbol)
            return explanation_json(explanation), explanation_text(explanation)

        return self._answer("explain", run, ctx, at)

    def callers(
        self, symbol: SymbolName, depth: Hops = 1, at: At = None, ctx: Context[Any, Any] | None = None
    ) -> Walked:
        """Who calls a function, method or class, transitively up to depth hops, with the file and
        line of each caller and how the call was resolved. Use it before changing a signature or
        behaviour, to find every place that must change with it."""
        run = lambda engine: _walk(_asked(engine, engine.callers(symbol, depth)))  # noqa: E731
        return self._answer("callers", run, ctx, at)

    def callees(
        self, symbol: SymbolName, depth: Hops = 1, at: At = None, ctx: Context[Any, Any] | None = None
    ) -> Walked:
        """What a function or method calls, transitively up to depth hops, with file and line. Use
        it to understand what a function depends on before reading or changing it."""
        run = lambda engine: _walk(_asked(engine, engine.callees(symbol, depth)))  # noqa: E731
        return self._answer("callees", run, ctx, at)

    def symbol_history(
        self,
        symbol: SymbolName,
        limit: Annotated[int, Field(ge=1, description="at most this many commits")] = DEFAULT_HISTORY,
        at: At = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, HistoryAnswer]:
        """The commits that changed a function's, method's or class's lines, newest first, with
        author, date, subject and pull request number, followed across renames of its file. Use it
        to learn why code is the way it is, or who to ask, before changing it."""

        def run(engine: Engine) -> Answer:
            histories = engine.history(symbol, limit)
            for history in histories:
                engine.noticed_symbol("hovered", history.symbol)
            return history_json(histories), "\n\n".join(history_text(h) for h in histories)

        return self._answer("symbol_history", run, ctx, at)

    def impacted_tests(
        self,
        base: Base = None,
        head: Head = None,
        staged: Staged = False,
        worktree: Worktree = False,
        depth: Depth = None,
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, ImpactedTestsAnswer]:
        """The tests a change reaches (same selectors as change_context: this branch's commits by
        default, staged=true or worktree=true for uncommitted work), each with a runnable id
        (pytest node id for Python), why it is impacted and how sure ("possible": true for a test
        reached only through a name guess), plus a ready pytest command. Use it to choose which
        tests to run after an edit. Answers {"schema": 1, "tests": [...]}."""

        def run(engine: Engine) -> Answer:
            tests = engine.tests(base, head, staged, worktree, depth)
            lines = [f"{t.symbol.path}:{t.symbol.start_line}  {t.symbol.name}" for t in tests]
            command = pytest_command(tests)
            text = "\n".join([*(lines or ["no impacted tests"]), *([f"run: {command}"] if command else [])])
            return tests_answer_json(tests), text

        return self._answer("impacted_tests", run, ctx)

    def feedback(
        self,
        task: Annotated[str, Field(description="the task, in the words given to task_context")],
        used: Annotated[
            list[str], Field(description="symbols that helped: 'name', 'Class.method' or 'path:name'")
        ] = [],  # noqa: B006 -- the SDK copies defaults into the schema; never mutated
        useless: Annotated[list[str], Field(description="symbols that were shown but did not help")] = [],  # noqa: B006
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, FeedbackAnswer]:
        """Tell mnemo which symbols were useful and which were useless for a task, once the work is
        done or abandoned. A later similar task_context then ranks the useful ones higher and the
        useless ones lower. Writes only mnemo's own memory (.mnemo/memory.db)."""

        def run(engine: Engine) -> Answer:
            feedback = engine.feedback(task, used, useless)
            return feedback_json(feedback), feedback_text(feedback)

        return self._answer("feedback", run, ctx)

    def changed_on_disk(self, paths: list[str]) -> None:
        """Source files changed in the work tree (the tree watcher's callback, on its thread):
        bring the index up to date now, so the next call does not wait for it."""
        with self._lock, Engine(self.root, memory=False) as engine:
            stats = engine.index()
        log.info("%d file(s) changed: %d re-parsed, %d removed", len(paths), stats.parsed, stats.removed)

    def _answer(
        self,
        tool: str,
        work: Callable[[Engine], Answer],
        ctx: Context[Any, Any] | None = None,
        at: str | None = None,
    ) -> CallToolResult:
        """Run ``work`` on a freshly opened engine (on the files of commit ``at`` when given), one
        call at a time, and answer with its result or the one line its failure is reported with
        (in the words of the tool's arguments, not the CLI's flags). While the index is brought up
        to date first, the client hears how it goes (when it asked to, with a progress token)."""
        progress = _progress(ctx, at)
        with self._lock:
            try:
                payload, text = recovering(
                    self.root, lambda: _on_repo(self.root, work, self.memory, at, progress)
                )
            except Exception as exc:
                line = _in_arguments(failure(PROG, exc, self.root)[1], getattr(self, tool))
                return CallToolResult(content=[_text(line)], is_error=True)
        return CallToolResult(content=[_text(text)], structured_content=payload)


TOOLS = (
    "task_context",
    "change_context",
    "files_context",
    "explain",
    "callers",
    "callees",
    "symbol_history",
    "impacted_tests",
    "feedback",
)


class MnemoMCPServer(MCPServer[Any]):
    """The SDK's server, with arguments that fail a tool's schema reported in one line too."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(bad_arguments(name, exc.__cause__)) from exc.__cause__
            raise


def bad_arguments(tool: str, error: ValidationError) -> str:
    """One line for arguments that fail a tool's schema (pydantic's own text spans several)."""
    problems = "; ".join(
        f"{'.'.join(str(part) for part in e['loc'])}: {e['msg'].lower()} (got {e['input']!r})"
        for e in error.errors()
    )
    return f"{PROG}: error: bad arguments for {tool}: {problems}"


def create_server(root: Path, memory: bool | None = None, tools: MnemoTools | None = None) -> MCPServer[Any]:
    """A server whose tools answer about the repository at ``root`` (``memory`` False: without the
    session and task memory; None: as the project's settings say), or those ``tools``."""
    server = MnemoMCPServer("mnemo", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    tools = tools or MnemoTools(root, memory)
    for name in TOOLS:
        annotations = REMEMBERS if name == "feedback" else READ_ONLY
        server.add_tool(getattr(tools, name), name=name, annotations=annotations)
    return server


def _on_repo(
    root: Path,
    work: Callable[[Engine], Answer],
    memory: bool | None,
    at: str | None,
    progress: Progress | None,
) -> Answer:
    if at is not None and progress is not None:
        progress("checkout", 0, 0)
    opened = (
        Engine(root, memory=memory, progress=progress)
        if at is None
        else Engine.open(root, memory=memory, at=at, progress=progress)
    )
    with opened as engine:
        payload, text = work(engine)
        if engine.at is None:
            return payload, text
        return payload | engine.at_fields(), f"({engine.at.note()})\n{text}"


def _asked(engine: Engine, walk: Walk) -> Walk:
    """The symbols an agent asks about join its session, as a hover does an editor's."""
    for symbol in walk.start:
        engine.noticed_symbol("hovered", symbol)
    return walk


def _next_page(fit: Fit, pack: ContextPack) -> str | None:
    """How to see the symbols ranked after those a task's answer shows (None: there are none)."""
    last = next_offset(fit, pack)
    if last is None:
        return None
    return f"offset={last} shows the symbols ranked after these; a larger budget shows more at once"


def _narrower(fit: Fit) -> str | None:
    """How to see what a change's answer left out: narrower calls, or a larger budget."""
    if not fit.omitted:
        return None
    return (
        "impacted_tests lists every impacted test; callers(symbol) every caller of one symbol; "
        "files_context(paths) one file's context; a larger budget shows more at once"
    )


def _progress(ctx: Context[Any, Any] | None, at: str | None) -> Progress | None:
    """A progress callback for the engine, run on a worker thread, that notifies the client (the
    SDK sends nothing when the client gave no progress token: nobody listens)."""
    if ctx is None:
        return None
    sent = [-1]

    def report(stage: str, done: int, total: int) -> None:
        step = done * PROGRESS_STEPS // total if total else 0
        if step == sent[0]:
            return
        sent[0] = step
        message = f"preparing the files of {at}" if stage == "checkout" else f"indexing: {done}/{total} files"
        anyio.from_thread.run(ctx.report_progress, done, total or None, message)

    return report


def _in_arguments(line: str, tool: Callable[..., Any]) -> str:
    """An engine message in a tool's words: ``--head`` becomes ``head`` when the tool takes it."""
    arguments = inspect.signature(tool).parameters
    return FLAG.sub(lambda m: m[1].replace("-", "_") if m[1].replace("-", "_") in arguments else m[0], line)


def _walk(walk: Walk) -> Answer:
    return walk_json(walk.start, walk.hops, walk.direction), walk_text(walk.start, walk.hops, walk.direction)


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=escape_controls(text))
