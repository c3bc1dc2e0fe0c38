"""Notice what git does outside the editor: a pull, a checkout, a commit, a reset, a stash.

Every one of them moves ``HEAD``, the ref it points to, ``packed-refs`` or the index file, so the
server polls those few files every ``POLL_S`` seconds (a ``stat`` each, and one read of ``HEAD``)
and calls back when any of them changed. A poller, not an inotify watcher: on a shared 2-core
machine four ``stat`` calls every two seconds cost nothing, need no dependency, and see changes on
network file systems too. In a linked work tree ``.git`` is a file naming the work tree's own git
directory (``HEAD``, ``index``), whose ``commondir`` holds the refs. Git is never run here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

POLL_S = 2.0  # how soon a change outside the editor shows; each poll is a handful of stat calls
GITDIR_PREFIX = "gitdir: "
REF_PREFIX = "ref: "
Stamp = tuple[int, int, int] | None  # (mtime in ns, size, inode) of a file; None while it is missing
State = tuple[tuple[str, Stamp], ...]


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """The git directory of a work tree's top level and its common directory (where the refs live;
    the same one outside linked work trees), or None when ``root`` has no git directory of its own."""
    dot_git = root / ".git"
    try:
        if dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8").strip()
            if not text.startswith(GITDIR_PREFIX):
                return None
            git_dir = (root / text[len(GITDIR_PREFIX) :]).resolve()
        elif (dot_git / "HEAD").is_file():
            git_dir = dot_git
        else:
            return None
        common_file = git_dir / "commondir"
        common = (
            (git_dir / common_file.read_text(encoding="utf-8").strip()).resolve()
            if common_file.is_file()
            else git_dir
        )
    except (OSError, UnicodeDecodeError):
        return None
    return git_dir, common


def watched_files(git_dir: Path, common: Path) -> list[Path]:
    """``HEAD``, the ref it points to (loose, in either directory), ``packed-refs`` and the index."""
    files = [git_dir / "HEAD", git_dir / "index", common / "packed-refs"]
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return files
    if head.startswith(REF_PREFIX):
        ref = head[len(REF_PREFIX) :]
        files += dict.fromkeys((git_dir / ref, common / ref))
    return files


def _stamp(path: Path) -> Stamp:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def git_state(root: Path) -> State:
    """A fingerprint of git's state in ``root``: equal fingerprints, nothing moved (empty without git)."""
    dirs = git_dirs(root)
    if dirs is None:
        return ()
    return tuple((str(path), _stamp(path)) for path in watched_files(*dirs))


async def watch(root: Path, changed: Callable[[], None], every: float = POLL_S) -> None:
    """Call ``changed`` (on the event loop) each time git's state in ``root`` moves; runs until
    cancelled. A repository without git is still polled: ``git init`` may come later."""
    before = git_state(root)
    while True:
        await asyncio.sleep(every)
        now = git_state(root)
        if now != before:
            log.info("git changed outside the editor in %s: updating the index", root)
            before = now
            changed()
