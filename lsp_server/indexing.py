"""Keep the workspace index fresh: the first build, saves, and files changed outside the editor.

Index jobs run one at a time on their own thread (the engine takes a file lock, so a CLI
``mnemo index`` on the same repository waits for us and we wait for it). Work that arrives while a
job runs is merged into one pending job. A save re-indexes just the saved file; file events from
the client's watcher (created, changed, deleted, renamed) run one incremental update over the
repository's listing, which respects its ignore rules (a package installed into ``.venv`` must not
end up in the index) and costs a ``stat`` per file. Builds the user waits for report ``$/progress``
(begin, report with percentages, end); after every job the client is asked to refresh its lenses.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from lsp_server.commands import REINDEX, arguments
from lsp_server.server import NO_WORKSPACE, MnemoServer, quiet_when_client_left
from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError
from mnemo_core.model import IndexStats
from mnemo_core.render import index_run_json

ATTEMPTS = 3  # each attempt already waits for another indexer's lock; then give up until the next event
PROGRESS_STEP = 5  # percent between two progress reports: enough to move a bar, few enough messages
WATCH_ID = "mnemo-watch"
WATCH_GLOB = "**/*"
IGNORED_DIRS = (".git/", ".mnemo/")


@dataclass
class Job:
    """Index work: some paths (``None``: the whole listing), a rebuild, whether to show progress."""

    paths: set[str] | None = None
    full: bool = False
    progress: bool = False
    title: str = "mnemo: indexing"
    waiters: list[asyncio.Future[IndexStats]] = field(default_factory=list)

    def merge(self, other: Job) -> Job:
        """One job doing the work of both."""
        paths = None if self.paths is None or other.paths is None else self.paths | other.paths
        return Job(
            paths,
            self.full or other.full,
            self.progress or other.progress,
            self.title if self.progress else other.title,
            self.waiters + other.waiters,
        )


class Indexer:
    """The background indexer of one workspace. Its public methods run on the event loop."""

    def __init__(self, server: MnemoServer) -> None:
        self.server = server
        self._pending: Job | None = None
        self._worker: asyncio.Future[None] | None = None
        self._tokens = 0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-index")
        self.opening: asyncio.Future[None] | None = None

    def request(self, job: Job) -> None:
        """Queue ``job`` (merged with any pending one) and start working if idle."""
        self._pending = job if self._pending is None else self._pending.merge(job)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        while self._pending is not None:
            job, self._pending = self._pending, None
            await self._run(job)

    async def _run(self, job: Job) -> None:
        server = self.server
        token = await self._begin(job) if job.progress else None
        server.index.building = True
        stats: IndexStats | None = None
        error: Exception | None = None
        loop = asyncio.get_running_loop()
        for attempt in range(1, ATTEMPTS + 1):
            try:
                stats = await loop.run_in_executor(self._thread, self._update, job, token)
                break
            except MnemoError as exc:
                error = exc
                server.log(
                    f"indexing failed (attempt {attempt} of {ATTEMPTS}): {exc}", types.MessageType.Warning
                )
            except Exception as exc:
                error = exc
                server.log(f"indexing failed:\n{traceback.format_exc()}", types.MessageType.Error)
                break
        server.index.building = False
        self._finish(job, stats, error)
        self._end(token, stats)  # last: a client that saw the end has seen the lens refresh too

    def _update(self, job: Job, token: str | None) -> IndexStats:
        """The engine call, on the index thread."""
        assert self.server.root is not None
        reporter = _Reporter(self.server, token) if token else None
        paths = sorted(job.paths) if job.paths is not None else None
        with Engine(self.server.root) as engine:
            return engine.index(full=job.full, progress=reporter, only=paths)

    async def _begin(self, job: Job) -> str | None:
        server = self.server
        if not server.supports("window", "work_done_progress"):
            return None
        self._tokens += 1
        token = f"mnemo-index-{self._tokens}"
        try:
            await server.work_done_progress.create_async(token)
        except Exception as exc:
            server.log(f"the client refused a progress bar: {exc}", types.MessageType.Warning)
            return None
        server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=job.title, message="listing files", percentage=0, cancellable=False
            ),
        )
        return token

    def _end(self, token: str | None, stats: IndexStats | None) -> None:
        if token is None:
            return
        message = _summary(stats) if stats else "failed; see the mnemo output"
        self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def _finish(self, job: Job, stats: IndexStats | None, error: Exception | None) -> None:
        server = self.server
        for waiter in job.waiters:
            if waiter.done():
                continue
            if stats is not None:
                waiter.set_result(stats)
            else:
                waiter.set_exception(error or MnemoError("indexing failed"))
        server.index.failure = None if stats is not None else str(error or "unknown error")
        if stats is None:
            server.tell_once(
                "index-failed",
                f"mnemo could not update the index: {error}. It will try again on the next save.",
                types.MessageType.Warning,
            )
            return
        server.log(f"index: {_summary(stats)}")
        first = not server.index.ready
        server.index.ready = True
        server.index.percent = 100
        if stats.walked and not server.index.walked:
            server.index.walked = True
            server.tell_once(
                "no-git",
                f"mnemo: {server.root} is not a git repository. Context and callers "
                "work; history (last change, churn, PR context) needs git.",
            )
        if first or stats.parsed or stats.removed:
            self._refresh_lenses()

    def _refresh_lenses(self) -> None:
        server = self.server
        if server.supports("workspace", "code_lens", "refresh_support"):
            server.workspace_code_lens_refresh(None)


class _Reporter:
    """The engine's progress callback: posts a ``$/progress`` report every ``PROGRESS_STEP`` percent."""

    def __init__(self, server: MnemoServer, token: str) -> None:
        self.server = server
        self.token = token
        self.last = -PROGRESS_STEP

    def __call__(self, phase: str, done: int, total: int) -> None:
        percent = min(99, done * 100 // max(total, 1))
        self.server.index.percent = percent
        if percent - self.last < PROGRESS_STEP and done < total:
            return
        self.last = percent
        report = types.WorkDoneProgressReport(message=f"{phase} {done}/{total} files", percentage=percent)
        self.server.post(self.server.work_done_progress.report, self.token, report)


def _summary(stats: IndexStats) -> str:
    return (
        f"{stats.files} files, {stats.symbols} symbols, {stats.edges} edges; "
        f"{stats.parsed} parsed, {stats.removed} removed in {stats.elapsed_ms} ms"
    )


def setup(server: MnemoServer) -> None:
    """Register the handlers that build the index and keep it fresh, and ``mnemo.reindex``."""
    indexer = Indexer(server)

    @server.feature(types.INITIALIZED)
    def initialized(ls: MnemoServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.loop.set_exception_handler(quiet_when_client_left)
        # A task of its own, not the handler: a client leaving mid-way cancels it quietly.
        indexer.opening = asyncio.ensure_future(open_workspace(ls))

    async def open_workspace(ls: MnemoServer) -> None:
        try:
            root = ls.open_workspace()
        except MnemoError as exc:
            ls.tell(f"mnemo: {exc}", types.MessageType.Error)
            return
        if root is None:
            ls.tell(NO_WORKSPACE, types.MessageType.Warning)
            return
        ls.log(f"mnemo-lsp {ls.version} on {root}")
        ls.index.ready = await ls.quietly("opening the index", _has_files, ls, default=False)
        await _watch_files(ls)
        indexer.request(Job(progress=True, title="mnemo: indexing the workspace"))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MnemoServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.inside(params.text_document.uri)
        if path is not None:
            indexer.request(Job(paths={path}))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: MnemoServer, params: types.DidChangeWatchedFilesParams) -> None:
        changed = [(ls.inside(c.uri), c.type) for c in params.changes]
        relevant = [(p, kind) for p, kind in changed if p is not None and not p.startswith(IGNORED_DIRS)]
        if relevant:
            indexer.request(Job())

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: MnemoServer, params: Any) -> None:
        ls.shutdown_requested = True
        ls.close()

    @server.feature(types.EXIT)
    def exit(ls: MnemoServer, params: Any) -> None:
        if not ls.shutdown_requested:
            ls.exit_code = 1

    @server.command(REINDEX)
    async def reindex_command(ls: MnemoServer, *args: Any) -> dict[str, Any]:
        try:
            arguments(REINDEX, args)
            if ls.root is None:
                raise MnemoError(NO_WORKSPACE)
            return await reindex(indexer)
        except Exception as exc:
            raise ls.rpc_error(REINDEX, exc) from None


def _has_files(server: MnemoServer) -> bool:
    return server.engine().has_index()


async def _watch_files(server: MnemoServer) -> None:
    """Ask the client to report files created, changed and deleted outside the editor."""
    if not server.supports("workspace", "did_change_watched_files", "dynamic_registration"):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=WATCH_GLOB)]
    )
    registration = types.Registration(
        id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:
        server.log(f"the client did not accept a file watcher: {exc}", types.MessageType.Warning)


async def reindex(indexer: Indexer) -> dict[str, Any]:
    """A full rebuild with progress; resolves with the indexer's numbers."""
    waiter: asyncio.Future[IndexStats] = asyncio.get_running_loop().create_future()
    job = Job(full=True, progress=True, title="mnemo: rebuilding the index", waiters=[waiter])
    indexer.request(job)
    started = time.perf_counter()
    stats = await waiter
    assert indexer.server.root is not None
    return {
        **index_run_json(indexer.server.root, stats),
        "waited_ms": round((time.perf_counter() - started) * 1000),
    }
