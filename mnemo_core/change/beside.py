"""Work on a list of items shared with a forked child, so that a change's analysis uses the second core.

The base side's extractions of a diff (``extracts``) and the walks to a change's tests, one per
changed symbol, each alone (``impact.tests_reaching``), are independent of each other: the child
takes some while this process does the rest and whatever comes before them. Their costs differ a
hundredfold (one walk on saleor's ``HEAD~5`` is half of all 126), so neither gets a fixed half: the
items' places are written into a pipe before the fork as 4-byte tokens, and each process reads the
next token when it is free (a pipe's read of 4 bytes, with 4 or more waiting, is one atomic step,
so both stay aligned and no token is taken twice). The child sends its results back pickled
through a second pipe and leaves by ``os._exit`` (none of the parent's buffers, ``atexit`` hooks
or ``finally`` blocks run twice).

It forks only where another core is free (the 1-minute load average leaves one: a busy machine
gets nothing from the child but its cost, about a fifth more CPU) and nothing else runs in this
process: a lock another thread held at the fork would stay held in the child. So the caller starts
it before its own threads (git's blames); where a thread already runs, no core is free, the
platform cannot fork, or there is too little to share, ``start`` answers None and the caller does
all of the work itself. Whatever the child does not send back (it failed, or was killed) the
caller does too: the answer never depends on the child.
"""

from __future__ import annotations

import os
import signal
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
TOKEN = struct.Struct("<I")  # an item's place in the list, as the pipe carries it
# tokens written before the fork, with no reader yet: within the smallest pipe buffer of the systems
# mnemo runs on (4 KiB), or the write would wait for ever; the items past them are this process's
PIPE_TOKENS = 1_000
# the load average must leave a core this free (counting this process's own load): 2 cores, under 1.5
IDLE_LOAD_BELOW = 0.5
MIN_SHARED = 2  # fewer items: nothing to share (a fork costs about what a short walk does)


class Beside(Generic[T]):
    """A forked child working through ``items`` beside this process (``start``): ``mine`` yields
    the items this process takes, ``results`` the child's answer once none is left (None if it
    failed)."""

    def __init__(self, pid: int, queue: int, answer: int, items: Sequence[T]) -> None:
        self._pid = pid
        self._queue = queue
        self._answer = answer
        self._items = items
        self._open = True

    @classmethod
    def start(cls, items: Sequence[T], child: Callable[[Iterator[T]], bytes]) -> Beside[T] | None:
        """Fork a child that runs ``child`` over the items it takes and sends back what it returns;
        None where no child can be forked safely (or the items are too few to share)."""
        if len(items) < MIN_SHARED or not hasattr(os, "fork") or threading.active_count() > 1:
            return None
        if not _idle_core():
            return None
        queue, tokens = os.pipe()
        os.write(tokens, b"".join(TOKEN.pack(i) for i in range(min(len(items), PIPE_TOKENS))))
        os.close(tokens)
        answer, sending = os.pipe()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:  # no process to be had: this process does the work alone
            for fd in (queue, answer, sending):
                os.close(fd)
            return None
        if pid == 0:  # the child: never returns to the caller's code
            code = 1
            try:
                os.close(answer)
                _as_worker(parent)
                _send(sending, child(_taken(queue, items)))
                code = 0
            finally:
                os._exit(code)
        os.close(sending)
        return cls(pid, queue, answer, items)

    def mine(self) -> Iterator[T]:
        """The items this process takes, until none is left to take."""
        yield from _taken(self._queue, self._items)
        yield from self._items[PIPE_TOKENS:]

    def results(self) -> bytes | None:
        """What the child sent back (waiting for it), or None if it failed."""
        chunks = []
        while chunk := os.read(self._answer, 1 << 20):
            chunks.append(chunk)
        _, status = os.waitpid(self._pid, 0)
        self._close()
        return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None

    def close(self) -> None:
        """Stop the child if it still runs (the caller gave up on its work)."""
        if self._open:
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._close()

    def _close(self) -> None:
        if self._open:
            self._open = False
            os.close(self._queue)
            os.close(self._answer)


def _idle_core() -> bool:
    """Whether another core is free for the child: with none, the child's work (a few walks' steps
    read twice, the fork's copied pages: about a fifth more CPU) only slows this process down."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        return cores > 1 and os.getloadavg()[0] < cores - IDLE_LOAD_BELOW
    except OSError:  # the load is unknown here: a child could only compete with whatever runs
        return False


def _taken(queue: int, items: Sequence[T]) -> Iterator[T]:
    while len(token := os.read(queue, TOKEN.size)) == TOKEN.size:
        yield items[TOKEN.unpack(token)[0]]


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.close(fd)


def _as_worker(parent: int) -> None:
    """Ctrl-C is the parent's to report; the child dies with it (``index.workers``)."""
    from mnemo_core.index.workers import worker_init

    worker_init(parent)
