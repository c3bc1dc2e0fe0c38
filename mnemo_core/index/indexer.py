"""Bring a repository's index up to date.

1. List the indexable files; ``stat`` each one and keep those whose size or mtime moved.
2. Read and hash those; parse the ones whose content hash changed (in a process pool when there
   are many, for an update more than a hundred, with this process parsing too: the workers' start
   costs more than a short parse saves; extraction is pure).
3. In one transaction: drop deleted files, write the re-parsed ones (symbol ids stay stable),
   then re-resolve the files whose edges may have changed: the re-parsed files, files that
   referenced a symbol that was removed, and files whose last resolution read something the
   change changed (``depends``: each file's reads of the world are kept as keys, and a
   change is described by the same keys), then those that followed base classes which now come
   out otherwise. So a move through history costs what differs, not what it touches. A few files
   resolved again get only the edges and keys that differ written (most come out as before).
   An update keeps what it parsed by path and content hash (``store.shelf``): a file whose
   content comes back (a checkout back and forth) is taken from there, not parsed again.

A no-op run costs one listing and a ``stat`` per file. A failure rolls the transaction back, so the
index is never left half-written.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sqlite3
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.errors import MnemoError
from mnemo_core.index.commits import (
    News,
    last_head,
    read_new_commits,
    remember,
    skipped_commits,
    stored_walk,
)
from mnemo_core.index.depends import NO_VIEW, STAR, family, note_file, note_paths
from mnemo_core.index.discovery import DEFAULT_DISCOVERY, PytestDiscovery, read_discovery
from mnemo_core.index.files import list_files, read_source
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.lock import index_lock
from mnemo_core.index.recovery import IndexDamaged, IndexReadOnly, is_damage, quarantine, writable
from mnemo_core.index.store import (
    ANALYSIS_META,
    ANALYSIS_VERSION,
    EdgeRow,
    EncodedRefs,
    FileFacts,
    FileRow,
    Store,
    encode_refs,
    index_path,
    prepare_index_dir,
)
from mnemo_core.index.store.shelf import Shelved, setting
from mnemo_core.index.store.shortnames import extend as extend_short_names
from mnemo_core.index.totals import Counting, totals
from mnemo_core.index.workers import clean_start, parallel_map, worker_init
from mnemo_core.index.world import SEP, Reads, World, counted_as
from mnemo_core.model import Edge, FileExtract, IndexStats, RawRef
from mnemo_core.vcs.commitgraph import refresh as refresh_graph
from mnemo_core.vcs.git import GitError, head_commit, repo_toplevel

if TYPE_CHECKING:
    from mnemo_core.index.resolve import Resolver

log = logging.getLogger(__name__)

PARALLEL_MIN_FILES = 48  # below this, starting worker processes costs more than it saves
# an update (a checkout, a pull) parses fewer files than this in one process: two spawned workers
# cost ~0.7 s CPU more to start (an interpreter each, mnemo's and tree-sitter's imports, the
# queries compiled again); from about 120 files (~2.4 s of parse at saleor's ~20 ms a file) a free
# second core saves more wall time than that, which a user waiting on a checkout sees
UPDATE_PARALLEL_MIN_FILES = 120
CHUNK_SIZE = 8  # files per task sent to a worker
MAX_WORKERS = 8
PARALLEL_RESOLVE_MIN_FILES = 300  # below this, forking costs more than it saves
RESOLVE_RUNS_PER_WORKER = 8  # small runs: edges are stored while later ones resolve, no worker idles long
RUN_BYTES = 2_000_000  # at most about this much stored references a run: what a run holds stays bounded
RUNS_IN_FLIGHT = 2  # runs sent to each worker ahead of the one whose edges are being stored
# more symbols than this: resolve in one process. A forked worker copies the pages of the world it
# touches (every object's reference count is written), so each one ends up holding about a copy of
# it; a world takes about 1.2 kB a symbol (10 stdlib copies: 764k symbols), and three copies of
# 250k symbols' stay under 1 GB
FORK_MAX_SYMBOLS = 250_000
DISCOVERY_META = "pytest_discovery"  # the pytest settings the stored test classification follows
SKIPPED_META = (
    "skipped_files"  # files left out (generated, minified, ...) as last seen: path -> [size, mtime, why]
)
PARTIAL_META = "partial_files"  # the indexed files only part of which was indexed, and why (JSON)
PRELOAD_SHARE = 0.2  # re-resolving more than this share of files: load the whole index up front
FIRST_BUILD_BATCH_S = 2.0  # a first build commits what it stored this often: an editor answers from it
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class _Parsed:
    path: str
    facts: FileFacts | None
    extract: FileExtract | None  # its refs travel encoded, in ``refs``
    skipped: str | None
    refs: EncodedRefs | None = None
    inherits: tuple[RawRef, ...] = ()  # the base-class references among them, resolved first
    shelved: bool = False  # its content's extraction is kept in the index: taken from there


def resolve_root(path: str | Path, plain: bool = False) -> Path:
    """The repository root for a user-given path: its git top level. A directory outside any git
    work tree is a root only when asked for (``plain``: ``mnemo index --plain``) or indexed that way
    before; otherwise one line refuses it, so a home directory is never walked by accident."""
    root = Path(path).expanduser()
    if not root.exists():
        raise MnemoError(f"{path}: no such directory")
    if not root.is_dir():
        raise MnemoError(f"{path}: not a directory (give the repository's directory)")
    root = root.resolve()
    top = repo_toplevel(root)
    if top is not None:
        return top
    if plain or index_path(root).is_file():
        return root
    raise MnemoError(
        f"{path} is not inside a git work tree; run mnemo in a repository, or index this directory "
        f"deliberately with `mnemo index --plain {path}`"
    )


def index_repo(
    root: Path, full: bool = False, progress: Progress | None = None, only: Sequence[str] | None = None
) -> IndexStats:
    """Update (or with ``full``, rebuild) the index of ``root``; ``only`` limits the check to some
    repo-relative paths (an editor saving a file). A damaged index is moved aside and rebuilt; one
    mnemo cannot write raises ``IndexReadOnly`` (it can still be read)."""
    started = time.perf_counter()
    path = index_path(root)
    if path.exists() and not writable(path):
        raise IndexReadOnly(f"the index {path} cannot be written (read-only)")
    try:
        return _index_locked(root, full, progress, only, started)
    except (IndexDamaged, sqlite3.DatabaseError) as exc:
        if not isinstance(exc, IndexDamaged) and not is_damage(exc):
            raise
        quarantine(path, str(exc) if isinstance(exc, IndexDamaged) else f"damaged ({exc})")
    return _index_locked(root, True, progress, None, started)


def _index_locked(
    root: Path, full: bool, progress: Progress | None, only: Sequence[str] | None, started: float
) -> IndexStats:
    with index_lock(prepare_index_dir(root)):
        store = Store.open(root)
        try:
            if full:
                store.quick_check()  # a rebuild reads everything anyway: damage shows here, not later
            logged = None if full else store.begin_graph_log()  # what the graph file must follow
            stats = _update(root, store, full, progress, only, started)
            store.end_graph_log(logged)
            return stats
        finally:
            store.close()


def _update(
    root: Path,
    store: Store,
    full: bool,
    progress: Progress | None,
    only: Sequence[str] | None,
    started: float,
) -> IndexStats:
    known = store.files()
    if known and store.meta("commit") is None:  # a first build stopped after storing some files
        full = True
    discovery = read_discovery(root)
    if known and (store.meta(DISCOVERY_META) or DEFAULT_DISCOVERY.fingerprint) != discovery.fingerprint:
        log.info("the pytest settings changed: every file is classified again")
        full, only = True, None
    reanalysed = bool(known) and not full and store.meta(ANALYSIS_META) != str(ANALYSIS_VERSION)
    if reanalysed:
        log.info("the index was resolved by another analysis version: every file is resolved again")
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
    left_out = {} if full else _left_out(store)
    stale = _stale(root, paths, known, full, left_out)
    still_out = {p: left_out[p] for p in set(paths).difference(stale, known) if p in left_out}
    history = _reading_commits(root, store)  # started once the parse's workers are (forked first)
    skipped: Counter[str] = Counter(why for _, _, why in still_out.values())
    newly_out: dict[str, list[Any]] = {}
    partial: dict[str, str] = {}
    redone: set[str] = set()  # files read again: what the index held about them is replaced
    seen = parsed = 0
    batch = time.perf_counter() if not known else None  # a first build's last commit
    # an update notes what differs, to resolve again only the files whose resolution read it
    change = Reads() if known and not full and not reanalysed else None
    properties = store.property_names() if change is not None else set()
    shelf_key = setting(discovery.fingerprint) if known and not full else None  # updates only
    base = store.generation()
    gained: set[str] = set()  # short names the written files did not have before (and some more)
    written: dict[str, tuple[int, str]] = {}  # path -> (id, language) of each file written
    counting = Counting.start(store, change, stale, known, removed)
    shelved = store.shelved(stale, shelf_key) if shelf_key is not None else {}
    to_shelve: list[tuple[str, Shelved]] = []
    unshelved = 0
    with store.transaction(durable=bool(known)):  # a first build has nothing to lose
        affected = store.files_with_edges_into([row.id for row in removed])
        _forget(store, removed, change)
        inherits: dict[int, tuple[RawRef, ...]] = {}
        with store.indexes_deferred("symbols"):
            # results are dropped once stored
            parsing = _parse_all(
                root, stale, known, full, progress, discovery, shelved, bool(known), history.start
            )
            for p in parsing:
                if p.shelved and shelf_key is not None:
                    p = _unshelved(store, p, shelf_key, discovery)
                    unshelved += p.extract is not None
                elif shelf_key is not None and p.extract is not None and p.facts and p.refs is not None:
                    to_shelve.append((p.facts.hash, Shelved(p.extract, p.refs, p.inherits)))
                seen += 1
                parsed += p.extract is not None
                if p.skipped:
                    skipped[p.skipped] += 1
                    seen_as = _seen_as(root, p.path, p.skipped)
                    if seen_as is not None:
                        newly_out[p.path] = seen_as
                if p.skipped or p.extract is not None:
                    redone.add(p.path)
                if p.extract is not None and p.extract.partial:
                    partial[p.path] = p.extract.partial
                if p.skipped and p.path in known:
                    removed.append(known[p.path])
                    affected |= store.files_with_edges_into([known[p.path].id])
                    _forget(store, [known[p.path]], change)
                old = known.get(p.path)
                before = store.resolver_view(old.id) if change is not None and old and p.extract else NO_VIEW
                file_id, names, dependents = _write_one(store, p, old)
                gained |= names
                counting.wrote(file_id)
                if file_id is not None and p.extract is not None:
                    written[p.path] = (file_id, p.extract.language)
                if file_id is not None and p.refs is not None:
                    inherits[file_id] = p.inherits
                    affected |= dependents | {file_id}
                    if change is not None and p.extract is not None:
                        after = store.resolver_view(file_id)
                        note_file(change, file_id, p.extract.language, p.path, before, after)
                if batch is not None and time.perf_counter() - batch >= FIRST_BUILD_BATCH_S:
                    _checkpoint(store)
                    batch = time.perf_counter()
        if batch is not None:  # every file stored, none resolved yet: resolving takes a while more
            _checkpoint(store)
        if shelf_key is not None:
            store.shelve(to_shelve, shelf_key)
        remember(store, history.result())
        _remember_partial(store, partial, redone | {row.path for row in removed})
        considered = set(paths) if only is not None else set(paths) | set(left_out)  # a whole walk: all
        _remember_left_out(store, left_out, considered, {**still_out, **newly_out})
        now = _files_now(known, removed, written) if change is not None and (seen or removed) else None
        if change is not None and now is not None:  # else nothing differs: a query loads no resolver
            affected |= _depending(store, change, known, properties, now)
        if reanalysed:  # from the stored references: no file is parsed for it
            affected |= {row.id for row in store.files().values()}
        affected -= {row.id for row in removed}
        log.info("parsed and stored %d files in %.2fs", seen, time.perf_counter() - started)
        if unshelved:
            log.info("%d files taken from the kept extractions, not parsed", unshelved)
        if affected or removed:
            _resolve(store, affected, inherits, len(known) + seen, change, now)
            log.info("resolved %d files in %.2fs", len(affected), time.perf_counter() - started)
        if affected or removed or store.meta("commit") is None:
            store.set_meta("generation", str(store.generation() + 1))
        store.set_meta("commit", head_commit(root) or "")
        store.set_meta(DISCOVERY_META, discovery.fingerprint)
        store.set_meta(ANALYSIS_META, str(ANALYSIS_VERSION))
        store.set_meta("indexed_at", str(int(time.time())))
        files, symbols, edges = totals(store, bool(seen or removed or affected), counting)
    if change is not None:  # a cold build's or a re-analysis's names are read by the first query
        extend_short_names(store.path.parent, store.index_id(), base, store.generation(), gained)
    return IndexStats(
        files=files,
        parsed=parsed,
        removed=len(removed),
        skipped=dict(skipped),
        partial=partial,
        symbols=symbols,
        edges=edges,
        elapsed_ms=round((time.perf_counter() - started) * 1000),
        walked=walked,
    )


def _forget(store: Store, rows: list[FileRow], change: Reads | None) -> None:
    """Remove files, noting first what their going changes."""
    if change is not None:
        bases = store.inherits_by_file(row.id for row in rows)
        for row in rows:
            note_file(change, row.id, row.language, row.path, store.resolver_view(row.id), NO_VIEW)
            change.subclasses = change.subclasses or row.id in bases
    store.remove_files([row.id for row in rows])


def _files_now(
    known: dict[str, FileRow], removed: list[FileRow], written: dict[str, tuple[int, str]]
) -> dict[str, tuple[int, str]]:
    """Every indexed file's (id, language) by path after an update, in id order, from the files
    known before it and what it removed and wrote (reading them again reads every file's row)."""
    now = {path: (row.id, row.language) for path, row in known.items()}
    for row in removed:
        now.pop(row.path, None)
    now.update(written)
    return dict(sorted(now.items(), key=lambda item: item[1][0]))


def _depending(
    store: Store,
    change: Reads,
    known: dict[str, FileRow],
    properties: set[str],
    now: dict[str, tuple[int, str]],
) -> set[int]:
    """The files whose last resolution read something the change changed (base classes aside:
    ``_resolve`` compares those once the changed files' are resolved again); ``now``: every file's
    id and language by path."""
    change.properties = properties ^ store.property_names()
    before = {path: row.language for path, row in known.items()}
    if before.keys() != now.keys():
        note_paths(change, before, now, store.stored_imports(), store.module_queries())
    from mnemo_core.index.resolve.scope import AMBIGUOUS_LIMIT  # the resolver's stack, loaded to resolve

    languages = {fid: language for fid, language in now.values()}
    for key in change.names:  # a list read only when short: changed when it is short on either side
        after = sum(
            counted_as(family(languages[r.file_id]), r.name, r.kind) == key
            for r in store.symbols_with_short_name(key[1])
            if r.file_id in languages
        )
        if min(after, after - change.deltas.get(key, 0)) <= AMBIGUOUS_LIMIT:
            change.counted.add(key)
    found = store.files_depending(change.keys())
    found |= change.bindings & set(languages)  # a file whose own imports bind elsewhere now
    for path in {path for path, name in change.fixtures if name == STAR}:  # any fixture looked for there
        found |= store.files_depending_prefix(SEP.join(("fx", path, "")))
    log.info("%d files read what changed", len(found))
    return found


def _checkpoint(store: Store) -> None:
    """Let readers see what a first build stored so far (files and symbols, edges not resolved):
    a partial answer has content; readers' caches move on with the generation."""
    store.set_meta("generation", str(store.generation() + 1))
    store.checkpoint()


def _remember_partial(store: Store, found: dict[str, str], redone: set[str]) -> None:
    """Keep the list of files indexed in part: those found now, and those of earlier runs that
    were neither read again nor removed."""
    earlier = json.loads(store.meta(PARTIAL_META) or "{}")
    kept = {path: why for path, why in earlier.items() if path not in redone}
    if kept or found or earlier:
        store.set_meta(PARTIAL_META, json.dumps(dict(sorted({**kept, **found}.items()))))


def partial_files(store: Store) -> dict[str, str]:
    """The files of the index only part of which was indexed, and why."""
    found: dict[str, str] = json.loads(store.meta(PARTIAL_META) or "{}")
    return found


class _Reading(threading.Thread):
    """The commits HEAD gained, read by git in a thread while the files are parsed."""

    def __init__(self, read: Callable[[], News | None]) -> None:
        super().__init__(name="mnemo-history", daemon=True)
        self._read = read
        self._news: News | None = None
        self._error: GitError | None = None

    def run(self) -> None:
        try:
            self._news = self._read()
        except GitError as exc:  # history is a signal, not a requirement: index without it
            self._error = exc

    def result(self) -> News | None:
        self.join()
        if self._error is not None:
            log.warning("past commits not read: %s", self._error)
        return self._news


def _reading_commits(root: Path, store: Store) -> _Reading:
    """The thread reading what HEAD gained (not started). The remembered shas it needs only when
    HEAD moved (a no-op update, every query's, reads none of them: 5-13 ms on saleor's 4,787
    commits)."""
    head, old = head_commit(root), last_head(store)
    moved = old is not None and head != old
    kept, skipped = (store.commit_shas(), skipped_commits(store)) if moved else (frozenset(), frozenset())
    walk = stored_walk(store) if moved else None
    return _Reading(
        partial(_read_and_graph, root, head, partial(read_new_commits, root, head, old, kept, skipped, walk))
    )


def _read_and_graph(root: Path, head: str | None, read: Callable[[], News | None]) -> News | None:
    """The commits HEAD gained, then mnemo's commit-graph brought to HEAD (``vcs.commitgraph``)."""
    news = read()
    refresh_graph(root, head)
    return news


def _stale(
    root: Path, paths: list[str], known: dict[str, FileRow], full: bool, left_out: dict[str, list[Any]]
) -> list[str]:
    """Files whose size or mtime differs from what the index remembers (all of them with ``full``);
    a file left out last time (generated, minified) is stale only when it changed since."""
    if full:
        return paths
    stale = []
    for path in paths:
        row = known.get(path)
        if row is None and path not in left_out:
            stale.append(path)
            continue
        try:
            st = os.stat(f"{root}/{path}")  # cheaper than a Path per file
        except OSError:
            stale.append(path)
            continue
        size, mtime_ns = (row.size, row.mtime_ns) if row is not None else left_out[path][:2]
        if st.st_size != size or st.st_mtime_ns != mtime_ns:
            stale.append(path)
    return stale


def _left_out(store: Store) -> dict[str, list[Any]]:
    """The files the last runs left out, with the size and mtime they had then and why."""
    found: dict[str, list[Any]] = json.loads(store.meta(SKIPPED_META) or "{}")
    return found


def _seen_as(root: Path, path: str, why: str) -> list[Any] | None:
    """A left-out file's size and mtime now (None when it cannot be seen: nothing to remember)."""
    try:
        st = os.stat(f"{root}/{path}")
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, why]


def _remember_left_out(
    store: Store, earlier: dict[str, list[Any]], considered: set[str], now: dict[str, list[Any]]
) -> None:
    """Keep the left-out files: those of this run, and earlier ones this run did not look at.
    So a no-op update does not read every generated file again (terraform has 65)."""
    kept = {p: v for p, v in earlier.items() if p not in considered}
    merged = dict(sorted({**kept, **now}.items()))
    if merged != earlier:
        store.set_meta(SKIPPED_META, json.dumps(merged))


def _parse_one(
    root: Path, path: str, old_hash: str | None, shelved: frozenset[str], discovery: PytestDiscovery
) -> _Parsed:
    content = read_source(root, path)
    if content.data is None:
        return _Parsed(path, None, None, content.skipped)
    facts = FileFacts(content.hash, content.size, content.mtime_ns)
    if content.hash == old_hash:
        return _Parsed(path, facts, None, None)
    if content.hash in shelved:
        return _Parsed(path, facts, None, None, shelved=True)
    spec = language_for_path(path)
    if spec is None:
        return _Parsed(path, None, None, "unsupported")
    # imported here: the parser's stack loads when a file changed, not on a warm query
    from mnemo_core.index.extract import extract_once

    extracted = extract_once(path, content.data, spec, discovery)
    inherits = tuple(r for r in extracted.refs if r.kind == "inherit")
    return _Parsed(path, facts, replace(extracted, refs=()), None, encode_refs(extracted.refs), inherits)


def _unshelved(store: Store, p: _Parsed, key: str, discovery: PytestDiscovery) -> _Parsed:
    """A parse result whose extraction is taken from the kept ones (as if parsed: the same rows)."""
    kept = store.unshelve(p.path, p.facts.hash, key) if p.facts is not None else None
    if kept is None:  # unreadable: parsed after all
        return _parse_one(store.root, p.path, None, frozenset(), discovery)
    return replace(p, extract=kept.extract, refs=kept.refs, inherits=kept.inherits, shelved=False)


_Job = tuple[str, str | None, frozenset[str]]  # path, its stored hash, the hashes kept for it


def _parse_chunk(root: Path, jobs: list[_Job], discovery: PytestDiscovery) -> list[_Parsed]:
    return [_parse_one(root, path, old_hash, shelved, discovery) for path, old_hash, shelved in jobs]


def _parse_all(
    root: Path,
    stale: list[str],
    known: dict[str, FileRow],
    full: bool,
    progress: Progress | None,
    discovery: PytestDiscovery,
    shelved: dict[str, frozenset[str]],
    update: bool,
    then: Callable[[], None],
) -> Iterator[_Parsed]:
    """Parse results in order (in a process pool when there are many files: more for an ``update``
    of an index, which parses here too, beside one worker fewer, forked where that is safe: a
    spawned worker costs an interpreter's start and the parser's imports, and sends its results
    back pickled). ``then`` runs once the workers are started (it may start a thread)."""
    jobs: list[_Job] = [
        (path, known[path].hash if path in known and not full else None, shelved.get(path, frozenset()))
        for path in stale
    ]
    if len(jobs) < (UPDATE_PARALLEL_MIN_FILES if update else PARALLEL_MIN_FILES) or (os.cpu_count() or 1) < 2:
        then()
        for i, job in enumerate(jobs):
            yield _parse_one(root, *job, discovery)
            if progress:
                progress("parse", i + 1, len(jobs))
        return
    chunks = [jobs[i : i + CHUNK_SIZE] for i in range(0, len(jobs), CHUNK_SIZE)]
    workers = min(os.cpu_count() or 2, MAX_WORKERS) - update  # an update parses here too
    done = 0
    tasks = [(root, c, discovery) for c in chunks]
    fork = update and _can_fork()
    if fork:  # the workers inherit the parser's stack, its queries compiled
        _ready_to_parse(stale)
    for chunk in parallel_map(_parse_chunk, tasks, workers, root, share=update, fork=fork, then=then):
        yield from chunk
        done += len(chunk)
        if progress:
            progress("parse", done, len(jobs))


def _ready_to_parse(paths: Iterable[str]) -> None:
    """Load the parser's stack and compile the queries of the languages of ``paths``."""
    from mnemo_core.index.extract import extract_once  # noqa: F401  (imported for the workers)

    for spec in {spec.name: spec for path in paths if (spec := language_for_path(path))}.values():
        spec.query, spec.parser  # noqa: B018  (cached on first use)


def _write_one(store: Store, p: _Parsed, old: FileRow | None) -> tuple[int | None, set[str], set[int]]:
    """Store one parse result: new content is written, same content only gets its new mtime."""
    if p.facts is None:
        return None, set(), set()
    if p.extract is None:
        if old is not None:
            store.touch_file(old.id, p.facts)
        return None, set(), set()
    return store.write_file(p.extract, p.facts, old, p.refs)


def _resolve(
    store: Store,
    affected: set[int],
    inherits: dict[int, tuple[RawRef, ...]],
    total_files: int,
    change: Reads | None,
    now: dict[str, tuple[int, str]] | None,
) -> None:
    """Resolve the references of ``affected`` files (``inherits`` holds the base-class references
    of those just parsed). With a ``change``, the files whose base classes come out otherwise
    make those that followed them resolve again too. The files' references are read from the
    index a run at a time, and each run's edges and reads are stored as it comes: what is held
    at once is the world and a few runs, not every file's references and keys. ``now``: every
    file's id and language by path, when the caller has them (else the world reads them)."""
    started = time.perf_counter()
    bases = None
    if change is not None:
        bases = _bases(store, affected, inherits, False, now)
        more = _rebased(store, affected, bases[1], change)
        if more or len(affected | more) > PRELOAD_SHARE * total_files:
            affected |= more
            bases = None
    preload = len(affected) > PRELOAD_SHARE * total_files
    with _collector_paused() if preload else nullcontext():
        resolver, base_edges = bases or _bases(store, affected, inherits, preload, now)
        log.info("loaded the index and resolved base classes in %.2fs", time.perf_counter() - started)
        workers = min(os.cpu_count() or 1, MAX_WORKERS)
        keys = _Keys(store, affected, resolver, in_place=not preload)
        sizes = store.ref_sizes(affected)
        calls: Iterable[EdgeRow]
        small = len(resolver.world.symbols) <= FORK_MAX_SYMBOLS
        if preload and small and workers > 1 and len(sizes) >= PARALLEL_RESOLVE_MIN_FILES and _can_fork():
            runs = _runs(sizes, max(workers * RESOLVE_RUNS_PER_WORKER, sum(sizes.values()) // RUN_BYTES))
            calls = _resolve_forked(store, resolver, runs, workers, keys)
        else:
            calls = _resolve_here(store, resolver, _runs(sizes, sum(sizes.values()) // RUN_BYTES + 1), keys)
        with store.indexes_deferred("deps"):
            store.replace_edges(affected, chain(base_edges, calls), in_place=not preload)
            keys.rest()
        log.info("resolved and stored calls in %.2fs", time.perf_counter() - started)


class _Keys:
    """What each resolved file read, stored as its run comes (a file's keys: what resolving its
    base classes read, and its calls). ``in_place``: a file's keys that stay are left as stored,
    only those that come or go are written (resolved again, a file mostly reads what it read)."""

    def __init__(self, store: Store, affected: set[int], resolver: Resolver, in_place: bool) -> None:
        self._store = store
        self._bases = {fid: reads.keys() for fid, reads in resolver.reads.items()}
        resolver.reads = {}
        self._old: dict[int, dict[str, list[int]]] = {}
        if in_place:
            self._old = store.deps_rows(affected)
        else:
            store.forget_deps(affected)

    def add(self, found: dict[int, set[str]]) -> None:
        """Store some files' keys (read by their calls)."""
        rows: list[tuple[str, int]] = []
        gone: list[int] = []
        for fid, keys in found.items():
            now = keys | self._bases.pop(fid, set())
            old = self._old.pop(fid, {})
            rows.extend((key, fid) for key in now if key not in old)
            gone.extend(rowid for key, rowids in old.items() for rowid in rowids[key in now :])
        self._store.drop_deps(gone)
        self._store.add_deps(rows)

    def rest(self) -> None:
        """Store the keys of the files no run held."""
        self.add({fid: set() for fid in self._bases.keys() | self._old.keys()})


def _bases(
    store: Store,
    affected: set[int],
    inherits: dict[int, tuple[RawRef, ...]],
    preload: bool,
    now: dict[str, tuple[int, str]] | None = None,
) -> tuple[Resolver, list[EdgeRow]]:
    """A resolver over the world with ``affected`` replaced, their base classes resolved (in file
    order: the order of a class's bases decides which base's member is found first)."""
    from mnemo_core.index.resolve import Resolver

    found: dict[int, list[Any]] = {fid: list(rs) for fid, rs in inherits.items() if fid in affected and rs}
    found.update(store.inherit_refs(set(affected) - set(inherits)))
    files = None if now is None else [(fid, path, language) for path, (fid, language) in now.items()]
    resolver = Resolver(World(store, replaced_files=affected, preload=preload, files=files))
    return resolver, _edge_rows(resolver.resolve_bases({fid: found[fid] for fid in sorted(found)}))


def _rebased(store: Store, affected: set[int], resolved: list[EdgeRow], change: Reads) -> set[int]:
    """The files that followed base classes which now come out otherwise: the affected files'
    base classes, resolved again (a world shows none while they resolve, so they depend on no
    other file's), compared class by class with the stored ones."""
    now: dict[int, set[int]] = {}
    for src, dst, *_ in resolved:
        now.setdefault(src, set()).add(dst)
    stored: dict[int, set[int]] = {}
    for pairs in store.inherits_by_file(affected).values():
        for src, dst in pairs:
            stored.setdefault(src, set()).add(dst)
    change.bases |= {cls for cls in now.keys() | stored.keys() if now.get(cls) != stored.get(cls)}
    change.subclasses = change.subclasses or bool(change.bases)
    if not change.bases and not change.subclasses:
        return set()
    found = store.files_depending(Reads(bases=change.bases, subclasses=change.subclasses).keys()) - affected
    log.info("%d files followed base classes that changed", len(found))
    return found


def _edge_rows(edges: list[tuple[Edge, int]]) -> list[EdgeRow]:
    return [(*edge, fid) for edge, fid in edges]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: the whole index loaded for resolution is about a million
    long-lived objects and no cycles, and every collection would walk them all again (in forked
    workers, copying their pages)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_FORKED: Resolver | None = None


def _can_fork() -> bool:
    """Forking copies the preloaded world for free, but is only safe with no other thread running
    (a language server indexes from a thread: it resolves in one process)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _resolve_here(store: Store, resolver: Resolver, runs: list[list[int]], keys: _Keys) -> Iterator[EdgeRow]:
    """Resolve calls in this process, a run of files at a time."""
    for run in runs:
        refs = store.refs_json(run)
        edges = resolver.resolve_calls({fid: json.loads(refs[fid]) for fid in run})
        keys.add({fid: reads.keys() for fid, reads in resolver.reads.items()})
        resolver.reads = {}
        yield from _edge_rows(edges)


def _resolve_forked(
    store: Store, resolver: Resolver, runs: list[list[int]], workers: int, keys: _Keys
) -> Iterator[EdgeRow]:
    """Resolve calls in forked workers that share the preloaded world. The runs go out a few at a
    time (their references read from the index as they go), and each run's edges come back in
    file order while later runs are still being resolved (the caller stores them meanwhile)."""
    global _FORKED
    resolver.prepare()
    _FORKED = resolver
    try:
        with clean_start(store.root):
            from multiprocessing import get_context

            pool = get_context("fork").Pool(workers, initializer=worker_init, initargs=(os.getpid(),))
        with pool:
            pending: deque[Any] = deque()
            for run in chain(runs, [None] * RUNS_IN_FLIGHT * workers):
                if run is not None:
                    pending.append(pool.apply_async(_resolve_part, (store.refs_json(run),)))
                if len(pending) >= RUNS_IN_FLIGHT * workers or (run is None and pending):
                    rows, read = pending.popleft().get()
                    keys.add(read)
                    yield from rows
    finally:
        _FORKED = None


def _runs(sizes: dict[int, int], count: int) -> list[list[int]]:
    """The files, in order, cut into about ``count`` runs of about equal total size."""
    total = sum(sizes.values())
    runs: list[list[int]] = [[]]
    size = 0
    for fid in sorted(sizes):
        if size >= total * len(runs) / count:
            runs.append([])
        runs[-1].append(fid)
        size += sizes[fid]
    return runs


def _resolve_part(refs: dict[int, str]) -> tuple[list[EdgeRow], dict[int, set[str]]]:
    resolver = _FORKED
    assert resolver is not None
    resolver.reads = {}
    edges = _edge_rows(resolver.resolve_calls({fid: json.loads(rows) for fid, rows in refs.items()}))
    return edges, {fid: reads.keys() for fid, reads in resolver.reads.items()}
