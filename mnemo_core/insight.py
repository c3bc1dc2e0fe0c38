"""What an editor shows about one symbol or one file: hover cards and code lenses.

Both are built from the index and git only, and are cheap: one blame per file (cached by the vcs
layer), one reverse walk for all the symbols of a file at once. A card's walks to tests cost up to a
few hundred ms the first time a symbol is asked for after the index changes (then they are
remembered), and a file's first blame up to seconds; a quick card leaves both out, for an editor
that must answer at once.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mnemo_core.defaults import BLAST_DEPTH
from mnemo_core.errors import MnemoError
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache
from mnemo_core.model import CALLABLE_KINDS, CLASS_KINDS, Symbol, runs_target
from mnemo_core.repository import Repository
from mnemo_core.vcs.git import GitError, repo_toplevel
from mnemo_core.vcs.history import relative_date

if TYPE_CHECKING:  # the graph walks load when a card or a lens is asked for, not with the engine
    from mnemo_core.change.dynamic import DynamicReach

TOP_CALLERS = 5
TOP_TESTS = 5
LENS_KINDS = CALLABLE_KINDS | CLASS_KINDS
GRAPH_FACTS_CACHED = 64  # files whose lens graph facts are kept (an editor's open files, and then some)
GraphFacts = tuple[dict[int, int], dict[int, int]]  # caller counts, counts of reaching tests
_GRAPH_FACTS: BoundedCache[tuple[str, int, tuple[int, ...]], GraphFacts] = BoundedCache(GRAPH_FACTS_CACHED)


@dataclass(frozen=True, slots=True)
class LastChange:
    """The newest commit over a symbol's lines, and its churn."""

    sha: str
    author: str
    summary: str
    time: int
    relative: str
    churn_90d: int
    uncommitted: bool


@dataclass(frozen=True, slots=True)
class SymbolCard:
    """Everything a hover card says about a symbol."""

    symbol: Symbol
    callers: int
    top_callers: tuple[Symbol, ...]
    blast_radius: int
    tests: int
    top_tests: tuple[Symbol, ...]
    last_change: LastChange | None
    history_note: str | None  # why there is no last change (no git, untracked...)
    possible_callers: int = 0  # direct callers linked only by a name guess (not in ``callers``)
    possible_tests: int = 0  # tests that reach it only through a name guess (not in ``tests``)
    dynamic: str | None = None  # how dynamic dispatch reaches it ("reached dynamically through FILTERS")
    walked: bool = True  # False: a quick card (callers only): no last change, blast radius or tests yet


@dataclass(frozen=True, slots=True)
class Lens:
    """A code lens above one symbol."""

    symbol: Symbol
    callers: int
    tests: int
    last_change: LastChange | None

    @property
    def title(self) -> str:
        """``N callers · M tests · changed 3 days ago``."""
        parts = [
            f"{self.callers} caller{'s' if self.callers != 1 else ''}",
            f"{self.tests} test{'s' if self.tests != 1 else ''}",
        ]
        if self.last_change is not None:
            parts.append(
                "uncommitted changes"
                if self.last_change.uncommitted
                else f"changed {self.last_change.relative}"
            )
        return " · ".join(parts)


def symbol_at(repo: Repository, path: str, line: int, word: str | None = None) -> Symbol | None:
    """The symbol at a position: the target of the reference named ``word`` on that line when it
    resolves, else the innermost definition around the line."""
    store = repo.store
    around = [s for s in store.symbols_in_file(path) if s.start_line <= line <= s.end_line]
    # the innermost; a definition over a whole file spans as many lines as its module: it wins
    inner = min(around, key=_innermost, default=None)
    if word and inner is not None:
        if inner.short_name == word and inner.start_line <= line <= inner.start_line + _header_lines(inner):
            return inner
        targets = [
            e.dst
            for e in store.edges_touching([inner.id], "out")
            if e.type in ("calls", "inherits") and e.line == line
        ]
        named = [s for s in store.symbols_by_ids(targets).values() if s.short_name == word]
        if named:
            return min(named, key=lambda s: s.id)
    return inner


def _innermost(symbol: Symbol) -> tuple[int, bool, int]:
    return symbol.end_line - symbol.start_line, symbol.kind == "module", -symbol.start_line


def _header_lines(symbol: Symbol) -> int:
    return symbol.signature.count("\n") + 2


def symbol_card(repo: Repository, symbol: Symbol, walks: bool = True) -> SymbolCard:
    """Callers, blast radius, tests and last change of one symbol. Without ``walks``, a quick card
    from the index alone: its direct callers (no git, no walk; ``walked`` False). The walks to
    tests and a file's first blame take up to seconds the first time they are asked for."""
    store = repo.store
    callers, guessed = _direct_callers(store, [symbol.id])
    callers_of = sorted(callers.get(symbol.id, set()))
    caller_symbols = store.symbols_by_ids(callers_of)
    ranked_callers = sorted(caller_symbols.values(), key=lambda s: (s.is_test, s.path, s.start_line))
    quick = SymbolCard(
        symbol=symbol,
        callers=len(callers_of),
        top_callers=tuple(ranked_callers[:TOP_CALLERS]),
        blast_radius=0,
        tests=0,
        top_tests=(),
        last_change=None,
        history_note=None,
        possible_callers=len(guessed.get(symbol.id, set())),
        walked=False,
    )
    return _walked_card(repo, quick) if walks else quick


def _walked_card(repo: Repository, quick: SymbolCard) -> SymbolCard:
    """A quick card with its last change, blast radius, tests and dynamic reach."""
    from mnemo_core.change.dynamic import reached_dynamically
    from mnemo_core.change.impact import SURE_FROM, tests_reaching, walk_back

    store, symbol = repo.store, quick.symbol
    near = walk_back(store, [symbol.id], BLAST_DEPTH, min_confidence=SURE_FROM)
    reaching = tests_reaching(store, [symbol.id])[symbol.id]
    reached = store.symbols_by_ids(set(near) | set(reaching.sure))
    blast = [sid for sid in near if sid != symbol.id and sid in reached and not reached[sid].is_test]
    tests = sorted(reaching.sure.values(), key=lambda r: (-r.weight, r.depth, r.symbol_id))
    changes, note = last_changes(repo, [symbol])
    dynamic = reached_dynamically(store, [symbol.id]).get(symbol.id)
    if dynamic is None and not reaching.sure and not reaching.possible:
        dynamic = _reached_from_outside(store, symbol)
    return replace(
        quick,
        blast_radius=len(blast),
        tests=len(tests),
        top_tests=tuple(reached[r.symbol_id] for r in tests[:TOP_TESTS]),
        last_change=changes.get(symbol.id),
        history_note=note,
        possible_tests=len(reaching.possible),
        dynamic=dynamic.reason if dynamic else None,
        walked=True,
    )


def _reached_from_outside(store: Store, symbol: Symbol) -> DynamicReach | None:
    """For a symbol no test reaches: whether nothing in the repository calls it, or only code that
    nothing calls (a framework's hook), as ``mnemo pr`` says of it when it changes."""
    from mnemo_core.change.dynamic import called_through_uncalled, uncalled

    if symbol.is_test:
        return None
    found = uncalled(store, [symbol]) or called_through_uncalled(store, {symbol.id: [symbol.id]})
    return found.get(symbol.id)


def file_lenses(repo: Repository, path: str) -> list[Lens]:
    """Lenses for every function, method and class of a file, in line order."""
    store = repo.store
    symbols = [s for s in store.symbols_in_file(path) if s.kind in LENS_KINDS]
    if not symbols:
        return []
    callers, tests = _graph_facts(store, [s.id for s in symbols])
    changes, _ = last_changes(repo, symbols)
    return [Lens(s, callers.get(s.id, 0), tests.get(s.id, 0), changes.get(s.id)) for s in symbols]


def _graph_facts(store: Store, ids: list[int]) -> GraphFacts:
    """Caller counts and counts of reaching tests (``tests_reaching``, sure ones) of some symbols,
    remembered until the index changes (every write bumps its generation): an editor asks for the
    same file's lenses again and again."""
    from mnemo_core.change.impact import tests_reaching

    key = (str(store.path), store.generation(), tuple(ids))
    facts = _GRAPH_FACTS.get(key)
    if facts is None:
        callers = {sid: len(src) for sid, src in _direct_callers(store, ids)[0].items()}
        tests = {sid: len(t.sure) for sid, t in tests_reaching(store, ids).items()}
        facts = _GRAPH_FACTS.put(key, (callers, tests))
    return facts


def _direct_callers(store: Store, ids: list[int]) -> tuple[dict[int, set[int]], dict[int, set[int]]]:
    """The direct callers of some symbols: sure ones, and those linked only by a weaker name guess."""
    from mnemo_core.change.impact import is_sure

    sure: dict[int, set[int]] = defaultdict(set)
    guessed: dict[int, set[int]] = defaultdict(set)
    for e in store.edges_touching(ids, "in"):
        if runs_target(e) and e.src != e.dst:
            (sure if is_sure(e.confidence) else guessed)[e.dst].add(e.src)
    return sure, {sid: src - sure[sid] for sid, src in guessed.items()}


def last_changes(repo: Repository, symbols: list[Symbol]) -> tuple[dict[int, LastChange], str | None]:
    """The newest commit over each symbol's lines (working tree, uncommitted edits included)."""
    from mnemo_core.vcs.blame import blame_files, churn_in_ranges, newest_commit_in_ranges

    if repo_toplevel(repo.root) is None:
        return {}, "history needs git: this directory is not a git repository"
    try:
        blames = blame_files(repo.root, {s.path for s in symbols})
    except (GitError, MnemoError) as exc:
        return {}, str(exc)
    now = time.time()
    out: dict[int, LastChange] = {}
    for s in symbols:
        blame = blames.get(s.path)
        commit = newest_commit_in_ranges(blame, [(s.start_line, s.end_line)]) if blame else None
        if commit is not None:
            out[s.id] = LastChange(
                commit.sha,
                commit.author,
                commit.summary,
                commit.time,
                relative_date(commit.time, now),
                churn_in_ranges(blame or (), [(s.start_line, s.end_line)], now),
                commit.uncommitted,
            )
    note = None if out or not symbols else f"{symbols[0].path} has no committed history yet"
    return out, note
