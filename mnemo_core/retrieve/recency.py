"""Commit recency of symbols: when the newest commit touching any of their lines was made.

File-level dates come from the index's memory of commits (one ``git log`` pass at index time, see
``index/commits.py``), so a query starts no git process for them; line-level dates come from
``git blame`` for the files of the best candidates only (cached on disk by the vcs layer), since
blame costs a process per file, and only for files changed within the last
``BLAME_HORIZON_DAYS`` with the blame walk stopped there: a line older than a year scores near zero
whatever its exact age. A symbol whose file was not blamed gets its file's newest commit, and the
explanation says which of the two it is. A shallow clone's history is cut off where the clone
stopped, so every file would look changed on its cut-off date: recency is neutral there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from mnemo_core.index.store import FileCommits, Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.score import Recency
from mnemo_core.vcs.blame import blame_files, newest_commit_in_ranges
from mnemo_core.vcs.git import GitError, is_shallow
from mnemo_core.vcs.history import CHURN_WINDOW_DAYS, CommitInfo

log = logging.getLogger(__name__)

RecencyLookup = Callable[[Mapping[int, Symbol]], tuple[dict[int, Recency], int | None, list[str]]]
BLAME_FILES = 10  # the files of the best candidates that get line-level dates
BLAME_HORIZON_DAYS = 365  # blame looks back this far (from the newest commit); older is "old"
DAY_S = 86_400
NO_HISTORY = ("no git history: the recency component is neutral (0) for every symbol, and no past commit "
              "speaks for any (the history channel is empty)")
SHALLOW = ("a shallow clone: its history is cut off, so the recency component is neutral (0); "
           "`git fetch --unshallow` gives the whole history")


def no_history(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a directory without git history: recency is neutral, and the notes say why."""
    return {}, None, [NO_HISTORY]


def shallow_clone(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a shallow clone: recency is neutral, and the notes say why."""
    return {}, None, [SHALLOW]


def git_recency(root: Path, store: Store) -> RecencyLookup:
    """The lookup for a git repository. ``symbols`` must come best candidate first."""
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
        result = {sid: _file_recency(files[s.path]) for sid, s in symbols.items() if s.path in files}
        horizon = reference - BLAME_HORIZON_DAYS * DAY_S
        paths = [p for p in dict.fromkeys(s.path for s in symbols.values())
                 if p in files and files[p].time >= horizon][:BLAME_FILES]
        blames = blame_files(root, paths, since=horizon - horizon % DAY_S)
        for sid, symbol in symbols.items():
            blame = blames.get(symbol.path)
            newest = newest_commit_in_ranges(blame, [(symbol.start_line, symbol.end_line)]) if blame else None
            if newest is not None:
                result[sid] = _recency(newest, "blame")
        return result, reference, []

    return lookup


def _file_recency(commit: FileCommits) -> Recency:
    return Recency(commit.time, commit.sha, commit.author, commit.subject, "log")


def _recency(commit: CommitInfo, source: str) -> Recency:
    return Recency(commit.time, commit.sha, commit.author, commit.summary, source)
