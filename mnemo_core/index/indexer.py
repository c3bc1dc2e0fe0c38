"""Bring a repository's index up to date.

1. List the indexable files; ``stat`` each one and keep those whose size or mtime moved.
2. Read and hash those; parse the ones whose content hash changed (in a process pool when there
   are many: extraction is pure).
3. In one transaction: drop deleted files, write the re-parsed ones (symbol ids stay stable),
   then re-resolve the files whose edges may have changed: the re-parsed files, files that
   referenced a symbol that was removed, and files that refer to a name whose definitions
   appeared or disappeared.

A no-op run costs one listing and a ``stat`` per file. A failure rolls the transaction back, so the
index is never left half-written.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from mnemo_core.errors import MnemoError
from mnemo_core.index.extract import extract
from mnemo_core.index.files import list_files, read_source
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.lock import index_lock
from mnemo_core.index.resolve import FileInfo, Resolver, World
from mnemo_core.index.store import FileFacts, FileRow, Store
from mnemo_core.model import FileExtract, IndexStats
from mnemo_core.vcs.git import head_commit, repo_toplevel

log = logging.getLogger(__name__)

PARALLEL_MIN_FILES = 48  # below this, starting worker processes costs more than it saves
CHUNK_SIZE = 8  # files per task sent to a worker
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class _Parsed:
    path: str
    facts: FileFacts | None
    extract: FileExtract | None
    skipped: str | None


def resolve_root(path: str | Path) -> Path:
    """The repository root for a user-given path: its git top level, or the directory itself."""
    root = Path(path).expanduser()
    if not root.exists():
        raise MnemoError(f"{path}: no such directory")
    if not root.is_dir():
        raise MnemoError(f"{path}: not a directory (give the repository's directory)")
    root = root.resolve()
    return repo_toplevel(root) or root


def index_repo(
    root: Path, full: bool = False, progress: Progress | None = None, only: Sequence[str] | None = None
) -> IndexStats:
    """Update (or with ``full``, rebuild) the index of ``root``; ``only`` limits the check to some
    repo-relative paths (an editor saving a file)."""
    started = time.perf_counter()
    store = Store.open(root)
    try:
        with index_lock(store.path.parent):
            return _update(root, store, full, progress, only, started)
    finally:
        store.close()


def _update(
    root: Path, store: Store, full: bool, progress: Progress | None, only: Sequence[str] | None, started: float
) -> IndexStats:
    if store.rebuilt_because:
        log.warning("the index was %s; rebuilding it", store.rebuilt_because)
    known = store.files()
    walked = False
    if only is None:
        listing = list_files(root)
        paths, walked = list(listing.paths), listing.walked
        listed = set(paths)
        removed = [row for path, row in known.items() if path not in listed]
    else:
        paths = [p for p in only if language_for_path(p) is not None]
        removed = [known[p] for p in paths if p in known and not (root / p).is_file()]
        paths = [p for p in paths if (root / p).is_file()]
    stale = _stale(root, paths, known, full)
    parsed = _parse_all(root, stale, known, progress)
    skipped = Counter(p.skipped for p in parsed if p.skipped)
    removed += [known[p.path] for p in parsed if p.skipped and p.path in known]
    with store.transaction():
        affected = _write(store, parsed, removed, known)
        edges = _resolve(store, affected) if affected or removed else None
        if edges is not None or store.meta("commit") is None:
            store.set_meta("generation", str(store.generation() + 1))
        store.set_meta("commit", head_commit(root) or "")
        store.set_meta("indexed_at", str(int(time.time())))
        counts = store.counts()
    return IndexStats(
        files=sum(counts["files"].values()),
        parsed=sum(1 for p in parsed if p.extract is not None),
        removed=len(removed),
        skipped=dict(skipped),
        symbols=sum(counts["symbols"].values()),
        edges=sum(counts["edges"].values()),
        elapsed_ms=round((time.perf_counter() - started) * 1000),
        walked=walked,
    )


def _stale(root: Path, paths: list[str], known: dict[str, FileRow], full: bool) -> list[str]:
    """Files whose size or mtime differs from what the index remembers (all of them with ``full``)."""
    if full:
        return paths
    stale = []
    for path in paths:
        row = known.get(path)
        if row is None:
            stale.append(path)
            continue
        try:
            st = os.stat(root / path)
        except OSError:
            stale.append(path)
            continue
        if st.st_size != row.size or st.st_mtime_ns != row.mtime_ns:
            stale.append(path)
    return stale


def _parse_one(root: Path, path: str, old_hash: str | None) -> _Parsed:
    content = read_source(root, path)
    if content.data is None:
        return _Parsed(path, None, None, content.skipped)
    facts = FileFacts(content.hash, content.size, content.mtime_ns)
    if content.hash == old_hash:
        return _Parsed(path, facts, None, None)
    spec = language_for_path(path)
    if spec is None:
        return _Parsed(path, None, None, "unsupported")
    return _Parsed(path, facts, extract(path, content.data, spec), None)


def _parse_chunk(root: Path, jobs: list[tuple[str, str | None]]) -> list[_Parsed]:
    return [_parse_one(root, path, old_hash) for path, old_hash in jobs]


def _parse_all(root: Path, stale: list[str], known: dict[str, FileRow], progress: Progress | None) -> list[_Parsed]:
    jobs = [(path, known[path].hash if path in known else None) for path in stale]
    results: list[_Parsed] = []
    if len(jobs) < PARALLEL_MIN_FILES or (os.cpu_count() or 1) < 2:
        for i, job in enumerate(jobs):
            results.append(_parse_one(root, *job))
            if progress:
                progress("parse", i + 1, len(jobs))
        return results
    chunks = [jobs[i : i + CHUNK_SIZE] for i in range(0, len(jobs), CHUNK_SIZE)]
    workers = min(os.cpu_count() or 2, 8)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        for chunk in pool.map(_parse_chunk, [root] * len(chunks), chunks):
            results.extend(chunk)
            if progress:
                progress("parse", len(results), len(jobs))
    return results


def _write(store: Store, parsed: list[_Parsed], removed: list[FileRow], known: dict[str, FileRow]) -> set[int]:
    """Store parse results; return the ids of files whose references must be resolved again."""
    affected = store.files_with_edges_into([row.id for row in removed])
    store.remove_files([row.id for row in removed])
    changed_names: set[str] = set()
    for p in parsed:
        if p.facts is None:
            continue
        old = known.get(p.path)
        if p.extract is None:
            if old is not None:
                store.touch_file(old.id, p.facts)
            continue
        file_id, names, dependents = store.write_file(p.extract, p.facts, old)
        affected.add(file_id)
        affected.update(dependents)
        changed_names.update(names)
    if changed_names:
        affected.update(store.files_referencing(changed_names))
    return affected - {row.id for row in removed}


def _resolve(store: Store, affected: set[int]) -> int:
    files = [FileInfo(fid, path, language, tuple(imports), exports)
             for fid, path, language, imports, exports in store.resolver_files()]
    world = World(files, store.resolver_symbols(), store.inherits_edges(exclude_files=affected))
    edges = Resolver(world).resolve(store.refs_of(affected))
    store.replace_edges(affected, edges)
    return len(edges)
