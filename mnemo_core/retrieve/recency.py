"""Commit recency of task candidates: when their file last changed.

The dates come from the index's memory of commits (one ``git log`` pass at index time, see
``index/commits.py``), so ranking a task starts no git process for them. They are file dates, and
the reasons say so ("in a file changed 3 days ago"): line-level dates would cost a ``git blame``
per file, and the learned weights give recency little say in the ranking (bench/RESULTS.md), so
the hover card and change context, which show one symbol's own last change, blame instead. A
shallow clone's history is cut off where the clone stopped, so every file would look changed on
its cut-off date: recency is neutral there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from mnemo_core.index.store import FileCommits, Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.score import Recency
from mnemo_core.vcs.git import GitError, is_shallow
from mnemo_core.vcs.history import CHURN_WINDOW_DAYS

RecencyLookup = Callable[[Mapping[int, Symbol]], tuple[dict[int, Recency], int | None, list[str]]]
DAY_S = 86_400
NO_HISTORY = (
    "no git history: the recency component is neutral (0) for every symbol, and no past commit "
    "speaks for any (the history channel is empty)"
)
SHALLOW = (
    "a shallow clone: its history is cut off, so the recency component is neutral (0); "
    "`git fetch --unshallow` gives the whole history"
)


def no_history(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a directory without git history: recency is neutral, and the notes say why."""
    return {}, None, [NO_HISTORY]


def shallow_clone(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a shallow clone: recency is neutral, and the notes say why."""
    return {}, None, [SHALLOW]


def git_recency(root: Path, store: Store) -> RecencyLookup:
    """The lookup for a git repository."""
    reference = store.newest_commit_time()
    if reference is None:
        return no_history
    try:
        if is_shallow(root):
            return shallow_clone
    except GitError:
        return no_history

    def lookup(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
        files = store.file_commits((s.path for s in symbols.values()), reference - CHURN_WINDOW_DAYS * DAY_S)
        found = {sid: _file_recency(files[s.path]) for sid, s in symbols.items() if s.path in files}
        return found, reference, []

    return lookup


def _file_recency(commit: FileCommits) -> Recency:
    return Recency(commit.time, commit.sha, commit.author, commit.subject, "log")
