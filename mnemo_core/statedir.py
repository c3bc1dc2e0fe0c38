"""mnemo's own state directory for a repository, which the repository cannot steer.

The state (index, memory, caches, ``--at`` trees, reports) lives in ``<root>/.mnemo`` when that is a
real directory owned by the user that the repository does not track, or does not exist yet (it is
then created, with a ``.gitignore`` of ``*``). A ``.mnemo`` that is a symlink, a file, a directory
owned by someone else, or one git tracks anything under (a committed ``.mnemo/at -> /some/dir``) is
never used, read or written: the state moves to a private directory under the user's cache
(``$XDG_CACHE_HOME/mnemo/state/<name>-<hash of the root's real path>``), and one warning says so when
that directory is first made.

Inside the state directory nothing is followed either: :func:`own_file` refuses a name that is a
symlink or anything but a regular file of ours (SQLite would open through a planted ``index.db``
link), :func:`own_subdir` one that is not a real directory, and :func:`write_own_text` replaces a
file by renaming a new one over it, which never writes through a link.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from mnemo_core.errors import MnemoError
from mnemo_core.vcs.git import GitError, run_git

log = logging.getLogger(__name__)

STATE_NAME = ".mnemo"
IGNORE_TEXT = "*\n"  # .mnemo/.gitignore: nothing of mnemo's state is ever committed
PRIVATE_MODE = 0o700  # the private state directory holds an index of the user's code: theirs alone
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # what SQLite creates beside a database file
NAME_CHARS = 40  # how much of the repository's name the private directory's name keeps, for people


_tracked_seen: dict[tuple[str, int], bool] = {}


class StateError(MnemoError):
    """mnemo's state directory holds something mnemo did not put there (a link, another user's file)."""


def state_dir(root: Path, create: bool = True) -> Path:
    """The directory mnemo keeps ``root``'s state in (created unless ``create`` is false)."""
    local = root / STATE_NAME
    reason = _unusable(root, local)
    if reason is None:
        if create:
            _make_local(local)
        return local
    private = private_dir(root)
    if create and not private.is_dir():
        _make_private(private)
        log.warning("%s %s; mnemo keeps this repository's state in %s instead", local, reason, private)
    return private


def private_dir(root: Path) -> Path:
    """The private state directory of ``root``, under the user's cache directory."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    real = os.path.realpath(root)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:20]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(real))[:NAME_CHARS] or "root"
    return Path(cache) / "mnemo" / "state" / f"{name}-{digest}"


def _unusable(root: Path, local: Path) -> str | None:
    """Why ``<root>/.mnemo`` cannot hold mnemo's state, or None when it can."""
    try:
        info = os.lstat(local)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            return "is a symlink"
        if not stat.S_ISDIR(info.st_mode):
            return "is not a directory"
        if info.st_uid != os.geteuid():
            return "belongs to another user"
    if _tracked(root):
        return "is tracked by the repository"
    return None


def _tracked(root: Path) -> bool:
    """Whether git tracks anything at or under ``root/.mnemo`` (False outside a git repository).
    Asked once per state of git's index file, so a process that opens its state often pays once."""
    try:
        key = (str(root), os.stat(root / ".git" / "index").st_mtime_ns)
    except OSError:
        key = None
    if key is not None and key in _tracked_seen:
        return _tracked_seen[key]
    try:
        tracked = bool(run_git(root, "ls-files", "-z", "--", STATE_NAME, check=False))
    except GitError:
        tracked = False
    if key is not None:
        _tracked_seen[key] = tracked
    return tracked


def _make_local(local: Path) -> None:
    try:
        local.mkdir(exist_ok=True)
        if not stat.S_ISDIR(os.lstat(local).st_mode):
            raise StateError(f"{local} changed while mnemo created it; try again")
        ignore = local / ".gitignore"
        if not os.path.lexists(ignore):
            write_own_text(ignore, IGNORE_TEXT)
    except OSError as exc:
        raise MnemoError(f"cannot create {local}: {exc.strerror}. Is the directory writable?") from exc


def _make_private(private: Path) -> None:
    try:
        private.mkdir(mode=PRIVATE_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise MnemoError(
            f"cannot create mnemo's state directory {private}: {exc.strerror}. "
            "Set XDG_CACHE_HOME to a writable directory."
        ) from exc


def own_file(path: Path) -> Path:
    """``path`` itself, after checking that it is absent or a regular file of the user's (never a link)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise StateError(f"{path} cannot be examined: {exc.strerror}") from exc
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise StateError(
            f"{path} is not a regular file (a link or another kind); mnemo will not use it. Remove it."
        )
    if info.st_uid != os.geteuid():
        raise StateError(f"{path} belongs to another user; mnemo will not use it. Remove it.")
    return path


def own_database(path: Path) -> Path:
    """``path`` itself, after :func:`own_file` has checked it and the files SQLite keeps beside it
    (SQLite opens them too, following links)."""
    for suffix in SQLITE_SIDE_FILES:
        own_file(Path(f"{path}{suffix}"))
    return own_file(path)


def own_subdir(directory: Path, name: str) -> Path:
    """The real subdirectory ``name`` of a state directory, created when absent; never a link."""
    path = directory / name
    try:
        path.mkdir(exist_ok=True)
        info = os.lstat(path)
    except OSError as exc:
        raise MnemoError(f"cannot create {path}: {exc.strerror}. Is {directory} writable?") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise StateError(f"{path} is not a directory of mnemo's (a link or another kind); remove it")
    return path


def write_own_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` through a new file renamed over it: a link is replaced, not followed."""
    with replacing(path) as handle:
        handle.write(text.encode("utf-8"))


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A new file in ``path``'s directory, written in the block and renamed over ``path`` when it
    ends (a link there is replaced, not followed); removed instead when the block raises."""
    fd, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
