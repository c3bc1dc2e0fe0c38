"""Keep each workspace folder's index fresh: the first build, saves, and changes outside the editor.

Each folder has its own indexer. Index jobs run one at a time on its own thread (the engine takes a
file lock, so a CLI ``mnemo index`` on the same repository waits for us and we wait for it). Work
that arrives while a job runs is merged into one pending job. A save re-indexes just the saved file;
file events from the client's watcher (created, changed, deleted, renamed) run one incremental
update over the repository's listing, which respects its ignore rules (a package installed into
``.venv`` must not end up in the index) and costs a ``stat`` per file. Builds the user waits for
report ``$/progress`` (begin, report with percentages, end); after every job the client is asked to
refresh its lenses. When the ``semantic`` extra is installed, the symbols whose text has no vector
yet are encoded after the index is up to date, on a thread of their own (with their own progress
when there are many); they stop between batches when an index job arrives and resume after it.
Changes git makes outside the editor (a pull, a checkout, a commit) are noticed by polling git's own
files (``gitwatch``), for clients that send no file events at all; and when the client offers no
file watching (Neovim on Linux), the server watches the work tree itself (``mnemo_core.treewatch``:
source files, debounced) and runs the same incremental update.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server import gitwatch
from lsp_server.commands import REINDEX, arguments, text_field
from lsp_server.server import NO_WORKSPACE, Folder, MnemoServer, quiet_when_client_left
from mnemo_core.engine import Engine, VectorPlan, languages, watch_async
from mnemo_core.errors import MnemoError
from mnemo_core.model import IndexStats
from mnemo_core.render import index_run_json

ATTEMPTS = 3  # each attempt already waits for another indexer's lock; then give up until the next event
PROGRESS_STEP = 5  # percent between two progress reports: enough to move a bar, few enough messages
VECTOR_BAR_MIN = 64  # symbols to encode: about 4 s of work; a shorter vector build shows no progress bar
VECTOR_TITLE = "mnemo: vectors for the semantic channel"
WATCH_ID = "mnemo-watch"
IGNORED_DIRS = (".git/", ".mnemo/")


@dataclass
class Job:
    """Index work: some paths (``None``: the whole listing), a rebuild, whether to show progress."""

    paths: set[str] | None = None
    full: bool = False
    progress: bool = False
    title: str = "mnemo: indexing"
    waiters: list[asyncio.Future[IndexStats]] = field(default_factory=list)
    refresh: bool = False  # git's state moved: lenses' history may change although no file did

    def merge(self, other: Job) -> Job:
        """One job doing the work of both."""
        paths = None if self.paths is None or other.paths is None else self.paths | other.paths
        return Job(
            paths,
            self.full or other.full,
            self.progress or other.progress,
            self.title if self.progress else other.title,
            self.waiters + other.waiters,
            self.refresh or other.refresh,
        )


class Indexer:
    """The background indexer of one workspace folder, and the folder's background tasks (its first
    freshness check, its git poller). Its public methods run on the event loop."""

    def __init__(self, server: MnemoServer, folder: Folder) -> None:
        self.server = server
        self.folder = folder
        self._pending: Job | None = None
        self._worker: asyncio.Future[None] | None = None
        self._tokens = 0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-index")
        self.tasks: list[asyncio.Future[None]] = []
        self._vector_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-vectors")
        self._vector_work: asyncio.Future[None] | None = None
        self._vectors_due = True  # the index changed since the vectors were last brought up to date
        self._closed = False

    def close(self) -> None:
        """Stop the background tasks and take no more work: the job running finishes, pending ones
        are dropped."""
        for task in self.tasks:
            task.cancel()
        self._closed = True  # a vector build stops at its next batch
        self._pending = None
        self._thread.shutdown(wait=False, cancel_futures=True)
        self._vector_thread.shutdown(wait=False, cancel_futures=True)

    def request(self, job: Job) -> None:
        """Queue ``job`` (merged with any pending one) and start working if idle."""
        self._pending = job if self._pending is None else self._pending.merge(job)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        while self._pending is not None:
            job, self._pending = self._pending, None
            await self._run(job)
        if self._vectors_due and (self._vector_work is None or self._vector_work.done()):
            self._vector_work = asyncio.ensure_future(self._vectors())

    async def _vectors(self) -> None:
        """Bring the vectors up to date while the index is idle (a job's end starts this again)."""
        while self._vectors_due and not self._interrupted() and not self.folder.index.building:
            await self._vector_round()

    def _interrupted(self) -> bool:
        """Whether a vector build should stop: a job waits, or the server is closing."""
        return self._closed or self._pending is not None

    async def _vector_round(self) -> None:
        """Encode the symbols that have no vector yet (on the vector thread, beside the index thread),
        stopping between batches for a new job; the job's end starts this again."""
        self._vectors_due = False
        loop = asyncio.get_running_loop()
        token: str | None = None
        message = "failed; see the mnemo output"
        try:
            plan = await loop.run_in_executor(self._vector_thread, _missing_vectors, self.folder.root)
            if plan is None:
                return
            if len(plan.missing) >= VECTOR_BAR_MIN:
                token = await self._begin(Job(progress=True, title=VECTOR_TITLE))
            reporter = _VectorReporter(self.server, token)
            stats = await loop.run_in_executor(self._vector_thread, plan.run, reporter, self._interrupted)
            self._vectors_due |= stats.encoded < len(plan.missing)  # stopped early: more to do
            message = f"{stats.encoded} of {len(plan.missing)} symbols encoded"
            self.server.log(f"vectors: {message}, {stats.reused} reused ({self.folder.root})")
        except Exception as exc:  # the vectors are an extra: their failure must not stop the index
            self.server.log(f"vectors failed: {exc}", types.MessageType.Warning)
        finally:
            if token is not None:
                self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    async def _run(self, job: Job) -> None:
        server, state = self.server, self.folder.index
        token = await self._begin(job) if job.progress else None
        state.building = True
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
        state.building = False
        self._vectors_due |= stats is not None and bool(stats.parsed or stats.removed)
        self._finish(job, stats, error)
        self._end(token, stats)  # last: a client that saw the end has seen the lens refresh too

    def _update(self, job: Job, token: str | None) -> IndexStats:
        """The engine call, on the index thread."""
        reporter = _Reporter(self.server, self.folder, token)  # it keeps the percentage answers tell
        paths = sorted(job.paths) if job.paths is not None else None
        with Engine(self.folder.root) as engine:
            stats = engine.index(full=job.full, progress=reporter, only=paths)
        if stats.parsed or stats.removed:
            self._warm_lenses()
        return stats

    def _warm_lenses(self) -> None:
        """Compute the lenses of the files the editor showed lately, before the refresh asks for them:
        a re-index changes the graph, and a file's test counts take a walk per symbol."""
        engine = self.folder.engine()
        for path in self.folder.lenses_shown():
            try:
                engine.lenses(path)
            except MnemoError as exc:
                self.server.log(f"code lens of {path}: {exc}", types.MessageType.Warning)
            except Exception:  # a bug in the lenses must not fail the index run
                failure = traceback.format_exc()
                self.server.log(f"code lens of {path} failed:\n{failure}", types.MessageType.Error)

    async def _begin(self, job: Job) -> str | None:
        server = self.server
        if not server.supports("window", "work_done_progress"):
            return None
        self._tokens += 1
        token = f"mnemo-index-{self.folder.root.name}-{self._tokens}"
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
        server, folder, state = self.server, self.folder, self.folder.index
        folder.checked.set()
        for waiter in job.waiters:
            if waiter.done():
                continue
            if stats is not None:
                waiter.set_result(stats)
            else:
                waiter.set_exception(error or MnemoError("indexing failed"))
        state.failure = None if stats is not None else str(error or "unknown error")
        if stats is None:
            server.tell_once(
                f"index-failed {folder.root}",
                f"mnemo could not update the index of {folder.root}: {error}. "
                "It will try again on the next save.",
                types.MessageType.Warning,
            )
            return
        server.log(f"index: {_summary(stats)} ({folder.root})")
        first = not state.ready
        state.ready = True
        state.percent = 100
        folder.built.set()
        if stats.walked and not state.walked:
            state.walked = True
            server.tell_once(
                f"no-git {folder.root}",
                f"mnemo: {folder.root} is not a git repository. Context and callers "
                "work; history (last change, churn, PR context) needs git.",
            )
        if first or job.refresh or stats.parsed or stats.removed:
            self._refresh_lenses()
        if first or job.refresh or stats.parsed or stats.removed:  # git moved: last changes may differ
            warm = server.warm_cards
            server.later(("cards", folder.root), "hover cards of the open files", warm, folder, True)

    def _refresh_lenses(self) -> None:
        server = self.server
        if server.supports("workspace", "code_lens", "refresh_support"):
            server.workspace_code_lens_refresh(None)


class _Reporter:
    """The engine's progress callback: keeps the folder's percentage, and with a ``token`` (a client
    showing progress) posts a ``$/progress`` report every ``PROGRESS_STEP`` percent."""

    def __init__(self, server: MnemoServer, folder: Folder, token: str | None) -> None:
        self.server = server
        self.state = folder.index
        self.token = token
        self.last = -PROGRESS_STEP

    def __call__(self, phase: str, done: int, total: int) -> None:
        percent = min(99, done * 100 // max(total, 1))
        self.state.percent = percent
        if self.token is None or (percent - self.last < PROGRESS_STEP and done < total):
            return
        self.last = percent
        report = types.WorkDoneProgressReport(message=f"{phase} {done}/{total} files", percentage=percent)
        self.server.post(self.server.work_done_progress.report, self.token, report)


def _missing_vectors(root: Path) -> VectorPlan | None:
    with Engine(root) as engine:
        return engine.missing_vectors()


class _VectorReporter:
    """The vector build's progress callback: a ``$/progress`` report every ``PROGRESS_STEP`` percent."""

    def __init__(self, server: MnemoServer, token: str | None) -> None:
        self.server = server
        self.token = token
        self.last = -PROGRESS_STEP

    def __call__(self, phase: str, done: int, total: int) -> None:
        percent = min(99, done * 100 // max(total, 1))
        if self.token is None or (percent - self.last < PROGRESS_STEP and done < total):
            return
        self.last = percent
        report = types.WorkDoneProgressReport(message=f"{done}/{total} symbols", percentage=percent)
        self.server.post(self.server.work_done_progress.report, self.token, report)


def _summary(stats: IndexStats) -> str:
    return (
        f"{stats.files} files, {stats.symbols} symbols, {stats.edges} edges; "
        f"{stats.parsed} parsed, {stats.removed} removed in {stats.elapsed_ms} ms"
    )


def setup(server: MnemoServer) -> None:
    """Register the handlers that build the indexes and keep them fresh, and ``mnemo.reindex``."""
    indexers: dict[Path, Indexer] = {}  # by folder root: the server knows its folders, not their indexers

    def start(ls: MnemoServer, folder: Folder) -> None:
        indexers[folder.root] = start_folder(ls, folder)

    def stop(root: Path) -> None:
        indexer = indexers.pop(root, None)
        if indexer is not None:
            indexer.close()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MnemoServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.loop.set_exception_handler(quiet_when_client_left)
        for folder in ls.open_workspace():  # at once: requests from now on find their folder
            start(ls, folder)
        if not ls.folders:
            ls.tell(NO_WORKSPACE, types.MessageType.Warning)
            return
        await _watch_files(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(ls: MnemoServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed:
            if (folder := ls.remove_folder(removed.uri)) is not None:
                stop(folder.root)
                ls.log(f"mnemo-lsp no longer serves {folder.root}")
        for added in params.event.added:
            try:
                folder = ls.add_folder(added.uri)
            except MnemoError as exc:
                ls.tell(f"mnemo: {exc}", types.MessageType.Error)
                continue
            if folder is not None:
                start(ls, folder)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MnemoServer, params: types.DidSaveTextDocumentParams) -> None:
        try:
            folder, path = ls.locate(params.text_document.uri)
        except MnemoError:
            return
        if (indexer := indexers.get(folder.root)) is not None:
            indexer.request(Job(paths={path}))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: MnemoServer, params: types.DidChangeWatchedFilesParams) -> None:
        touched: set[Path] = set()
        for change in params.changes:
            try:
                folder, path = ls.locate(change.uri)
            except MnemoError:
                continue
            if not path.startswith(IGNORED_DIRS):
                touched.add(folder.root)
        for root in touched:
            if (indexer := indexers.get(root)) is not None:
                indexer.request(Job())

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: MnemoServer, params: Any) -> None:
        ls.shutdown_requested = True
        for root in list(indexers):
            stop(root)
        ls.close()

    @server.feature(types.EXIT)
    def exit(ls: MnemoServer, params: Any) -> None:
        if not ls.shutdown_requested:
            ls.exit_code = 1

    @server.command(REINDEX)
    async def reindex_command(ls: MnemoServer, *args: Any) -> dict[str, Any]:
        try:
            folder = ls.folder(text_field(arguments(REINDEX, args), "folder"))
            indexer = indexers.get(folder.root)
            if indexer is None:
                raise MnemoError(f"{folder.root} is not served yet; try again in a moment")
            return await reindex(indexer)
        except Exception as exc:
            raise ls.rpc_error(REINDEX, exc) from None


def start_folder(server: MnemoServer, folder: Folder) -> Indexer:
    """A newly served folder's indexer, with its first freshness check and its git poller started
    (tasks of their own, not the handler's: a client leaving mid-way cancels them quietly)."""
    indexer = Indexer(server, folder)
    indexer.tasks.append(asyncio.ensure_future(_open_folder(server, folder, indexer)))
    indexer.tasks.append(
        asyncio.ensure_future(gitwatch.watch(folder.root, lambda: indexer.request(Job(refresh=True))))
    )
    if not watched_by_client(server):
        indexer.tasks.append(asyncio.ensure_future(_watch_tree(server, folder, indexer)))
    return indexer


def watched_by_client(server: MnemoServer) -> bool:
    """Whether the client reports files changed outside the editor (it takes a watcher's
    registration); if not, the server watches the work tree itself."""
    return server.supports("workspace", "did_change_watched_files", "dynamic_registration")


async def _watch_tree(server: MnemoServer, folder: Folder, indexer: Indexer) -> None:
    """Re-index after source files change on disk (an incremental update over the listing, which
    keeps the index's ignore rules); a watcher that cannot start is logged, never fatal."""
    server.log(f"the client watches no files: mnemo-lsp watches {folder.root} itself")
    try:
        await watch_async(folder.root, lambda paths: indexer.request(Job()))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        server.log(f"cannot watch {folder.root} for changes: {exc}", types.MessageType.Warning)


async def _open_folder(server: MnemoServer, folder: Folder, indexer: Indexer) -> None:
    server.log(f"mnemo-lsp {server.version} on {folder.root}")
    folder.index.ready = await server.quietly("opening the index", _has_files, folder, default=False)
    if folder.index.ready:
        folder.built.set()
    else:
        folder.checked.set()  # a first build: requests are told its progress, not kept waiting
    indexer.request(Job(progress=True, title="mnemo: indexing the workspace"))


def _has_files(folder: Folder) -> bool:
    return folder.engine().has_index()


async def _watch_files(server: MnemoServer) -> None:
    """Ask the client to report source files created, changed and deleted outside the editor."""
    if not watched_by_client(server):
        return
    globs = sorted({f"**/*{ext}" for extensions in languages().values() for ext in extensions})
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in globs]
    )
    registration = types.Registration(
        id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:
        server.log(f"the client did not accept a file watcher: {exc}", types.MessageType.Warning)


async def reindex(indexer: Indexer) -> dict[str, Any]:
    """A full rebuild of one folder's index with progress; resolves with the indexer's numbers."""
    waiter: asyncio.Future[IndexStats] = asyncio.get_running_loop().create_future()
    job = Job(full=True, progress=True, title="mnemo: rebuilding the index", waiters=[waiter])
    indexer.request(job)
    started = time.perf_counter()
    stats = await waiter
    return {
        **index_run_json(indexer.folder.root, stats),
        "waited_ms": round((time.perf_counter() - started) * 1000),
    }
