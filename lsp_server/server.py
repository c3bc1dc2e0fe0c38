"""The mnemo language server: one object that owns the workspace's state.

Features live in one module each (``indexing``, ``commands``, ``hover``, ``lens``, ``calls``,
``symbols``, ``configuration``), registered by their ``setup(server)``; this module imports none of
them. Every workspace folder is served: each is a :class:`Folder` (one repository and its index,
kept fresh by its indexer in ``indexing``); a document goes to the folder whose root is the deepest
one containing it, and a request without a document to the first folder. Engine work blocks
(SQLite, git), so handlers hand it to a small thread pool and await it; each worker thread reads a
folder's index through its own :class:`Engine` (SQLite in WAL mode lets them read while the indexer
writes). Every message to the client is sent from the event loop's thread, which keeps both
transports (stdio and TCP) safe.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import traceback
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from lsp_server.cards import WARMED_PER_FILE, CardMaker
from lsp_server.protocol import MnemoProtocol
from lsp_server.settings import Settings
from mnemo_core import __version__
from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError
from mnemo_core.model import ContextPack, ScoredSymbol

READ_WORKERS = 4  # hovers and lenses must not queue behind a long "context for task"
LENS_FILES_WARMED = 4  # after a re-index, the lenses of this many recently shown files are computed first
REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed: valid request, the engine could not answer
ENGINE_LOGGERS = ("mnemo_core", "lsp_server")
LOG_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}
NO_WORKSPACE = "mnemo needs a workspace folder; open a folder, not a single file"
FIRST_CHECK_WAIT_S = 10.0  # a request waits this long for the first freshness check of a complete index
FIRST_BUILD_WAIT_S = 5.0  # a request waits this long for a first build (flask's takes 2-9 s) before answering
T = TypeVar("T")


class BadArguments(MnemoError):
    """A command was called with arguments it cannot use (JSON-RPC InvalidParams)."""


class IndexBeingBuilt(MnemoError):
    """The index cannot answer yet: its first build is running, or it failed."""


@dataclass(frozen=True)
class ActiveTask:
    """The last ``mnemo.contextForTask`` of this session: each packed symbol's rank and score."""

    text: str
    ranks: dict[int, tuple[int, ScoredSymbol]]

    @classmethod
    def from_pack(cls, pack: ContextPack) -> ActiveTask:
        """The ranks of a task answer, best first from 1."""
        return cls(pack.query, {s.symbol.id: (rank, s) for rank, s in enumerate(pack.symbols, start=1)})


@dataclass
class IndexState:
    """What the background indexer is doing; read by request handlers."""

    ready: bool = False  # the index can answer: it had files at start-up, or a build finished
    building: bool = False
    percent: int = 0
    walked: bool = False  # the workspace is not a git repository
    failure: str | None = None  # why the last index run failed, until one succeeds


@dataclass
class _Readers:
    """One engine per worker thread, all closed at shutdown."""

    local: threading.local = field(default_factory=threading.local)
    opened: list[Engine] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(eq=False)
class Folder:
    """One repository the server serves (a workspace folder's top level): its index state and an
    engine per worker thread. Its indexer and git poller belong to ``indexing``."""

    root: Path
    index: IndexState = field(default_factory=IndexState)
    checked: threading.Event = field(default_factory=threading.Event)  # the first freshness check is over
    built: threading.Event = field(default_factory=threading.Event)  # the index can answer (set with ready)
    readers: _Readers = field(default_factory=_Readers)
    memory: bool | None = None  # the client's ``memory`` setting (None: the project's)
    _shown: list[str] = field(default_factory=list)  # files whose lenses the editor asked for, newest last

    def engine(self) -> Engine:
        """This worker thread's engine on the folder; it reads the index as it is (the indexer
        keeps it fresh), and remembers the session as the ``memory`` setting says."""
        engine: Engine | None = getattr(self.readers.local, "engine", None)
        if engine is None:
            engine = self.readers.local.engine = Engine(self.root, update_index=False)
            with self.readers.lock:
                self.readers.opened.append(engine)
        engine.use_memory(self.memory)
        return engine

    def lenses_shown(self, path: str | None = None) -> list[str]:
        """The files whose lenses the editor showed lately (the newest ``LENS_FILES_WARMED``), after
        noting ``path`` as the newest: what to compute before the lenses are refreshed."""
        with self.readers.lock:
            if path is not None:
                if path in self._shown:
                    self._shown.remove(path)
                self._shown.append(path)
                del self._shown[:-LENS_FILES_WARMED]
            return list(self._shown)

    def close(self) -> None:
        """Close every worker thread's engine."""
        with self.readers.lock:
            for engine in self.readers.opened:
                engine.close()
            self.readers.opened.clear()


class MnemoServer(LanguageServer):
    """The language server and the state its features share."""

    def __init__(self) -> None:
        super().__init__(
            name="mnemo-lsp",
            version=__version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=MnemoProtocol,
        )
        self.folders: dict[Path, Folder] = {}  # by root, in the order the client gave them
        self._folder_uris: dict[str, Path] = {}  # each workspace folder's URI -> the root serving it
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: ActiveTask | None = None
        self.settings = Settings()
        self._pool = ThreadPoolExecutor(max_workers=READ_WORKERS, thread_name_prefix="mnemo-read")
        self._later = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-later")
        self.cards = CardMaker(lambda message: self.log(message, types.MessageType.Warning))
        self._queued: set[Hashable] = set()
        self._queued_lock = threading.Lock()
        self._told: set[str] = set()
        self.shutdown_requested = False
        self.exit_code = 0  # the LSP asks for 1 when the client sends ``exit`` without ``shutdown``

    # -- the workspace ------------------------------------------------------------------------
    def open_workspace(self) -> list[Folder]:
        """Serve the folders from ``initialize`` (its workspace folders, else its root URI); one
        that cannot be served is an error message, and the others are served."""
        folders = self.workspace.folders
        uris = [f.uri for f in folders.values()] if folders else [self.workspace.root_uri]
        opened = []
        for uri in filter(None, uris):
            try:
                folder = self.add_folder(uri)
            except MnemoError as exc:
                self.tell(f"mnemo: {exc}", types.MessageType.Error)
                continue
            if folder is not None:
                opened.append(folder)
        return opened

    def add_folder(self, uri: str) -> Folder | None:
        """Serve the repository of a workspace folder; None when it is already served."""
        path = to_fs_path(uri)
        if path is None:
            raise MnemoError(f"{uri} is not a file URI")
        root = Engine.open(path).root
        self._folder_uris[uri] = root
        if root in self.folders:
            return None
        folder = self.folders[root] = Folder(root, memory=self.settings.memory)
        return folder

    def remove_folder(self, uri: str) -> Folder | None:
        """Stop serving a workspace folder; its :class:`Folder`, closed, once no other folder shares
        it (``indexing`` then stops its indexer)."""
        root = self._folder_uris.pop(uri, None)
        if root is None or root in self._folder_uris.values():
            return None
        folder = self.folders.pop(root, None)
        if folder is not None:
            folder.close()
        return folder

    @property
    def root(self) -> Path | None:
        """The first folder's root (None without a workspace)."""
        return next(iter(self.folders), None)

    def primary(self) -> Folder:
        """The folder of requests that name no document: the first one."""
        for folder in self.folders.values():
            return folder
        raise MnemoError(NO_WORKSPACE)

    def locate(self, uri: str) -> tuple[Folder, str]:
        """The folder serving a document and its path there; a clear error outside every folder."""
        if not self.folders:
            raise MnemoError(NO_WORKSPACE)
        path = to_fs_path(uri)
        if path is None:
            raise BadArguments(f"{uri} is not a file URI")
        resolved = Path(path).resolve()
        inside = [f for f in list(self.folders.values()) if resolved.is_relative_to(f.root)]
        if not inside:
            roots = ", ".join(str(root) for root in self.folders)
            raise BadArguments(f"{path} is outside the workspace {roots}")
        folder = max(inside, key=lambda f: len(f.root.parts))  # a nested repository serves its files
        return folder, resolved.relative_to(folder.root).as_posix()

    def folder(self, uri: str | None = None) -> Folder:
        """The folder of a document, or without one the first folder."""
        return self.locate(uri)[0] if uri is not None else self.primary()

    def engine(self, uri: str | None = None) -> Engine:
        """This worker thread's engine on a document's folder (default: the first)."""
        return self.folder(uri).engine()

    def relpath(self, uri: str) -> str:
        """A document URI as a path relative to its folder; a clear error outside the workspace."""
        return self.locate(uri)[1]

    def inside(self, uri: str) -> str | None:
        """The folder-relative path of ``uri``, or None for a file outside the workspace."""
        try:
            return self.relpath(uri)
        except MnemoError:
            return None

    def require_index(self, uri: str | None = None, partial: bool = False) -> Folder:
        """The folder of ``uri`` once its index can answer, else :class:`IndexBeingBuilt` (or, with
        ``partial``, the folder anyway: its answer covers what the index holds). On a worker thread:
        a complete index whose first freshness check runs is waited for, up to
        ``FIRST_CHECK_WAIT_S``, and a first build up to ``FIRST_BUILD_WAIT_S``, so that the first
        answers are neither refused nor stale when the index comes soon."""
        folder = self.folder(uri)
        if not folder.checked.is_set():
            self.log(f"waiting up to {FIRST_CHECK_WAIT_S:g} s for the first index check of {folder.root}")
            folder.checked.wait(FIRST_CHECK_WAIT_S)
        state = folder.index
        if not state.ready and not (state.failure and not state.building):
            self.log(f"waiting up to {FIRST_BUILD_WAIT_S:g} s for the first index build of {folder.root}")
            folder.built.wait(FIRST_BUILD_WAIT_S)
        if state.ready:
            return folder
        if state.failure and not state.building:
            raise IndexBeingBuilt(
                f"the index of {folder.root} could not be built: {state.failure}; "
                "save a file or run mnemo.reindex to try again"
            )
        if partial:
            return folder
        raise IndexBeingBuilt(
            f"the index of {folder.root} is being built ({state.percent}%); try again when it finishes"
        )

    def partial_note(self, folder: Folder) -> str | None:
        """What an answer given before the first build ended says about itself (None after it)."""
        if folder.index.ready:
            return None
        return (
            f"partial: the index is still being built ({folder.index.percent}%); "
            "this answer covers only what it held, ask again when it finishes"
        )

    # -- running engine work ------------------------------------------------------------------
    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """Run blocking engine work on a read thread and await its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, partial(work, *args))

    async def answer(self, what: str, work: Callable[..., T], *args: Any) -> T:
        """Run a request's engine work; failures become JSON-RPC errors (never a dead server)."""
        try:
            return await self.run(work, *args)
        except Exception as exc:
            raise self.rpc_error(what, exc) from None

    def later(self, key: Hashable, what: str, work: Callable[..., object], *args: Any) -> None:
        """Run slow work no request waits for (a symbol's history for the next hover) on one
        background thread; ``key`` already queued is not queued again; failures go to the log."""
        with self._queued_lock:
            if key in self._queued:
                return
            self._queued.add(key)

        def run() -> None:
            try:
                work(*args)
            except Exception:
                self.log(f"{what} failed:\n{traceback.format_exc()}", types.MessageType.Error)
            finally:
                with self._queued_lock:
                    self._queued.discard(key)

        try:
            self._later.submit(run)
        except RuntimeError:  # shutting down
            with self._queued_lock:
                self._queued.discard(key)

    def rpc_error(self, what: str, exc: Exception) -> JsonRpcException:
        """The JSON-RPC error for a failed request: InvalidParams for bad arguments, RequestFailed
        for what the engine refused (one clear line), InternalError (traceback in the log) for bugs."""
        if isinstance(exc, JsonRpcException):
            return exc
        if isinstance(exc, BadArguments):
            return JsonRpcInvalidParams(f"{what}: {exc}")
        if isinstance(exc, MnemoError):
            return JsonRpcException(message=f"{what}: {exc}", code=REQUEST_FAILED)
        self.log(f"{what} failed:\n{''.join(traceback.format_exception(exc))}", types.MessageType.Error)
        return JsonRpcInternalError(f"{what}: internal error ({exc}); details are in the mnemo output")

    async def quietly(self, what: str, work: Callable[..., T], *args: Any, default: T) -> T:
        """Run engine work whose failure the user need not act on: log it, return ``default``."""
        try:
            return await self.run(work, *args)
        except MnemoError as exc:
            self.log(f"{what}: {exc}", types.MessageType.Warning)
        except Exception:
            self.log(f"{what} failed:\n{traceback.format_exc()}", types.MessageType.Error)
        return default

    def warm_cards(self, folder: Folder, changed: bool = False) -> None:
        """Make the hover cards of the folder's files open in the editor ahead of the hovers (after
        a file opens, and after a re-index: ``changed``, the cards made before are forgotten)."""
        if not folder.index.ready:
            return
        engine = folder.engine()
        symbols = []
        for uri in list(self.workspace.text_documents):
            located = self.inside(uri)
            if located is not None and self.folder(uri) is folder:
                found = engine.symbols_in_file(located)
                symbols += [s for s in found if s.kind != "module"][:WARMED_PER_FILE]
        self.cards.warm(folder.root, symbols, changed)

    # -- talking to the client ----------------------------------------------------------------
    def post(self, send: Callable[..., Any], *args: Any) -> None:
        """Call ``send`` on the event loop's thread (from any thread); dropped once the loop is gone."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            send(*args)
            return
        try:
            loop.call_soon_threadsafe(partial(send, *args))
        except RuntimeError:  # the loop closed between the check and the call: the client is gone
            return

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A line in the client's output channel."""
        self.post(self.window_log_message, types.LogMessageParams(type=kind, message=message))

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A pop-up: only for what the user must know or act on."""
        self.post(self.window_show_message, types.ShowMessageParams(type=kind, message=message))

    def tell_once(self, key: str, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A pop-up shown once per session for ``key``; later occurrences go to the log."""
        if key in self._told:
            self.log(message, kind)
            return
        self._told.add(key)
        self.tell(message, kind)

    def supports(self, *path: str) -> bool:
        """Whether the client's capabilities have a truthy value at ``path`` (snake_case names)."""
        node: Any = self.client_capabilities
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return False
        return bool(node)

    # -- shutdown -----------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the read threads and close every folder's engines."""
        self.cards.close()
        self._later.shutdown(wait=True, cancel_futures=True)
        self._pool.shutdown(wait=True, cancel_futures=True)
        for folder in list(self.folders.values()):
            folder.close()


class ClientLogHandler(logging.Handler):
    """Engine log records go to the client's output channel."""

    def __init__(self, server: MnemoServer) -> None:
        super().__init__(level=logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        """Forward one record (as ``window/logMessage``)."""
        kind = LOG_LEVELS.get(record.levelno, types.MessageType.Log)
        self.server.log(self.format(record), kind)


def forward_engine_logs(server: MnemoServer) -> None:
    """Route the engine's and the server's loggers to the client."""
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    for name in ENGINE_LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(min(logger.getEffectiveLevel(), logging.INFO))


CLIENT_GONE = (asyncio.CancelledError, BrokenPipeError, ConnectionResetError)


class ClientStdout:
    """The server's stdout, quiet once the client has closed its end: answers still in flight are
    dropped instead of each raising a broken-pipe traceback."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.gone = False

    def write(self, data: bytes) -> None:
        """Write a message, unless the client is gone."""
        self._attempt(self.stream.write, data)

    def flush(self) -> None:
        """Flush, unless the client is gone."""
        self._attempt(self.stream.flush)

    def close(self) -> None:
        """Close our end."""
        self._attempt(self.stream.close)

    def _attempt(self, action: Callable[..., object], *args: Any) -> None:
        if self.gone:
            return
        try:
            action(*args)
        except (OSError, ValueError):  # broken pipe, or already closed
            self.gone = True


def quiet_when_client_left(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's error handler: requests cancelled because the client closed the connection
    are not errors (there is no one left to answer); anything else is reported as usual."""
    if isinstance(context.get("exception"), CLIENT_GONE):
        return
    loop.default_exception_handler(context)
