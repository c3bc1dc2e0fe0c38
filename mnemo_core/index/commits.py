"""Keep the index's memory of past commits in step with HEAD, for the history channel.

The index remembers the newest ``MAX_COMMITS`` non-merge commits reachable from HEAD: their
messages and the files each touched (``vcs.changes``). When HEAD moves forward, only the new
commits are read (and when the window then holds more than ``MAX_COMMITS``, the new HEAD's window
is listed as below, to find the ones to forget). When it moves anywhere else (a checkout of an
older commit, a rebase), the memory is brought to what a cold read at the new HEAD would hold, so
it never holds a commit that HEAD cannot reach (a task is never answered from its own future):
git lists the new HEAD's window of commits (shas only, about half the cost of reading it), the
remembered commits outside it are forgotten, and only the ones the memory lacks are read. A move
back along a chain of commits with one parent each lists nothing: git's walk from the old HEAD went
down that chain to the new one, and from there on walks as a walk from the new HEAD does, so the
new window is the old one without the chain's commits, followed by as many of the shas that came
next in that walk (``BEYOND`` of them are remembered with every window listed). Commit
ids follow the window's order as a cold read gives them (oldest lowest: "a file's newest commit"
is its largest id), so the commits read go below or above the kept ones; when they would fall
between (another branch), the memory is read again whole. The commits walked and left out
(sweeps of many files) are remembered by sha, so they are not read again either.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.index.languages import source_extensions
from mnemo_core.index.store import Store
from mnemo_core.vcs.changes import (
    LoggedCommit,
    chain_down,
    logged_commits,
    read_log,
    read_window,
    window_shas,
)
from mnemo_core.vcs.git import is_ancestor

MAX_COMMITS = 5000  # years of an active project; one cheap pass (about 0.1 s per thousand)
BEYOND = 200  # shas kept past the window: a move back over this many source commits lists nothing
HEAD_KEY = "history_head"
SKIPPED_KEY = "history_skipped"  # the shas walked and not remembered (sweeps): JSON list
BEYOND_KEY = "history_beyond"  # JSON [head, the shas its walk gives after the window, whether it ends]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class News:
    """What HEAD's memory of commits gains (newest first) and keeps."""

    head: str
    commits: list[LoggedCommit]
    keep: frozenset[str] | None  # the remembered commits to keep (None: all, HEAD moved forward)
    skipped: frozenset[str]  # the shas walked and not remembered (sweeps)
    below: bool = False  # the commits gained are older than every one kept
    beyond: Beyond | None = None  # what the walk gives after the window (None: not known)


@dataclass(frozen=True, slots=True)
class Beyond:
    """The shas a walk from ``head`` gives after its window, in order; ``ended``: none come after."""

    head: str
    shas: tuple[str, ...]
    ended: bool


def last_head(store: Store) -> str | None:
    """The HEAD the remembered commits were read at."""
    return store.meta(HEAD_KEY) or None


def skipped_commits(store: Store) -> frozenset[str]:
    """The shas walked at the last reads and not remembered."""
    return frozenset(json.loads(store.meta(SKIPPED_KEY) or "[]"))


def beyond_window(store: Store) -> Beyond | None:
    """What the walk of the remembered window gives next, as the last listing stored it."""
    stored = store.meta(BEYOND_KEY)
    if not stored:
        return None
    head, shas, ended = json.loads(stored)
    return Beyond(head, tuple(shas), ended)


def read_new_commits(
    root: Path,
    head: str | None,
    old: str | None,
    kept: frozenset[str],
    skipped: frozenset[str],
    beyond: Beyond | None = None,
) -> News | None:
    """The commits HEAD (``head``, as the caller read it) gained since ``old``, or None when
    nothing changed or there is no history; ``kept``: the shas remembered, ``skipped``: those
    walked and left out, ``beyond``: what their walk gives next. Runs git only (no database):
    safe in a thread beside the parse."""
    if head is None or head == old:
        return None
    extensions = source_extensions()
    if old is not None and kept and beyond is not None and beyond.head == old:
        news = _back_down(root, head, old, kept | skipped, skipped, beyond)
        if news is not None:
            return news
    read: dict[str, LoggedCommit | None] = {}  # commits read already (None: walked and left out)
    if old is not None and is_ancestor(root, old, head):
        gained, dropped = read_log(root, f"{old}..{head}", MAX_COMMITS, extensions)
        if len(kept) + len(skipped) + len(gained) + len(dropped) <= MAX_COMMITS:  # the window holds all
            return News(head, gained, None, skipped | set(dropped))
        read = {c.sha: c for c in gained} | dict.fromkeys(dropped)  # the window's tail moves: as below
    if old is None or not kept:
        return _whole(root, head)
    listed = window_shas(root, head, MAX_COMMITS + BEYOND, extensions)
    window = listed[:MAX_COMMITS]
    after = Beyond(head, tuple(listed[MAX_COMMITS:]), len(listed) < MAX_COMMITS + BEYOND)
    order = {sha: n for n, sha in enumerate(window)}
    lacking = [sha for sha in window if sha not in kept and sha not in skipped]
    log.info("history: read %d of a window of %d commits", len(lacking), len(window))
    gained, dropped = logged_commits(root, [sha for sha in lacking if sha not in read], extensions)
    gained += [c for sha in lacking if (c := read.get(sha)) is not None]
    dropped += [sha for sha in lacking if sha in read and read[sha] is None]
    gained.sort(key=lambda c: order[c.sha])
    kept_at = [order[sha] for sha in kept if sha in order]
    gained_at = [order[c.sha] for c in gained]
    walked = (skipped & order.keys()) | set(dropped)
    if not kept_at or not gained_at or max(gained_at) < min(kept_at):
        return News(head, gained, frozenset(window), walked, beyond=after)
    if min(gained_at) > max(kept_at):
        return News(head, gained, frozenset(window), walked, below=True, beyond=after)
    return _whole(root, head)


def _back_down(
    root: Path, head: str, old: str, window: frozenset[str], skipped: frozenset[str], beyond: Beyond
) -> News | None:
    """The window of ``head`` derived from ``old``'s, when ``head`` is down a chain of commits with
    one parent each from ``old`` (else None): the chain's commits go, and as many of the shas that
    came next in ``old``'s walk are read (all older than every one kept)."""
    chain = chain_down(root, head, old) if is_ancestor(root, head, old) else None
    if chain is None:
        return None
    gone = window.intersection(chain)
    if len(gone) > len(beyond.shas) and not beyond.ended:
        return None
    tail = beyond.shas[: len(gone)]
    log.info("history: read %d commits past a window moved down %d commits", len(tail), len(chain))
    gained, dropped = logged_commits(root, list(tail), source_extensions())
    keep = (window - gone) | set(tail)
    rest = Beyond(head, beyond.shas[len(gone) :], beyond.ended)
    return News(head, gained, frozenset(keep), (skipped - gone) | set(dropped), below=True, beyond=rest)


def _whole(root: Path, head: str) -> News:
    """The memory read again whole."""
    gained, dropped, after = read_window(root, head, MAX_COMMITS, BEYOND, source_extensions())
    ended = len(gained) + len(dropped) + len(after) < MAX_COMMITS + BEYOND
    return News(head, gained, frozenset(), frozenset(dropped), beyond=Beyond(head, tuple(after), ended))


def remember(store: Store, news: News | None) -> None:
    """Store what ``read_new_commits`` found (inside the caller's transaction)."""
    if news is None:
        return
    if news.keep is not None:
        store.forget_commits_but(news.keep)
    store.add_commits(reversed(news.commits), below=news.below)  # oldest first: ids grow with time
    store.forget_commits(keep=MAX_COMMITS)
    store.set_meta(HEAD_KEY, news.head)
    store.set_meta(SKIPPED_KEY, json.dumps(sorted(news.skipped)))
    beyond = news.beyond
    store.set_meta(BEYOND_KEY, json.dumps([beyond.head, beyond.shas, beyond.ended]) if beyond else "")
