"""Answers at another commit (``--at REF``) without touching the work tree.

The files of the commit are checked out from git's objects into ``.mnemo/at/tree``, a repository
of mnemo's own that borrows the user's object store (``objects/info/alternates``) and has the
commit as its detached HEAD, so the index, the history channel and ``git log`` there see exactly
that commit and what it reaches. The checkout is hermetic: git runs without the user's and the
system's configuration (no smudge filter, hook or helper configured elsewhere runs), symlinks
become plain files, and a ``.mnemo/`` the commit itself holds is left out (sparse checkout), so
nothing the analysed history contains can run or overwrite mnemo's own files.

One tree serves every ref: moving it to another commit rewrites only the files that differ, and
the index there re-parses only files whose content hash changed. The tree's first index starts
as a copy of the repository's own (the same content hashes), so even a first ref costs only the
files that differ from the work tree. A lock keeps the tree on one commit while a query reads it.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.lock import index_lock
from mnemo_core.index.store import index_path, prepare_index_dir
from mnemo_core.statedir import own_subdir
from mnemo_core.vcs.git import GitError, Sha, git_dirs, head_commit, require_toplevel, run_git
from mnemo_core.vcs.refs import resolve_ref

AT_DIR = "at"
TREE_DIR = "tree"
SPARSE = "/*\n!/.mnemo\n"  # everything but a .mnemo (directory or file) the commit holds
TREE_CONFIG = (
    ("core.symlinks", "false"),
    ("core.autocrlf", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.sparseCheckout", "true"),
    ("gc.auto", "0"),
)


@dataclass
class CommitTree:
    """The files of one commit, checked out beside the repository, held until :meth:`close`."""

    origin: Path  # the repository asked about
    root: Path  # the checkout: the top level the engine answers from
    ref: str  # the name the user gave
    commit: Sha
    _held: ExitStack

    def close(self) -> None:
        """Let another query move the tree."""
        self._held.close()

    def note(self) -> str:
        """One line saying what the answer is about."""
        return f"answered at {self.ref} ({self.commit[:12]}), from git's objects; the work tree is untouched"


def open_commit_tree(origin: Path, ref: str) -> CommitTree:
    """The checkout of the commit ``ref`` names in the repository at ``origin``, made or moved there
    and locked for the caller; a MnemoError for a directory that is no git repository or a ref that
    names no commit."""
    try:
        require_toplevel(origin)
    except GitError as exc:
        raise MnemoError(f"--at needs a git repository: {exc}") from None
    commit = resolve_ref(origin, ref)
    at_dir = own_subdir(prepare_index_dir(origin), AT_DIR)
    held = ExitStack()
    held.enter_context(index_lock(at_dir))
    try:
        tree = _tree(origin, at_dir, TREE_DIR)
        if head_commit(tree) != commit:
            run_git(tree, "checkout", "-q", "-f", "--detach", commit, hermetic=True)
        _seed_index(origin, tree)
    except BaseException:
        held.close()
        raise
    return CommitTree(origin, tree, ref, commit, held)


def _tree(origin: Path, at_dir: Path, name: str) -> Path:
    """The checkout repository, created when missing or borrowing another object store. Only a
    real directory of mnemo's is ever removed: the state directory holds no links (``statedir``)."""
    tree = own_subdir(at_dir, name)
    dirs = git_dirs(origin)
    common = dirs[1] if dirs else Path(run_git(origin, "rev-parse", "--git-common-dir").decode().strip())
    objects = (origin / common / "objects").resolve()
    alternates = tree / ".git" / "objects" / "info" / "alternates"
    if not _borrows(alternates, objects):
        shutil.rmtree(tree, ignore_errors=True)
        tree = own_subdir(at_dir, name)
        run_git(tree, "init", "-q", "--template=", hermetic=True)
        for key, value in TREE_CONFIG:
            run_git(tree, "config", key, value, hermetic=True)
        (tree / ".git" / "info").mkdir(exist_ok=True)
        (tree / ".git" / "info" / "sparse-checkout").write_text(SPARSE, encoding="utf-8")
        alternates.parent.mkdir(parents=True, exist_ok=True)
        alternates.write_text(f"{objects}\n", encoding="utf-8")
    shallow = (origin / common / "shallow").resolve()
    if shallow.is_file():
        shutil.copyfile(shallow, tree / ".git" / "shallow")
    else:
        (tree / ".git" / "shallow").unlink(missing_ok=True)
    return tree


def _borrows(alternates: Path, objects: Path) -> bool:
    try:
        return alternates.read_text(encoding="utf-8").strip() == str(objects)
    except OSError:
        return False


def _seed_index(origin: Path, tree: Path) -> None:
    """Start the tree's first index as a copy of the repository's: files whose content is the
    same keep their symbols and edges, only the others are parsed. Without one, the tree's first
    query builds its index from scratch."""
    target = index_path(tree)
    source = index_path(origin)
    if target.exists() or not source.exists():
        return
    prepare_index_dir(tree)
    partial = target.with_name(target.name + ".seeding")
    try:
        with (
            closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src,
            closing(sqlite3.connect(partial)) as dst,
        ):
            src.backup(dst)
        partial.replace(target)
    except (sqlite3.Error, OSError):
        partial.unlink(missing_ok=True)
