"""One writer per index: an advisory lock file next to the database.

A second indexer waits (up to ``LOCK_WAIT_S``) for the first to finish, then re-checks the files,
which is usually a no-op. The lock file records who holds it, so a timeout can say so.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.statedir import own_file

LOCK_WAIT_S = 30.0  # a cold index of a large repository takes this long; then give up and say who holds it
POLL_S = 0.05


@contextmanager
def index_lock(directory: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold the index lock of ``directory`` (the ``.mnemo`` folder) for the duration of the block."""
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    path = own_file(directory / "index.lock")
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (closed by the with below)
    except OSError as exc:
        raise MnemoError(f"cannot write {path}: {exc.strerror}. Is {directory} writable?") from exc
    with handle:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    raise MnemoError(
                        f"the index in {directory} is being written by {holder}; waited {wait_s:.0f}s. "
                        "Try again when it finishes."
                    ) from None
                time.sleep(POLL_S)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} ({' '.join(os.path.basename(a) for a in sys.argv[:2])})")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
