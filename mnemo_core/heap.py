"""Memory a finished phase freed, given back to the system before the next phase grows.

A cold index resolves with the whole index loaded (the world: most of a large build's peak), then
builds the graph file. What the world held is garbage by then, partly in reference cycles the
collector has not reached, and freed memory stays with the process until the C allocator is asked
to return it: on ten stdlib copies the graph's build stacked its own ~460 MB on ~860 MB still held
(1,144 MB), past the 1 GB a build of that size may take.
"""

from __future__ import annotations

import ctypes
import gc
import sys


def release_freed() -> None:
    """Collect what only cycles keep alive, then ask the C allocator to return its free pages
    (glibc's ``malloc_trim``; elsewhere the collection alone)."""
    gc.collect()
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own C library
    except (OSError, AttributeError):  # a C library without it (musl)
        return
    trim(0)
