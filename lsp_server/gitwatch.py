"""Notice what git does outside the editor: a pull, a checkout, a commit, a reset, a stash.

The server polls the engine's fingerprint of git's state (``engine.git_state``: a ``stat`` of
``HEAD``, its ref, ``packed-refs`` and the index) every ``POLL_S`` seconds and calls back when it
moved. A poller, not an inotify watcher: on a shared 2-core machine four ``stat`` calls every two
seconds cost nothing, need no dependency, and see changes on network file systems too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from mnemo_core.engine import git_state

log = logging.getLogger(__name__)

POLL_S = 2.0  # how soon a change outside the editor shows; each poll is a handful of stat calls


async def watch(root: Path, changed: Callable[[], None], every: float = POLL_S) -> None:
    """Call ``changed`` (on the event loop) each time git's state in ``root`` moves; runs until
    cancelled. A repository without git is still polled: ``git init`` may come later."""
    before = git_state(root)
    while True:
        await asyncio.sleep(every)
        now = git_state(root)
        if now != before:
            log.info("git changed outside the editor in %s: updating the index", root)
            before = now
            changed()
