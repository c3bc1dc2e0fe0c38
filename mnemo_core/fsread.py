"""Reading a repository's files without trusting them.

A repository can hold a symlink to ``/dev/zero`` or to ``~/.ssh/id_rsa``, a FIFO, a device node.
:func:`read_inside` reads ``root/path`` only when it resolves (symlinks followed) to a regular file
inside ``root``; it checks the type with ``lstat`` before opening (opening a device or a FIFO can
block or have effects) and again with ``fstat`` on the opened descriptor (opened non-blocking,
without following a last symlink, so a swap in between fails instead of reading something else),
and it reads at most ``limit + 1`` bytes whatever the size ``stat`` claimed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_READ_BYTES = 16_000_000  # nothing mnemo reads from a working tree is larger: bounds its memory
# the largest source file mnemo reads (larger ones are almost always generated or data): the index
# skips them, and so does the analysis of a change, before reading them
MAX_SOURCE_BYTES = 1_000_000
_FLAGS = (
    os.O_RDONLY
    | os.O_NONBLOCK
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)
_CHUNK = 1 << 20


class Refused(OSError):
    """A file that must not be read: its ``reason`` says why (outside the repository, not a regular
    file, too large)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Read:
    """The bytes of a file, and its size and mtime as ``stat`` saw them (for staleness checks)."""

    data: bytes
    size: int
    mtime_ns: int


def inside(root: Path | str, path: str) -> str:
    """The real path of ``root/path``; raises :class:`Refused` when it resolves outside ``root``."""
    base = os.path.realpath(root)
    real = os.path.realpath(os.path.join(base, path))
    if os.path.commonpath([real, base]) != base:
        raise Refused(path, "outside the repository")
    return real


def read_inside(root: Path | str, path: str, limit: int = MAX_READ_BYTES) -> Read:
    """The bytes of the regular file ``root/path`` (at most ``limit`` of them). Raises
    :class:`Refused` for what must not be read, ``OSError`` (``FileNotFoundError`` among them) when
    it cannot be."""
    real = inside(root, path)
    before = os.lstat(real)
    if not stat.S_ISREG(before.st_mode):
        raise Refused(path, "not a regular file")
    if before.st_size > limit:
        raise Refused(path, "too large")
    fd = os.open(real, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise Refused(path, "not a regular file")
        data = _read_at_most(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Refused(path, "too large")
    return Read(data, st.st_size, st.st_mtime_ns)


def _read_at_most(fd: int, count: int) -> bytes:
    parts: list[bytes] = []
    left = count
    while left > 0:
        part = os.read(fd, min(left, _CHUNK))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
