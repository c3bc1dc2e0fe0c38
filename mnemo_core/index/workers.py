"""Worker processes that never run the analysed repository's code and never outlive mnemo.

Parse workers are fresh interpreters (multiprocessing "spawn"), started as ``python -c ...`` in the
working directory, which is usually the repository being analysed: ``-c`` would put that directory
first on ``sys.path`` and import a planted ``multiprocessing.py`` before any of mnemo's code runs.
So they are started with ``PYTHONSAFEPATH=1`` (Python 3.11+), and the ``sys.path`` they inherit
from the parent is handed over without relative entries, the working directory or the repository
(see ``mnemo_core.safepath``); forked workers get the same cleaned ``sys.path`` for any import they do.
They start with SIGINT blocked, then ignored (Ctrl-C is the parent's to report, in one line), and
exit when the parent dies: on Linux through ``PR_SET_PDEATHSIG``, and everywhere by watching the parent's pid.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from mnemo_core.safepath import is_untrusted

R = TypeVar("R")
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_POLL_S = 1.0  # how soon a worker notices its parent is gone where the kernel cannot tell it
# objects allocated between two garbage collections in a worker (Python's default is 700; the
# ``mnemo`` process sets the same in ``cli.run``): a parse worker allocates Python objects per query
# capture and per reference, and collecting every 700 of them cost its query a sixth more CPU
YOUNG_OBJECTS_PER_COLLECTION = 100_000
# tasks handed to the pool per worker before the caller takes a result: enough that a worker never
# waits for the next, few enough that results done before a slower caller takes them stay few (all
# handed at once, a parse's finished files piled up in the parent: 782 MB on ten stdlib copies)
AHEAD_PER_WORKER = 4


def parallel_map(
    fn: Callable[..., R], args: Iterable[tuple[Any, ...]], workers: int, root: Path
) -> Iterator[R]:
    """``fn(*a)`` for each ``a`` in spawned worker processes, results in order, at most
    ``AHEAD_PER_WORKER`` tasks a worker handed ahead of the caller. Stopping early (an error,
    Ctrl-C, the caller closing the generator) cancels what has not started."""
    todo = iter(args)
    with clean_start(root):
        from concurrent.futures import ProcessPoolExecutor  # here: small updates never pay for these
        from multiprocessing import get_context

        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=worker_init,
            initargs=(os.getpid(),),
        )
        try:  # the workers start here, inside clean_start: the first tasks are more than the workers
            pending = deque(pool.submit(fn, *a) for a in islice(todo, workers * AHEAD_PER_WORKER))
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    try:
        while pending:
            result = pending.popleft().result()  # let go once handed over
            pending.extend(pool.submit(fn, *a) for a in islice(todo, 1))
            yield result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def clean_start(root: Path) -> Iterator[None]:
    """Start processes in this block: no repository code on their ``sys.path``, and SIGINT blocked
    (the children inherit the mask through exec, so a Ctrl-C while they boot cannot print their
    tracebacks; here it stays pending and is raised when the block ends)."""
    saved_path, saved_env = sys.path[:], os.environ.get("PYTHONSAFEPATH")
    mask = None
    try:
        sys.path[:] = [p for p in sys.path if not is_untrusted(p, str(root))]
        os.environ["PYTHONSAFEPATH"] = "1"
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()  # now: starting it later would unblock SIGINT again
        if hasattr(signal, "pthread_sigmask"):  # POSIX
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if saved_env is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = saved_env
        sys.path[:] = saved_path


def worker_init(parent: int) -> None:
    """Run first in every worker: ignore Ctrl-C, die with the parent, collect garbage in larger batches."""
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, *gc.get_threshold()[1:])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by clean_start; ignored now
    if sys.platform.startswith("linux"):
        import ctypes  # only workers need it

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the kernel was told to notify us
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="mnemo-parent-watch").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)
