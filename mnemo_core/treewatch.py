"""Watch a repository's work tree for source files created, changed or deleted by anything (an
agent, a formatter, a code generator, ``git``), for front ends whose client does not report them.

Built on ``watchfiles`` (inotify on Linux, FSEvents, ReadDirectoryChangesW; a maintained Rust
watcher). Changes are debounced: a burst (a formatter over the tree, a checkout) arrives as one set,
at most ``DEBOUNCE_MS`` after its first change and once ``QUIET_MS`` pass without another. Only
files of the languages mnemo indexes count, and nothing under ``.git``, ``.mnemo`` or the
directories every tool skips (``node_modules``, ``.venv``, caches): the callback then updates the
index incrementally over the repository's listing, which applies the index's own ignore rules
(``.gitignore``, size caps), so a change to an ignored file costs a ``stat`` per file and indexes
nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, DefaultFilter, awatch, watch

from mnemo_core.index.languages import registry

log = logging.getLogger(__name__)

DEBOUNCE_MS = 600  # the longest a burst of changes is held back: a change shows within ~1 s
QUIET_MS = 150  # a burst ends after this long without a change
STATE_DIRS = (".git", ".mnemo")  # git's and mnemo's own files: never the work tree's


class SourceFilter(DefaultFilter):
    """Source files of the indexed languages, outside git's, mnemo's and the usual tool dirs."""

    def __init__(self) -> None:
        super().__init__(ignore_dirs=(*DefaultFilter.ignore_dirs, *STATE_DIRS))
        self.extensions = tuple({ext for spec in registry().values() for ext in spec.extensions})

    def __call__(self, change: Change, path: str) -> bool:
        return path.endswith(self.extensions) and super().__call__(change, path)


def changed_paths(root: Path, changes: set[tuple[Change, str]]) -> list[str]:
    """The repository-relative POSIX paths of a set of changes, sorted, each once."""
    relative = set()
    for _, path in changes:
        try:
            relative.add(Path(path).relative_to(root).as_posix())
        except ValueError:  # outside the root (a symlinked directory's target): not the tree's
            continue
    return sorted(relative)


async def watch_async(root: Path, changed: Callable[[list[str]], None]) -> None:
    """Call ``changed`` (on the event loop) with the paths of each debounced burst of source file
    changes under ``root``; runs until cancelled."""
    async for changes in awatch(
        root, watch_filter=SourceFilter(), debounce=DEBOUNCE_MS, step=QUIET_MS, recursive=True
    ):
        if paths := changed_paths(root, changes):
            log.info("%d source file(s) changed outside the editor in %s", len(paths), root)
            changed(paths)


def watch_thread(root: Path, changed: Callable[[list[str]], None], stop: threading.Event) -> threading.Thread:
    """A daemon thread calling ``changed`` with each debounced burst of source file changes under
    ``root`` until ``stop`` is set (for a front end without an event loop of its own to spare)."""

    def run() -> None:
        for changes in watch(
            root,
            watch_filter=SourceFilter(),
            debounce=DEBOUNCE_MS,
            step=QUIET_MS,
            stop_event=stop,
            recursive=True,
        ):
            if paths := changed_paths(root, changes):
                try:
                    changed(paths)
                except Exception as exc:  # the next change or call tries again; the watch goes on
                    log.warning("updating the index after a change in %s failed: %s", root, exc)

    thread = threading.Thread(target=run, name="mnemo-treewatch", daemon=True)
    thread.start()
    return thread
