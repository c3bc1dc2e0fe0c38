"""Which files each index generation rewrote: what a reader kept from an older generation checks.

Every update that bumps the index's generation notes, in the same transaction, the paths of the
files whose rows it rewrote: those parsed again (or found gone), and those resolved again (their
edges replaced: the parsed files, and the files whose resolution read what changed). A file not
noted kept its symbols, edges and content. A reader that kept something it derived at generation
``g``, with the files it read, asks ``changed_since(g)``: the union of the notes since, or None
when it cannot be told (a first build, a full rebuild or a re-analysis rewrites everything, and
only the last ``KEPT_GENERATIONS`` are noted).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from mnemo_core.index.store import Store

META_KEY = "changed_files"
KEPT_GENERATIONS = 32  # a few days of edits, each answered once
MAX_PATHS = 2000  # a change this large is noted as "everything"
EVERYTHING = "*"


def note_changed(store: Store, generation: int, paths: Iterable[str] | None) -> None:
    """Note that ``generation`` rewrote the rows of ``paths`` (None: of every file)."""
    log = _log(store)
    listed = sorted(set(paths)) if paths is not None else None
    log[str(generation)] = EVERYTHING if listed is None or len(listed) > MAX_PATHS else listed
    kept = sorted(log, key=int)[-KEPT_GENERATIONS:]
    store.set_meta(META_KEY, json.dumps({g: log[g] for g in kept}))


def changed_since(store: Store, generation: int) -> frozenset[str] | None:
    """The paths whose rows the generations after ``generation`` rewrote, up to the current one;
    None when a generation in between rewrote everything or was not noted."""
    now = store.generation()
    if generation > now:
        return None
    log = _log(store)
    found: set[str] = set()
    for g in range(generation + 1, now + 1):
        paths = log.get(str(g))
        if paths is None or paths == EVERYTHING:
            return None
        found.update(paths)
    return frozenset(found)


def _log(store: Store) -> dict[str, list[str] | str]:
    try:
        log = json.loads(store.meta(META_KEY) or "{}")
    except ValueError:
        return {}
    return log if isinstance(log, dict) else {}
