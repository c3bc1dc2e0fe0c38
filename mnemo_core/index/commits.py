"""Keep the index's memory of past commits in step with HEAD, for the history channel.

The index remembers the newest ``MAX_COMMITS`` non-merge commits reachable from HEAD: their
messages and the files each touched (``vcs.changes``). When HEAD moves forward, only the new commits are read;
when it moves anywhere else (a checkout of an older commit, a rebase), the memory is rebuilt, so
it never holds a commit that HEAD cannot reach: a task is never answered from its own future.
"""

from __future__ import annotations

from pathlib import Path

from mnemo_core.index.languages import source_extensions
from mnemo_core.index.store import Store
from mnemo_core.vcs.changes import LoggedCommit, commit_log
from mnemo_core.vcs.git import head_commit, is_ancestor

MAX_COMMITS = 5000  # years of an active project; one cheap pass (about 0.1 s per thousand)
HEAD_KEY = "history_head"


News = tuple[str, list[LoggedCommit], bool]  # HEAD, the commits it gained, whether they replace the memory


def last_head(store: Store) -> str | None:
    """The HEAD the remembered commits were read at."""
    return store.meta(HEAD_KEY) or None


def read_new_commits(root: Path, old: str | None) -> News | None:
    """The commits HEAD gained since ``old``, or None when nothing changed or there is no history.
    Runs git only (no database): safe in a thread beside the parse."""
    head = head_commit(root)
    if head is None or head == old:
        return None
    rebuild = old is None or not is_ancestor(root, old, head)
    revisions = head if rebuild else f"{old}..{head}"
    return head, commit_log(root, revisions, MAX_COMMITS, source_extensions()), rebuild


def remember(store: Store, news: News | None) -> None:
    """Store what ``read_new_commits`` found (inside the caller's transaction)."""
    if news is None:
        return
    head, changes, rebuild = news
    if rebuild:
        store.forget_commits()
    store.add_commits(reversed(changes))  # oldest first: ids grow with time
    store.forget_commits(keep=MAX_COMMITS)
    store.set_meta(HEAD_KEY, head)
