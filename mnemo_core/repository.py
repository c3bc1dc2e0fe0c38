"""A repository and its index: the handle every pipeline and front end works through."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mnemo_core.boundary import storage_failure
from mnemo_core.errors import MnemoError
from mnemo_core.heap import release_freed
from mnemo_core.index.indexer import Progress, index_repo, resolve_root
from mnemo_core.index.recovery import IndexReadOnly, is_damage, quarantine
from mnemo_core.index.store import Store, db_size, index_path
from mnemo_core.model import IndexStats

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Repository:
    """An opened repository. Keeps one read connection to its index."""

    root: Path
    _store: Store | None = None

    @classmethod
    def open(cls, path: str | Path, plain: bool = False) -> Repository:
        """Open the repository containing ``path`` (its git top level; a plain directory only when
        ``plain`` or indexed that way before: see ``resolve_root``)."""
        return cls(resolve_root(path, plain))

    def update_index(
        self, full: bool = False, progress: Progress | None = None, only: list[str] | None = None
    ) -> IndexStats:
        """Bring the index up to date (incremental unless ``full``); when that made a generation
        the graph file cannot be derived for (a cold build), build that file too, so the first
        query only maps it."""
        stats = index_repo(self.root, full=full, progress=progress, only=only)
        if stats.parsed or stats.removed:
            store = Store.open(self.root)  # its own: an index moved aside and rebuilt is a new file
            try:
                if not store.graph_at_hand():
                    from mnemo_core.retrieve.graphcache import prepare  # numpy, the ranking's weights

                    release_freed()  # the resolution's world, before the graph's arrays grow
                    prepare(store)
            finally:
                store.close()
        return stats

    def refresh(self, progress: Progress | None = None) -> None:
        """Bring the index up to date before a query (telling ``progress`` how the parse goes); one
        that cannot be written answers as it is."""
        try:
            self.update_index(progress=progress)
        except IndexReadOnly as exc:
            log.warning("%s; answering from it as it is, which may be stale", exc)
        except (OSError, sqlite3.OperationalError) as exc:
            storage = storage_failure(exc)
            if storage is None or not self.store.totals()[0]:
                raise
            log.warning("%s; answering from the index as it is, which may be stale", storage)

    @property
    def store(self) -> Store:
        """The open index (created empty if there is none yet)."""
        if self._store is None:
            self._store = Store.open(self.root)
        return self._store

    def index_bytes(self) -> int:
        """Bytes the index takes on disk."""
        return db_size(self.store.path)

    def close(self) -> None:
        """Close the index connection."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def relpath(self, path: str | Path) -> str:
        """A user-given path (absolute, relative to the working directory, or repo-relative) as a
        repo-relative POSIX path, symlinks resolved; ``MnemoError`` for one outside the repository."""
        given = Path(path)
        tries = [given] if given.is_absolute() else [Path.cwd() / given, self.root / given]
        inside = [t.resolve() for t in tries if t.resolve().is_relative_to(self.root)]
        if not inside:
            raise MnemoError(f"{path}: not inside the repository {self.root}")
        return next((p for p in inside if p.exists()), inside[0]).relative_to(self.root).as_posix()


def recovering(path: str | Path | None, body: Callable[[], T]) -> T:
    """Run a command; when the index turns out damaged mid-query (the update before it reads only
    part of the file), move it aside and run the command once more, on a rebuilt index."""
    try:
        return body()
    except sqlite3.DatabaseError as exc:
        if path is None or not is_damage(exc):
            raise
        quarantine(index_path(resolve_root(path)), f"damaged ({exc})")
    return body()
