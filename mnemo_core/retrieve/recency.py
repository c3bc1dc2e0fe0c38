"""Commit recency of symbols: when the newest commit touching any of their lines was made.

File-level dates come from one ``git log --name-only`` pass per HEAD (kept in memory); line-level
dates come from ``git blame`` for the files of the best candidates only (cached on disk by the vcs
layer), since blame costs a process per file, and only for files changed within the last
``BLAME_HORIZON_DAYS`` with the blame walk stopped there: a line older than a year scores near zero
whatever its exact age. A symbol whose file was not blamed gets its file's
newest commit, and the explanation says which of the two it is.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.model import Symbol
from mnemo_core.retrieve.score import Recency
from mnemo_core.vcs.blame import blame_files, newest_commit_in_ranges
from mnemo_core.vcs.git import head_commit
from mnemo_core.vcs.history import CommitInfo, FileHistory, file_history

log = logging.getLogger(__name__)

RecencyLookup = Callable[[Mapping[int, Symbol]], tuple[dict[int, Recency], int | None, list[str]]]
HISTORY_MAX_COMMITS = 3000  # older commits barely move a 90-day half-life; the pass stays fast
BLAME_FILES = 10  # the files of the best candidates that get line-level dates
BLAME_HORIZON_DAYS = 365  # blame looks back this far (from the newest commit); older is "old"
DAY_S = 86_400
HISTORY_CACHE_ENTRIES = 8
_histories: OrderedDict[tuple[str, str], dict[str, FileHistory]] = OrderedDict()


def no_history(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a directory without git history: recency is neutral, and the notes say why."""
    return {}, None, ["no git history: the recency component is neutral (0) for every symbol"]


def git_recency(root: Path) -> RecencyLookup:
    """The lookup for a git repository. ``symbols`` must come best candidate first."""
    head = head_commit(root)
    if head is None:
        return no_history

    def lookup(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
        try:
            history = _history(root, head)
        except MnemoError as exc:
            log.info("no file history: %s", exc)
            return no_history(symbols)
        result = {sid: _recency(history[s.path].last, "log") for sid, s in symbols.items() if s.path in history}
        reference = max((h.last.time for h in history.values()), default=None)
        if reference is None:
            return result, None, []
        horizon = reference - BLAME_HORIZON_DAYS * DAY_S
        paths = [p for p in dict.fromkeys(s.path for s in symbols.values())
                 if p in history and history[p].last.time >= horizon][:BLAME_FILES]
        blames = blame_files(root, paths, since=horizon - horizon % DAY_S)
        for sid, symbol in symbols.items():
            blame = blames.get(symbol.path)
            newest = newest_commit_in_ranges(blame, [(symbol.start_line, symbol.end_line)]) if blame else None
            if newest is not None:
                result[sid] = _recency(newest, "blame")
        return result, reference, []

    return lookup


def _recency(commit: CommitInfo, source: str) -> Recency:
    return Recency(commit.time, commit.sha, commit.author, commit.summary, source)


def _history(root: Path, head: str) -> dict[str, FileHistory]:
    key = (str(root), head)
    if key not in _histories:
        _histories[key] = file_history(root, head, max_commits=HISTORY_MAX_COMMITS)
        while len(_histories) > HISTORY_CACHE_ENTRIES:
            _histories.popitem(last=False)
    _histories.move_to_end(key)
    return _histories[key]
