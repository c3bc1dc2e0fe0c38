"""The history of one symbol: the commits that changed its lines, newest first.

The symbol's lines are found in the file as HEAD has it (the index describes the work tree: when
the file has uncommitted edits, the same qualified name is looked up in HEAD's version), then
``git log -L`` follows them back, across renames of the file.

``git log -L`` reads every commit that touched the file (60-80 ms for a function of flask), too slow
for a hover: answers are kept per process, keyed by the repository, HEAD, the file's size and
modification time and the symbol's lines, so an editor shows a symbol's history once it has been read
(``known_history``) and reads it off its hover path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mnemo_core.index.languages import language_for_path
from mnemo_core.memo import BoundedCache
from mnemo_core.model import Symbol
from mnemo_core.repository import Repository
from mnemo_core.vcs.diff import file_at
from mnemo_core.vcs.git import head_commit, is_shallow, repo_toplevel
from mnemo_core.vcs.linelog import DEFAULT_LIMIT, RangeCommit, range_history


@dataclass(frozen=True, slots=True)
class SymbolHistory:
    """The commits that changed a symbol's lines, and what limits the answer."""

    symbol: Symbol
    commits: tuple[RangeCommit, ...]
    notes: tuple[str, ...] = ()
    limited: bool = False  # the limit was reached: older commits changed the lines too


HistoryKey = tuple[str, str, str, int, int, str, int, int, int]
_KNOWN: BoundedCache[HistoryKey, SymbolHistory] = BoundedCache(2048)


def symbol_history(repo: Repository, symbol: Symbol, limit: int = DEFAULT_LIMIT) -> SymbolHistory:
    """The newest ``limit`` commits that changed ``symbol``'s lines (remembered for ``known_history``)."""
    key = _key(repo, symbol, limit)
    known = _KNOWN.get(key) if key is not None else None
    if known is not None:
        return known
    history = _read_history(repo, symbol, limit)
    return _KNOWN.put(key, history) if key is not None else history


def known_history(repo: Repository, symbol: Symbol, limit: int = DEFAULT_LIMIT) -> SymbolHistory | None:
    """``symbol_history`` if this process has read it for the same HEAD and file, else None; runs
    no git process."""
    key = _key(repo, symbol, limit)
    return _KNOWN.get(key) if key is not None else None


def _key(repo: Repository, symbol: Symbol, limit: int) -> HistoryKey | None:
    """What the answer depends on: HEAD, the file as it is on disk, and the symbol's lines (None
    outside a repository with commits, or when the file cannot be read)."""
    head = head_commit(repo.root)
    if head is None:
        return None
    try:
        stat = os.stat(repo.root / symbol.path)
    except OSError:
        return None
    return (
        str(repo.root),
        head,
        symbol.path,
        symbol.start_line,
        symbol.end_line,
        symbol.key,
        stat.st_size,
        stat.st_mtime_ns,
        limit,
    )


def _read_history(repo: Repository, symbol: Symbol, limit: int) -> SymbolHistory:
    if repo_toplevel(repo.root) is None:
        return SymbolHistory(symbol, (), ("not a git repository: there is no history to read",))
    if head_commit(repo.root) is None:
        return SymbolHistory(symbol, (), ("the repository has no commits yet",))
    lines = _lines_at_head(repo, symbol)
    if lines is None:
        return SymbolHistory(symbol, (), (f"{symbol.key} is not committed yet: HEAD does not have it",))
    commits = tuple(range_history(repo.root, symbol.path, *lines, limit=limit))
    notes = []
    if is_shallow(repo.root):
        notes.append("a shallow clone: older commits are not here (git fetch --unshallow brings them)")
    if len(commits) == limit:
        notes.append(f"the newest {limit} commits; --limit shows more")
    return SymbolHistory(symbol, commits, tuple(notes), limited=len(commits) == limit)


def _lines_at_head(repo: Repository, symbol: Symbol) -> tuple[int, int] | None:
    """The symbol's first and last line in HEAD's version of its file, or None where HEAD lacks it."""
    committed = file_at(repo.root, "HEAD", symbol.path)
    if committed is None:
        return None
    on_disk = repo.root / symbol.path
    if on_disk.is_file() and on_disk.read_bytes() == committed:
        return symbol.start_line, symbol.end_line
    spec = language_for_path(symbol.path)
    if spec is None:
        return None
    # imported here: the parser's stack loads when HEAD's file differs, not with the engine
    from mnemo_core.index.extract import extract

    same = [
        s
        for s in extract(symbol.path, committed, spec).symbols
        if (s.name, s.kind) == (symbol.name, symbol.kind)
    ]
    return (same[0].start_line, same[0].end_line) if same else None
