"""A fingerprint of git's state, read from git's own files: what a pull, checkout, commit, reset or
stash made outside mnemo moves.

Every one of them moves ``HEAD``, the ref it points to, ``packed-refs`` or the index file, so the
fingerprint is a ``stat`` of those few files (and one read of ``HEAD``). In a linked work tree
``.git`` is a file naming the work tree's own git directory (``HEAD``, ``index``), whose common
directory holds the refs. Git is never run here: a long-lived front end can poll this every
couple of seconds for nothing.
"""

from __future__ import annotations

from pathlib import Path

from mnemo_core.vcs.git import git_dirs

REF_PREFIX = "ref: "
Stamp = tuple[int, int, int] | None  # (mtime in ns, size, inode) of a file; None while it is missing
State = tuple[tuple[str, Stamp], ...]


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


def git_state(root: Path) -> State:
    """A fingerprint of git's state in ``root``: equal fingerprints, nothing moved (empty without git)."""
    dirs = git_dirs(root)
    if dirs is None:
        return ()
    return tuple((str(path), _stamp(path)) for path in watched_files(*dirs))


def _stamp(path: Path) -> Stamp:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)
