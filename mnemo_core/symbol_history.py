"""The history of one symbol: the commits that changed its lines, newest first.

The symbol's lines are found in the file as HEAD has it (the index describes the work tree: when
the file has uncommitted edits, the same qualified name is looked up in HEAD's version), then
``git log -L`` follows them back, across renames of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path
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


def symbol_history(repo: Repository, symbol: Symbol, limit: int = DEFAULT_LIMIT) -> SymbolHistory:
    """The newest ``limit`` commits that changed ``symbol``'s lines."""
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
    return SymbolHistory(symbol, commits, tuple(notes))


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
    same = [
        s
        for s in extract(symbol.path, committed, spec).symbols
        if (s.name, s.kind) == (symbol.name, symbol.kind)
    ]
    return (same[0].start_line, same[0].end_line) if same else None
