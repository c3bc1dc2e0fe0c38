"""A damaged or read-only index: recognise it, move it aside, or leave it alone.

A damaged index (SQLite says "file is not a database" or "database disk image is malformed", a
failed ``quick_check``, a file that is not mnemo's) is renamed to ``index.db.damaged-<time>`` with
its WAL files rather than deleted: the copy is there for a bug report (only the newest one is
kept, so repeated damage cannot fill the disk). The caller then rebuilds. An index mnemo cannot
write (a read-only directory, file or file system, an immutable file) is never moved or rebuilt:
it is opened read-only and answers as it is.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path

from mnemo_core.errors import MnemoError

log = logging.getLogger(__name__)

DAMAGED_SUFFIX = ".damaged-"
_DAMAGE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNWRITABLE_WORDS = ("disk is full", "disk i/o error")
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt")  # before Python 3.11 errors carry no code
SIDE_FILES = ("-wal", "-shm")


class IndexDamaged(MnemoError):
    """The index database is damaged; it has been moved aside when that was possible."""


class IndexReadOnly(MnemoError):
    """The index cannot be written; it can still be read as it is."""


def is_damage(exc: BaseException) -> bool:
    """Whether a SQLite error says the database file itself is damaged."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "")
    return name.startswith(_DAMAGE_CODES) or any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def is_read_only(exc: BaseException) -> bool:
    """Whether a SQLite error says the database cannot be written: read-only, or no room to write
    (a full disk or file-size limit; SQLite reports the latter as an I/O error). Never damage: such
    an index is answered from as it is, not moved aside."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "readonly" in text.replace(" ", "") or any(word in text for word in _UNWRITABLE_WORDS)


def writable(path: Path) -> bool:
    """Whether mnemo can rewrite the index at ``path`` (its directory and files). ``os.access``
    reports read-only mounts and immutable files even to root."""
    files = [Path(f"{path}{suffix}") for suffix in ("", *SIDE_FILES)] + [path.parent / "index.lock"]
    return os.access(path.parent, os.W_OK) and all(os.access(f, os.W_OK) for f in files if f.exists())


def quarantine(path: Path, reason: str) -> None:
    """Move a damaged index (and its WAL files) aside, with one warning line."""
    if not writable(path):
        raise IndexDamaged(
            f"the index {path} is {reason}, and its directory cannot be written: make "
            f"{path.parent} writable, or remove it, then run `mnemo index` again"
        )
    for old in path.parent.glob(f"{path.name}{DAMAGED_SUFFIX}*"):
        old.unlink(missing_ok=True)
    aside = Path(f"{path}{DAMAGED_SUFFIX}{time.strftime('%Y%m%dT%H%M%S')}")
    for suffix in ("", *SIDE_FILES):
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.replace(source, f"{aside}{suffix}")
    log.warning("the index %s is %s; moved it to %s and rebuilding it", path, reason, aside.name)
