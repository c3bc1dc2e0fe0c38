"""Keep the index's memory of past commits in step with HEAD, for the history channel.

The index remembers the newest ``MAX_COMMITS`` non-merge commits reachable from HEAD: their
messages and the files each touched (``vcs.changes``). When HEAD moves forward, only the new
commits are read (and when the window then holds more than ``MAX_COMMITS``, the new HEAD's window
is listed as below, to find the ones to forget). When it moves anywhere else (a checkout of an
older commit, a rebase), the memory is brought to what a cold read at the new HEAD would hold, so
it never holds a commit that HEAD cannot reach (a task is never answered from its own future):
git lists the new HEAD's window of commits (shas only, about half the cost of reading it), the
remembered commits outside it are forgotten, and only the ones the memory lacks are read. A move
along a chain of commits with one parent each lists nothing: git's walk from the later end goes
down the chain to the earlier one and from there on walks as a walk from it does, so the window
moved back is the old walk without the chain's commits (the walk's next ``BEYOND`` shas are kept
with its window, ``Walk``), and the window moved forward is the chain's commits followed by the old
walk. Commit ids follow the window's order as a cold read gives them (oldest lowest: "a file's
newest commit" is its largest id), so the commits read go below or above the kept ones; when they
would fall between (another branch), the memory is read again whole. The commits walked and left
out (sweeps of many files) are remembered by sha, so they are not read again either.
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
WALK_KEY = "history_walk"  # JSON [head, the shas its walk gives (window, then beyond), whether it ends]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class News:
    """What HEAD's memory of commits gains (newest first) and keeps."""

    head: str
    commits: list[LoggedCommit]
    keep: frozenset[str] | None  # the remembered commits to keep (None: all, HEAD moved forward)
    skipped: frozenset[str]  # the shas walked and not remembered (sweeps)
    below: bool = False  # the commits gained are older than every one kept
    walk: Walk | None = None  # the walk's shas (None: not known)


@dataclass(frozen=True, slots=True)
class Walk:
    """The shas git's walk from ``head`` gives, in order (sweeps included): its window, then at most
    ``BEYOND`` more; ``ended``: the walk gives no more."""

    head: str
    shas: tuple[str, ...]
    ended: bool

    @property
    def window(self) -> tuple[str, ...]:
        """The shas of the window: the memory's, sweeps included."""
        return self.shas[:MAX_COMMITS]


def last_head(store: Store) -> str | None:
    """The HEAD the remembered commits were read at."""
    return store.meta(HEAD_KEY) or None


def skipped_commits(store: Store) -> frozenset[str]:
    """The shas walked at the last reads and not remembered."""
    return frozenset(json.loads(store.meta(SKIPPED_KEY) or "[]"))


def stored_walk(store: Store) -> Walk | None:
    """The walk of the remembered window, as the last read stored it."""
    stored = store.meta(WALK_KEY)
    if not stored:
        return None
    head, shas, ended = json.loads(stored)
    return Walk(head, tuple(shas), ended)


def read_new_commits(
    root: Path,
    head: str | None,
    old: str | None,
    kept: frozenset[str],
    skipped: frozenset[str],
    walk: Walk | None = None,
) -> News | None:
    """The commits HEAD (``head``, as the caller read it) gained since ``old``, or None when
    nothing changed or there is no history; ``kept``: the shas remembered, ``skipped``: those
    walked and left out, ``walk``: the walk of their window. Runs git only (no database): safe in a
    thread beside the parse."""
    if head is None or head == old:
        return None
    extensions = source_extensions()
    walked = walk if walk is not None and walk.head == old and set(walk.window) == kept | skipped else None
    if old is not None and walked is not None and kept:
        news = _down(root, head, old, walked, skipped)
        if news is not None:
            return news
    read: dict[str, LoggedCommit | None] = {}  # commits read already (None: walked and left out)
    if old is not None and is_ancestor(root, old, head):
        gained, dropped = read_log(root, f"{old}..{head}", MAX_COMMITS, extensions)
        news = _up(root, head, old, walked, skipped, gained, dropped) if walked is not None else None
        if news is not None:
            return news
        if len(kept) + len(skipped) + len(gained) + len(dropped) <= MAX_COMMITS:  # the window holds all
            return News(head, gained, None, skipped | set(dropped))
        read = {c.sha: c for c in gained} | dict.fromkeys(dropped)  # the window's tail moves: as below
    if old is None or not kept:
        return _whole(root, head)
    listed = window_shas(root, head, MAX_COMMITS + BEYOND, extensions)
    after = Walk(head, tuple(listed), len(listed) < MAX_COMMITS + BEYOND)
    window = after.window
    order = {sha: n for n, sha in enumerate(window)}
    lacking = [sha for sha in window if sha not in kept and sha not in skipped]
    log.info("history: read %d of a window of %d commits", len(lacking), len(window))
    gained, dropped = logged_commits(root, [sha for sha in lacking if sha not in read], extensions)
    gained += [c for sha in lacking if (c := read.get(sha)) is not None]
    dropped += [sha for sha in lacking if sha in read and read[sha] is None]
    gained.sort(key=lambda c: order[c.sha])
    kept_at = [order[sha] for sha in kept if sha in order]
    gained_at = [order[c.sha] for c in gained]
    walked_out = (skipped & order.keys()) | set(dropped)
    if not kept_at or not gained_at or max(gained_at) < min(kept_at):
        return News(head, gained, frozenset(window), walked_out, walk=after)
    if min(gained_at) > max(kept_at):
        return News(head, gained, frozenset(window), walked_out, below=True, walk=after)
    return _whole(root, head)


def _down(root: Path, head: str, old: str, walk: Walk, skipped: frozenset[str]) -> News | None:
    """The window of ``head`` from ``old``'s walk, when ``head`` is down a chain of commits with one
    parent each from ``old`` (else None): the chain's commits go, and the commits the walk gives
    next come in (read here: all older than every one kept)."""
    chain = chain_down(root, head, old) if is_ancestor(root, head, old) else None
    if chain is None:
        return None
    gone = set(chain)
    first = 0
    while first < len(walk.shas) and walk.shas[first] in gone:
        first += 1
    moved = Walk(head, walk.shas[first:], walk.ended)
    if gone.intersection(moved.shas) or (len(moved.shas) < MAX_COMMITS and not moved.ended):
        return None
    window, before = frozenset(moved.window), set(walk.window)
    lacking = [sha for sha in moved.window if sha not in before]
    log.info("history: read %d commits past a window moved down %d commits", len(lacking), len(chain))
    gained, dropped = logged_commits(root, lacking, source_extensions())
    return News(head, gained, window, (skipped & window) | set(dropped), below=True, walk=moved)


def _up(
    root: Path,
    head: str,
    old: str,
    walk: Walk,
    skipped: frozenset[str],
    gained: list[LoggedCommit],
    dropped: list[str],
) -> News | None:
    """The window of ``head`` from ``old``'s walk, when ``old`` is down a chain of commits with one
    parent each from ``head`` (else None): the chain's commits read (``gained`` and ``dropped``)
    come first, then the old walk."""
    came = {c.sha for c in gained} | set(dropped)
    chain = chain_down(root, old, head) if len(came) < MAX_COMMITS else None
    if chain is None:
        return None
    shas = (*(sha for sha in chain if sha in came), *walk.shas)
    moved = Walk(head, shas[: MAX_COMMITS + BEYOND], walk.ended and len(shas) <= MAX_COMMITS + BEYOND)
    window = frozenset(moved.window)
    log.info("history: read %d commits of a window moved up %d commits", len(came), len(chain))
    return News(head, gained, window, (skipped & window) | set(dropped), walk=moved)


def _whole(root: Path, head: str) -> News:
    """The memory read again whole."""
    gained, dropped, shas = read_window(root, head, MAX_COMMITS, BEYOND, source_extensions())
    walk = Walk(head, tuple(shas), len(shas) < MAX_COMMITS + BEYOND)
    return News(head, gained, frozenset(), frozenset(dropped), walk=walk)


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
    walk = news.walk
    store.set_meta(WALK_KEY, json.dumps([walk.head, walk.shas, walk.ended]) if walk else "")
