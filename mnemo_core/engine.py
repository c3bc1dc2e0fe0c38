"""The engine's front door: one :class:`Engine` per repository, whose methods are mnemo's verbs.

Front ends (the CLI, the language server, CI, the MCP server) hold an engine and call its verbs;
they import this module, ``model``, ``errors`` and the renderers, nothing deeper. The engine owns
the :class:`Repository` (one SQLite connection, so one engine per thread), checks each verb's
arguments, brings the index up to date once per call (unless opened with ``update_index=False``,
as the language server does: its own indexer keeps the index fresh), resolves HEAD once per call
and hands that down to the pipelines, which resolve every other ref they need once too.

Budgets and depths left out (None) are the project's (``[tool.mnemo]`` or ``mnemo.toml``), else
mnemo's defaults.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from mnemo_core import lookup, pipelines
from mnemo_core.config import Config, load_config
from mnemo_core.defaults import (
    BLAST_DEPTH,
    DEFAULT_BUDGET,
    DEFAULT_DEPTH,
    DEFAULT_FILES_DEPTH,
    DEFAULT_HISTORY,
)
from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import Progress
from mnemo_core.index.languages import registry
from mnemo_core.lookup import Hop
from mnemo_core.memory import Memory
from mnemo_core.model import ContextPack, Explanation, Feedback, IndexStats, ScoredSymbol, Symbol
from mnemo_core.pipelines import Call
from mnemo_core.repository import Repository, recovering
from mnemo_core.retrieve.recall import Recall
from mnemo_core.retrieve.score import is_declaration
from mnemo_core.vcs.git import head_commit
from mnemo_core.vcs.refs import resolve_range, resolve_ref
from mnemo_core.vcs.state import git_state

if TYPE_CHECKING:
    from mnemo_core.at_commit import CommitTree
    from mnemo_core.card_worker import CardWorker
    from mnemo_core.change.measured import CoverageSource
    from mnemo_core.insight import LENS_KINDS, LastChange, Lens, SymbolCard
    from mnemo_core.semantic.vectors import VectorPlan, VectorStats
    from mnemo_core.symbol_history import SymbolHistory

# what the front ends import from here but a query never needs: loaded on first use (PEP 562)
_ON_FIRST_USE = {
    "LENS_KINDS": "mnemo_core.insight",
    "LastChange": "mnemo_core.insight",
    "Lens": "mnemo_core.insight",
    "SymbolCard": "mnemo_core.insight",
    "SymbolHistory": "mnemo_core.symbol_history",
    "VectorPlan": "mnemo_core.semantic.vectors",
}

__all__ = [
    "BLAST_DEPTH",
    "DEFAULT_BUDGET",
    "DEFAULT_DEPTH",
    "DEFAULT_FILES_DEPTH",
    "DEFAULT_HISTORY",
    "LENS_KINDS",
    "CardWorker",
    "Direction",
    "Engine",
    "Feedback",
    "Hop",
    "LastChange",
    "Lens",
    "Progress",
    "SymbolCard",
    "SymbolHistory",
    "VectorPlan",
    "Walk",
    "card_worker",
    "git_state",
    "languages",
    "recovering",
    "watch_async",
    "watch_thread",
]

log = logging.getLogger(__name__)


def __getattr__(name: str) -> Any:
    """A name the front ends import from here, from the module that defines it (see ``_ON_FIRST_USE``)."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_ON_FIRST_USE[name]), name)


async def watch_async(root: Path, changed: Callable[[list[str]], None]) -> None:
    """Call ``changed`` with each debounced burst of source files changed under ``root`` (see
    ``mnemo_core.treewatch``, loaded only by a front end that watches)."""
    from mnemo_core import treewatch

    await treewatch.watch_async(root, changed)


def watch_thread(root: Path, changed: Callable[[list[str]], None], stop: threading.Event) -> threading.Thread:
    """The same on a daemon thread of its own, until ``stop`` is set."""
    from mnemo_core import treewatch

    return treewatch.watch_thread(root, changed, stop)


def card_worker(root: Path) -> CardWorker:
    """A worker process that makes the whole hover cards of ``root`` off the caller's interpreter
    (see ``mnemo_core.card_worker``, loaded only by a front end that asks)."""
    from mnemo_core.card_worker import CardWorker

    return CardWorker(root)


def languages() -> dict[str, tuple[str, ...]]:
    """The languages mnemo indexes, by name, with their file extensions."""
    return {name: spec.extensions for name, spec in sorted(registry().items())}


Direction = Literal["in", "out"]  # along call edges: "in" to the callers, "out" to the callees


@dataclass(frozen=True, slots=True)
class Walk:
    """``callers`` or ``callees``: the symbols a handle names, and each symbol reached from them."""

    start: tuple[Symbol, ...]
    hops: tuple[Hop, ...]
    direction: Direction


Noticed = Literal["opened", "hovered", "edited"]  # what an editor or agent did with code


class Engine:
    """One repository and its index; each public method is a verb."""

    def __init__(
        self,
        root: Path,
        update_index: bool = True,
        memory: bool | None = None,
        clock: Callable[[], float] = time.time,
        progress: Progress | None = None,
    ) -> None:
        """An engine on the repository whose top level is ``root`` (see :meth:`open` for any path).
        ``memory`` (default: the ``memory`` setting, else on) remembers the session and the tasks
        in ``.mnemo/memory.db``; ``clock`` tells its time; ``progress`` hears how bringing the
        index up to date before a verb goes (a long first call)."""
        self.repository = Repository(root)
        self.update_index = update_index
        self.progress = progress
        self.memory = Memory(root, memory, clock)
        self.at: CommitTree | None = None

    @classmethod
    def open(
        cls,
        path: str | Path,
        update_index: bool = True,
        memory: bool | None = None,
        at: str | None = None,
        plain: bool = False,
        progress: Progress | None = None,
    ) -> Engine:
        """The engine of the repository containing ``path`` (its git top level; a directory outside
        git only with ``plain``, or once indexed so). ``at`` (a ref) answers against that commit's
        files, from git's objects, leaving the work tree alone (see ``mnemo_core.at_commit``); such
        an engine has no memory, and its answers name the repository and the commit."""
        root = Repository.open(path, plain).root
        if at is None:
            return cls(root, update_index, memory, progress=progress)
        from mnemo_core.at_commit import open_commit_tree

        tree = open_commit_tree(root, at)
        try:
            engine = cls(tree.root, update_index, memory=False, progress=progress)
        except BaseException:
            tree.close()
            raise
        engine.at = tree
        return engine

    @property
    def root(self) -> Path:
        """The repository's top level."""
        return self.repository.root

    @property
    def config(self) -> Config:
        """The project's settings, read afresh (a long-lived engine sees the file change); at
        another commit, still the work tree's."""
        return load_config(self.at.origin if self.at else self.root)

    def at_fields(self) -> dict[str, Any]:
        """The ``at`` member of a JSON answer given at another commit (nothing otherwise)."""
        if self.at is None:
            return {}
        return {"at": {"ref": self.at.ref, "commit": self.at.commit}}

    def close(self) -> None:
        """Close the index connection and the memory file, and release another commit's files."""
        self.repository.close()
        self.memory.close()
        if self.at is not None:
            self.at.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- the index ------------------------------------------------------------------------------
    def index(
        self, full: bool = False, progress: Progress | None = None, only: list[str] | None = None
    ) -> IndexStats:
        """Build or update the index (incremental unless ``full``; ``only`` some paths)."""
        return self.repository.update_index(full=full, progress=progress, only=only)

    def vectors(self, progress: Progress | None = None) -> VectorStats | None:
        """Bring the semantic channel's vectors up to date with the index (after it, never inside
        it); None when the ``semantic`` extra is not installed."""
        from mnemo_core.semantic.encoder import available

        if not available():
            return None
        from mnemo_core.semantic.vectors import build_vectors

        return build_vectors(self.repository.store, self.repository.root, progress)

    def missing_vectors(self) -> VectorPlan | None:
        """The plan of the vectors the index's symbols lack, for a long-lived process
        (``plan.run(progress, stop)`` encodes them); None without the extra or when none is missing."""
        from mnemo_core.semantic.vectors import missing_vectors

        return missing_vectors(self.repository.root)

    def has_index(self) -> bool:
        """Whether the index holds a finished build (without updating it): files, and the commit it
        was built at (a first build commits its files as it goes, and the commit at its end)."""
        store = self.repository.store
        return store.file_count() > 0 and store.meta("commit") is not None

    def stats(self) -> dict[str, Any]:
        """What the index holds: files by language, symbols by kind, edges by type and resolution."""
        self._fresh()
        return lookup.stats(self.repository)

    # -- the coverage map (``pytest --mnemo-record``) ----------------------------------------------
    def coverage_map(self, path: str | Path | None = None) -> dict[str, object]:
        """What the coverage map holds (``path``, else the repository's): its commit, tests, files."""
        from mnemo_core.covmap.store import map_facts, map_path

        return map_facts(Path(path).absolute() if path else map_path(self.root))

    def merge_coverage_maps(
        self, maps: Sequence[str | Path], into: str | Path | None = None
    ) -> tuple[Path, str, int]:
        """Merge maps recorded elsewhere (CI shards, jobs of a matrix) into ``into`` (else the
        repository's map): where it is, the commit its lines are numbered at, the tests written."""
        from mnemo_core.covmap.record import merge_maps
        from mnemo_core.covmap.store import map_path

        missing = [str(m) for m in maps if not Path(m).is_file()]
        if missing:
            raise MnemoError(f"no such coverage map: {', '.join(missing)}")
        target = Path(into).absolute() if into else map_path(self.root, create=True)
        commit, written = merge_maps(self.root, [Path(m) for m in maps], target)
        return target, commit, written

    # -- the index's questions ------------------------------------------------------------------
    def find(self, pattern: str, limit: int = 50) -> list[Symbol]:
        """Symbols whose name, qualified name or ``path:name`` matches ``pattern`` (globs allowed)."""
        self._fresh()
        return lookup.find(self.repository, pattern, limit)

    def search_names(self, query: str, limit: int = 50) -> list[Symbol]:
        """Symbols whose short name is ``query`` (ignoring case), then those whose name contains
        it (code before tests, shortest names first), at most ``limit``; with an empty query, the
        first symbols in path order."""
        self._fresh()
        if not query:  # a file is not a symbol to a picker: the editor finds files itself
            return [s for s in lookup.find(self.repository, "*", limit) if s.kind != "module"]
        exact = self.repository.store.symbols_named([query], limit=limit)[query]
        return exact + self.repository.store.symbols_containing(query, limit - len(exact))

    def symbols(self, ids: Iterable[int]) -> dict[int, Symbol]:
        """The symbols with these ids that are still in the index, by id."""
        self._fresh()
        return self.repository.store.symbols_by_ids(ids)

    def symbol_named(self, path: str, name: str, kind: str) -> Symbol | None:
        """The symbol of a qualified name and kind in a file (the first of duplicates): how a front
        end that kept a symbol finds it again once a re-index has given it another id."""
        self._fresh()
        return self.repository.store.symbols_by_keys([(path, name, kind)]).get((path, name, kind))

    def calls(self, symbol: Symbol, direction: Direction) -> list[Hop]:
        """The symbols one call away: its callers (``"in"``) or callees (``"out"``), each with the
        edge (its call line). Links the resolver only guessed by name are left out, as in the
        hover's caller count."""
        from mnemo_core.change.impact import is_sure

        self._fresh()
        hops = lookup.walk(self.repository, [symbol], direction, depth=1)
        return [hop for hop in hops if is_sure(hop.via.confidence)]

    def callers(self, handle: str, depth: int = 1) -> Walk:
        """Who calls the symbols ``handle`` names, up to ``depth`` hops."""
        return self._walk(handle, "in", depth)

    def callees(self, handle: str, depth: int = 1) -> Walk:
        """What the symbols ``handle`` names call, up to ``depth`` hops."""
        return self._walk(handle, "out", depth)

    def history(self, handle: str, limit: int = DEFAULT_HISTORY) -> list[SymbolHistory]:
        """For each symbol ``handle`` names, the newest ``limit`` commits that changed its lines; of a
        name with an implementation, not its ``@overload`` stubs (their lines say nothing more)."""
        self._fresh()
        named = lookup.resolve_symbol(self.repository, handle)
        implemented = [s for s in named if not is_declaration(s)]
        return [self.symbol_history(s, limit) for s in implemented or named]

    def symbol_history(self, symbol: Symbol, limit: int = DEFAULT_HISTORY) -> SymbolHistory:
        """The newest ``limit`` commits that changed one symbol's lines (``git log -L``; the answer
        is remembered for ``known_history``)."""
        from mnemo_core.symbol_history import symbol_history

        return symbol_history(self.repository, symbol, limit)

    def known_history(self, symbol: Symbol, limit: int = DEFAULT_HISTORY) -> SymbolHistory | None:
        """``symbol_history`` when this process has already read it for the same HEAD and file
        (None otherwise): no git process, fit for a hover."""
        from mnemo_core.symbol_history import known_history

        return known_history(self.repository, symbol, limit)

    def _walk(self, handle: str, direction: Direction, depth: int) -> Walk:
        self._fresh()
        start = lookup.resolve_symbol(self.repository, handle)
        hops = lookup.walk(self.repository, start, direction, depth)
        return Walk(tuple(start), tuple(hops), direction)

    # -- context --------------------------------------------------------------------------------
    def task(
        self, text: str, budget: int | None = None, limit: int | None = None, offset: int = 0
    ) -> ContextPack:
        """The symbols to read first for a task in words, ranked and packed into a token budget;
        ``offset`` skips that many of the best-ranked (the next page of a long answer)."""
        started = time.perf_counter()
        budget = self._budget(budget)
        if offset < 0:
            raise MnemoError(f"the offset must be 0 or more (got {offset})")
        call = self._call(started)
        recall = self._recall(call)
        pack = pipelines.for_task(call, text, budget, limit, recall=recall, offset=offset)
        self.memory.asked(text, call.commit)
        if self.at is not None:
            pack = replace(pack, repo=str(self.at.origin), notes=(self.at.note(), *pack.notes))
        return self._shown(pack)

    def explain(self, text: str, handle: str) -> Explanation:
        """Every part of one symbol's score for a task."""
        call = self._call()
        return pipelines.explain(call, text, handle, recall=self._recall(call))

    def pr(
        self,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        worktree: bool = False,
        depth: int | None = None,
        budget: int | None = None,
        coverage: str | Path | None = None,
        coverage_commit: str | None = None,
    ) -> ContextPack:
        """The blast radius of a change: ``base..head`` (default: the merge-base with the default
        branch, to HEAD), the staged change, or the working tree against HEAD. ``coverage``: a
        coverage.py data file with per-test contexts, taken at ``coverage_commit`` (defaults: the
        project's ``coverage`` and ``coverage_commit``, else none and HEAD); the tests of each
        changed symbol it measured are those that ran it."""
        started = time.perf_counter()
        budget, depth = self._budget(budget), self._depth(depth)
        pipelines.check_change(head, staged, worktree)
        source = self._coverage(coverage, coverage_commit)
        return self._shown(
            pipelines.for_pr(self._call(started), base, head, staged, worktree, depth, budget, source)
        )

    def files(
        self,
        paths: list[str],
        depth: int = DEFAULT_FILES_DEPTH,
        budget: int | None = None,
        coverage: str | Path | None = None,
        coverage_commit: str | None = None,
    ) -> ContextPack:
        """The context of some files: their symbols, their callers and the tests that reach them
        (those that ran them, with coverage data: see :meth:`pr`)."""
        started = time.perf_counter()
        budget = self._budget(budget)
        pipelines.check_depth(depth)
        source = self._coverage(coverage, coverage_commit)
        return self._shown(pipelines.for_files(self._call(started), paths, depth, budget, source))

    def commits(self, spec: str) -> tuple[str, str | None]:
        """The base and head of a range as git writes it (``A..B``, ``A...B`` from their merge-base,
        ``A`` from its merge-base with HEAD, like a pull request): the head None when it is HEAD."""
        commits = resolve_range(self.root, spec)
        return commits.base, None if commits.head == resolve_ref(self.root, "HEAD") else commits.head

    def tests(
        self,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        worktree: bool = False,
        depth: int | None = None,
        sure_only: bool = False,
        coverage: str | Path | None = None,
        coverage_commit: str | None = None,
    ) -> tuple[ScoredSymbol, ...]:
        """The tests a change reaches (same selectors and coverage data as :meth:`pr`): the sure
        ones, then, unless ``sure_only``, those reached only through a name guess."""
        return self.test_selection(base, head, staged, worktree, depth, sure_only, coverage, coverage_commit)[
            0
        ]

    def test_selection(
        self,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        worktree: bool = False,
        depth: int | None = None,
        sure_only: bool = False,
        coverage: str | Path | None = None,
        coverage_commit: str | None = None,
    ) -> tuple[tuple[ScoredSymbol, ...], tuple[str, ...]]:
        """:meth:`tests`, with the answer's notes (where the tests came from: the coverage map)."""
        pack = self.pr(
            base, head, staged, worktree, depth, coverage=coverage, coverage_commit=coverage_commit
        )
        from mnemo_core.vcs.diff import SKIPPED_NOTE

        for note in pack.notes:  # a list of tests has no room for notes: the files not read are said apart
            if note.startswith(SKIPPED_NOTE):
                log.warning("%s", note)
        return pipelines.selected_tests(pack.impact, sure_only), pack.notes

    # -- memory ---------------------------------------------------------------------------------
    def feedback(self, text: str, used: Sequence[str] = (), useless: Sequence[str] = ()) -> Feedback:
        """Remember which symbols (handles, as for ``why``) were useful and useless for a task: a
        later similar task recalls the useful ones and demotes the useless ones."""
        if not text or not text.strip():
            raise MnemoError("the task is empty; give the task the feedback is about")
        if not used and not useless:
            raise MnemoError("name at least one symbol with --used or --useless")
        self._fresh()
        found_used = [s for handle in used for s in lookup.resolve_symbol(self.repository, handle)]
        found_useless = [s for handle in useless for s in lookup.resolve_symbol(self.repository, handle)]
        if not self.memory.feedback(text, found_used, found_useless):
            raise MnemoError(
                "memory is off (--no-memory, or memory = false in the settings): the feedback was not kept"
            )
        return Feedback(text, tuple(found_used), tuple(found_useless))

    def noticed(self, kind: Noticed, path: str, lines: Sequence[int] = ()) -> None:
        """An editor or agent ``kind`` (opened, hovered, edited) a file, at ``lines`` (1-based) or
        as a whole: those symbols (or the file's) count for the session's next queries."""
        if not self.memory.enabled:
            return
        self._fresh()
        from mnemo_core.insight import symbol_at

        relative = self.repository.relpath(path)
        if not lines:
            self.memory.touched_file(kind, relative)
            return
        found = {}
        for line in lines:
            symbol = symbol_at(self.repository, relative, line, None)
            if symbol is not None and symbol.kind != "module":
                found[symbol.id] = symbol
        self.memory.touched(kind, found.values())

    def use_memory(self, enabled: bool | None) -> None:
        """Turn the session and task memory on or off for the next calls (None: as the project's
        ``memory`` setting says): how a long-lived front end follows a changed setting."""
        self.memory.choose(enabled)

    def noticed_symbol(self, kind: Noticed, symbol: Symbol) -> None:
        """An editor or agent ``kind`` (hovered, opened, edited) one symbol."""
        self.memory.touched(kind, [symbol])

    def _shown(self, pack: ContextPack) -> ContextPack:
        """Hand an answer on, its best symbols remembered as shown in this session."""
        self.memory.returned(pack.symbols)
        return pack

    def _recall(self, call: Call) -> Recall:
        return self.memory.recall(call.repo.store, call.repo.root, call.commit)

    # -- an editor's questions ------------------------------------------------------------------
    def symbol_at(self, path: str, line: int, word: str | None = None) -> Symbol | None:
        """The symbol at a position (1-based line): the one ``word`` names there, else the
        innermost definition around the line."""
        from mnemo_core.insight import symbol_at

        self._fresh()
        return symbol_at(self.repository, path, line, word)

    def definition_at(self, path: str, line: int, word: str | None = None) -> Symbol:
        """The function, method or class at a position; a MnemoError elsewhere."""
        self._fresh()
        return self._definition(path, line, word)

    def _definition(self, path: str, line: int, word: str | None) -> Symbol:
        from mnemo_core.insight import symbol_at

        symbol = symbol_at(self.repository, path, line, word)
        if symbol is None or symbol.kind == "module":
            raise MnemoError(f"no definition at {path}:{line}; put the cursor on a function, class or call")
        return symbol

    def card(self, symbol: Symbol, walks: bool = True) -> SymbolCard:
        """The hover card of a symbol: callers, blast radius, tests, last change (without
        ``walks``, a quick card from the index alone: callers only, ``walked`` False)."""
        from mnemo_core.insight import symbol_card

        self._fresh()
        return symbol_card(self.repository, symbol, walks)

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """The symbols defined in one file of the index, in line order."""
        self._fresh()
        return self.repository.store.symbols_in_file(path)

    def lenses(self, path: str) -> list[Lens]:
        """The code lenses of a file: callers, tests and last change of each function and class."""
        from mnemo_core.insight import file_lenses

        self._fresh()
        return file_lenses(self.repository, path)

    def blast_radius_at(
        self,
        path: str,
        line: int,
        word: str | None = None,
        depth: int = BLAST_DEPTH,
        budget: int | None = None,
    ) -> ContextPack:
        """The blast radius of the symbol at a position, as a ``files`` answer: the symbol, its
        transitive callers within ``depth`` hops and the tests that reach it."""
        started = time.perf_counter()
        budget = self._budget(budget)
        pipelines.check_depth(depth)
        call = self._call(started)
        return pipelines.for_symbol(call, self._definition(path, line, word), depth, budget)

    # -- one call -------------------------------------------------------------------------------
    def _fresh(self) -> None:
        """Bring the index up to date, once per call (unless this engine leaves that to others)."""
        if self.update_index:
            self.repository.refresh(self.progress)

    def _call(self, started: float | None = None) -> Call:
        """Start a call that answers with a pack: the index up to date, HEAD resolved once."""
        self._fresh()
        return Call(
            self.repository, head_commit(self.root), time.perf_counter() if started is None else started
        )

    def _coverage(self, path: str | Path | None, commit: str | None) -> CoverageSource | None:
        """The coverage data a change call uses: ``path`` (relative to the working directory), else
        the project's setting; loaded only then, as a task never needs it."""
        from mnemo_core.change.measured import coverage_source
        from mnemo_core.covmap.store import map_path

        named = coverage_source(self.root, self.config, path, commit)
        if named is not None or not map_path(self.root).is_file():
            return named
        from mnemo_core.covmap.select import map_source  # the map's reader: only when there is a map

        return map_source(self.root)

    def _budget(self, budget: int | None) -> int:
        value = self.config.budget if budget is None else budget
        pipelines.check_budget(value)
        return value

    def _depth(self, depth: int | None) -> int:
        value = self.config.depth if depth is None else depth
        pipelines.check_depth(value)
        return value
