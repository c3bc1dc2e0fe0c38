"""The index's totals (files, symbols, edges) kept in its meta table, and how an update moves them.

Files, symbols and edges are counted from their indexes (a few ms). The ``contains`` edges (symbols
with a parent) have no index of their own: counting them reads every symbol's row (0.1-0.3 s on
300k-760k symbols), so an update counts only the files it may rewrite or remove, before and after,
and moves the stored count by the difference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mnemo_core.index.store import FileRow, Store
from mnemo_core.index.world import Reads

# (files, symbols, edges, contains edges) as last counted: a no-op update does not count them again,
# an update moves the contains edges (no index counts them) by what its files' own changed
TOTALS_META = "totals"
COUNT_ALL_SHARE = 0.2  # rewriting more than this share of files: count every symbol's parent, one scan


def totals(store: Store, changed: bool, counting: Counting) -> tuple[int, int, int]:
    """The index's (files, symbols, edges): counted after an update that wrote any of them, else as
    that count stored them. Files, symbols and edges are counted from their indexes (a few ms); the
    ``contains`` edges (symbols with a parent: no index holds them, counting reads every symbol's
    row, 0.1-0.3 s on 300k-760k symbols) are the stored count moved by the written files' own."""
    stored = store.meta(TOTALS_META)
    if not changed and stored is not None:
        files, symbols, edges = json.loads(stored)[:3]
        return int(files), int(symbols), int(edges)
    contains = counting.contains(store, stored)
    if contains is None:
        contains = store.contained_in(None)
    files, symbols, edges = store.totals(contains)
    store.set_meta(TOTALS_META, json.dumps([files, symbols, edges, contains]))
    return files, symbols, edges


@dataclass(frozen=True, slots=True)
class Counting:
    """The ``contains`` edges of the files an update may rewrite or remove, before it (None: count
    them all after it: a cold build, a re-analysis, a count stored by an older mnemo)."""

    before: int | None
    files: set[int]

    @classmethod
    def start(
        cls,
        store: Store,
        change: Reads | None,
        stale: list[str],
        known: dict[str, FileRow],
        removed: list[FileRow],
    ) -> Counting:
        stored = store.meta(TOTALS_META)
        files = {known[p].id for p in stale if p in known} | {row.id for row in removed}
        if (
            change is None
            or stored is None
            or len(json.loads(stored)) < 4
            or len(files) > COUNT_ALL_SHARE * len(known)
        ):
            return cls(None, set())
        return cls(store.contained_in(files), files)

    def wrote(self, file_id: int | None) -> None:
        """A file written (a new one's id is new: it had none before)."""
        if file_id is not None and self.before is not None:
            self.files.add(file_id)

    def contains(self, store: Store, stored: str | None) -> int | None:
        """The ``contains`` edges now, from the stored count (None: count them all)."""
        if self.before is None or stored is None:
            return None
        return int(json.loads(stored)[3]) + store.contained_in(self.files) - self.before
