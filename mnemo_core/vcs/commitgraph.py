"""mnemo's own commit-graph, so that git walks a path's history without reading every commit.

A change's answer asks git for the newest commit that touched each path it blames (``git rev-list
-1 <commit> -- <path>``, blame's key) and blames some files. Without a commit-graph git inflates
every commit it passes and diffs its tree against its parent's for the path: 25-200 ms of CPU a
path on saleor's 22,000 commits. A commit-graph with changed-path Bloom filters answers "did this
commit touch this path" for most commits from a few bits, ten times cheaper. Many clones have none
(git writes one only at ``gc`` or ``maintenance``, with ``fetch.writeCommitGraph``) and mnemo never
writes inside ``.git``; so it keeps its own in ``.mnemo/commitgraph/``, an object directory that
holds no objects, only ``info/commit-graphs/``. Its git processes that walk history name it an
alternate (``GIT_ALTERNATE_OBJECT_DIRECTORIES``): git loads a commit-graph from an alternate when
the repository has none of its own. The answers do not move: a graph and its filters only spare
work (a filter says "maybe" or "no", and "maybe" is checked on the trees), and git leaves every
graph out where it could mislead (a shallow clone, grafts, replaced objects).

The index brings it up to HEAD in its history thread, beside the parse (``refresh``): the first
time a layer of HEAD's whole history (1.7 s of git's CPU on saleor), after that a layer of the
commits HEAD gained (``--split``: milliseconds); git merges the layers as they pile up. The HEAD it
was last brought to is noted beside it, so an index whose HEAD did not move starts no git process.
A repository with a commit-graph of its own gets none of mnemo's (git would read its own first).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.statedir import own_file, own_subdir, state_dir, write_own_text
from mnemo_core.vcs.git import GitError, is_shallow, run_git

log = logging.getLogger(__name__)

GRAPH_SUBDIR = "commitgraph"  # in mnemo's state directory: an object directory without objects
# changed-path filters computed per write at most: saleor's 22,600 commits take 1.8 s of git's CPU,
# so a history of millions (the kernel's) gets filters for this many commits a write (about 8 s), not
# for all of them at once (minutes)
MAX_NEW_FILTERS = 100_000
HEAD_NOTE = "head"  # the HEAD the graph was last brought to (or tried at: a failure is not retried)
_CHAIN = Path("info", "commit-graphs", "commit-graph-chain")  # what ``--split`` writes
_OWN_GRAPHS = ("objects/info/commit-graph", "objects/info/commit-graphs")  # a repository's own


def graph_in(state: Path) -> Path | None:
    """The commit-graph directory under the state directory ``state``, or None when it holds none
    (or is not a directory of mnemo's: a link is never followed)."""
    directory = state / GRAPH_SUBDIR
    try:
        info = os.lstat(directory)
    except OSError:
        return None
    mine = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
    return directory if mine and (directory / _CHAIN).is_file() else None


def refresh(root: Path, head: str | None) -> None:
    """Bring mnemo's commit-graph of ``root`` to cover the history of ``head``; nothing where HEAD
    did not move since, where there is no state directory or no commit, in a shallow clone and in a
    repository that has a graph of its own. Never raises: the graph only makes git faster."""
    state = state_dir(root, create=False)
    if head is None or not state.is_dir():
        return
    note = state / GRAPH_SUBDIR / HEAD_NOTE
    try:
        directory = own_subdir(state, GRAPH_SUBDIR)
        if own_file(note).is_file() and note.read_text(encoding="utf-8") == head:
            return
        if not is_shallow(root) and not _has_own_graph(root):
            _write(root, directory.resolve(), head)
        write_own_text(note, head)
    except (MnemoError, OSError, UnicodeDecodeError) as exc:  # GitError is a MnemoError
        log.info("no commit-graph of mnemo's for %s: %s", root, exc)


def _write(root: Path, directory: Path, head: str) -> None:
    """A new layer of the graph in ``directory``: the commits of ``head``'s history it lacks."""
    run_git(
        root,
        *("commit-graph", "write", "--stdin-commits", "--split", "--changed-paths"),
        f"--max-new-filters={MAX_NEW_FILTERS}",
        *("--object-dir", str(directory)),
        input_bytes=f"{head}\n".encode(),
        alternate=directory,
    )


def _has_own_graph(root: Path) -> bool:
    """Whether the repository keeps a commit-graph in its own object directory."""
    try:
        found = run_git(root, "rev-parse", *(a for p in _OWN_GRAPHS for a in ("--git-path", p)))
    except GitError:
        return False
    return any((root / line).exists() for line in found.decode("utf-8", "surrogateescape").splitlines())
