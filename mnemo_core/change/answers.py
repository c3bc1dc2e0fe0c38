"""A change's answer kept across processes, per index generation.

``mnemo tests`` after ``mnemo pr``, a pre-commit hook run again after a refused commit, a CI job
re-run: the same question is often asked twice of the same index, and its answer costs seconds
(the diff's two extractions, the walks, blame). The answer of a change between two commits, or of
the staged change, is a function of

- the index as it stands: its name (``index_id``, new on every rebuild) and generation (bumped by
  every write; the index is brought up to date from the working tree before a question is asked,
  so the indexed files' contents are in it);
- the question: the base and head commits as SHAs, or for the staged change the bytes of the git
  index file, HEAD, the depth and the budget, the repository's path;
- mnemo's own code (the path, size and modification time of each of its modules).

Those make the key; the file is named after the index and generation, so the entries of an older
generation, or of an index rebuilt since, are removed when a newer one is written. The answer also
reads the clock: relative dates ("3 days ago") and the blame's churn window. An entry keeps the
time it was made and the commit times it rendered, and is used only while each of those renders
the same and sits on the same side of the churn window. Coverage data (a file or the coverage
map) and the working tree's change (untracked and unindexed files are part of it, and none is in
the key) are never kept. An entry that cannot be read, of another format or another key is a
miss; disk trouble costs speed only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass, fields, replace
from functools import cache
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.errors import MnemoError
from mnemo_core.model import ContextPack, Evidence, Impact, LeftReference, ScoredSymbol, Symbol
from mnemo_core.statedir import own_file, own_subdir, write_own_text
from mnemo_core.vcs.git import git_dirs, git_env
from mnemo_core.vcs.history import CHURN_WINDOW_DAYS, DAY_S, relative_date

if TYPE_CHECKING:
    from mnemo_core.index.store import Store

log = logging.getLogger(__name__)

FORMAT = 1  # bumped when an entry's layout changes: older entries are then misses
SUBDIR = "answers"
KEPT = 16  # entries of one generation kept (the oldest go first): a few questions asked in turn
_ENTRY = re.compile(r"([0-9a-f]+)-(\d+)-[0-9a-f]{64}\.json")  # index id, generation, the key's digest
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Question:
    """What a change's answer depends on besides the index and the clock. ``staged`` is the
    digest of the git index file for the staged change (``head`` then None)."""

    root: str
    commit: str | None  # HEAD
    base: str | None
    head: str | None
    staged: str | None
    depth: int
    budget: int


@dataclass(frozen=True)
class Kept:
    """A kept answer: the pack, when it was made, and the commit times its words depend on."""

    pack: ContextPack
    made: int
    dated: tuple[int, ...]


def staged_digest(root: Path) -> str | None:
    """The SHA-256 of the git index file the staged change is read from (a hook's own index file
    when git hands one over), or None when it cannot be read."""
    inherited = git_env(root).get("GIT_INDEX_FILE")
    dirs = git_dirs(root)
    path = Path(inherited) if inherited else dirs[0] / "index" if dirs else None
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def still_reads_the_same(made: int, now: int, dated: tuple[int, ...]) -> bool:
    """Whether each commit time renders the same relative date at ``now`` as at ``made`` and sits
    on the same side of the churn window."""
    window = CHURN_WINDOW_DAYS * DAY_S
    return all(
        relative_date(t, made) == relative_date(t, now) and (made - t <= window) == (now - t <= window)
        for t in dated
    )


def recall(store: Store, question: Question) -> ContextPack | None:
    """The kept answer to ``question`` on the index as it stands, or None."""
    path = _entry_path(store, question)
    if path is None:
        return None
    try:
        record = json.loads(own_file(path).read_bytes())
        if record["format"] != FORMAT or record["key"] != _key(store, question):
            return None
        kept = Kept(_pack(record["pack"]), int(record["made"]), tuple(int(t) for t in record["dated"]))
    except FileNotFoundError:
        return None
    except (OSError, MnemoError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.debug("ignoring the kept answer %s: %s", path, exc)
        return None
    return kept.pack if still_reads_the_same(kept.made, int(time.time()), kept.dated) else None


def keep(store: Store, question: Question, generation: int, kept: Kept) -> None:
    """Keep ``kept`` as the answer to ``question``, if the index is still at ``generation`` (the
    one the answer was computed on); remove the older generations' entries of this index."""
    if store.generation() != generation:
        return
    path = _entry_path(store, question)
    if path is None:
        return
    record = {
        "format": FORMAT,
        "key": _key(store, question),
        "made": kept.made,
        "dated": list(kept.dated),
        "pack": _plain(kept.pack),
    }
    try:
        write_own_text(path, json.dumps(record, separators=(",", ":")))
        _prune(path.parent, store.index_id(), generation)
    except (OSError, MnemoError) as exc:
        log.debug("the answer is not kept: %s", exc)


def _entry_path(store: Store, question: Question) -> Path | None:
    try:
        directory = own_subdir(store.path.parent, SUBDIR)
    except MnemoError as exc:
        log.debug("answers are not kept: %s", exc)
        return None
    digest = hashlib.sha256(_key(store, question).encode("utf-8", "surrogateescape")).hexdigest()
    return directory / f"{store.index_id()}-{store.generation()}-{digest}.json"


def _key(store: Store, question: Question) -> str:
    parts = [
        FORMAT,
        code_digest(),
        store.index_id(),
        store.generation(),
        *(getattr(question, f.name) for f in fields(question)),
    ]
    return json.dumps(parts)


@cache
def code_digest() -> str:
    """mnemo's code as it is on disk: each module's path, size and modification time, digested."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(_PACKAGE):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py") or name.endswith(".scm"):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _prune(directory: Path, index_id: str, generation: int) -> None:
    """Remove the entries of other generations and of other indexes (one index a state directory:
    another name is an index rebuilt since), and all but the newest ``KEPT`` of this generation."""
    current = []
    for entry in os.scandir(directory):
        match = _ENTRY.fullmatch(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        if match.group(1) != index_id or int(match.group(2)) != generation:
            os.unlink(entry.path)
        else:
            current.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
    for _, path in sorted(current)[:-KEPT]:
        os.unlink(path)


# -- the pack as JSON and back: every field, in order (the rendered JSON leaves some out) ------------


_RECORDS = (ContextPack, Impact, ScoredSymbol, Symbol, Evidence, LeftReference)
_VALUES = {kind: attrgetter(*(f.name for f in fields(kind))) for kind in _RECORDS}  # each, in order


def _plain(value: Any) -> Any:
    """A record as the list of its fields (records within made plain too); JSON writes a tuple of
    plain values as it is."""
    values = _VALUES.get(type(value))
    if values is not None:
        return [_plain(v) for v in values(value)]
    if type(value) is tuple and value and type(value[0]) in _VALUES:
        return [_plain(v) for v in value]
    return value


def _pack(raw: list[Any]) -> ContextPack:
    mode, query, repo, commit, budget, used, symbols, impact, stats, notes = raw
    return ContextPack(
        mode,
        query,
        repo,
        commit,
        budget,
        used,
        tuple(_scored(s) for s in symbols),
        None if impact is None else _impact(impact),
        dict(stats),
        tuple(notes),
    )


def _impact(raw: list[Any]) -> Impact:
    changed, callers, tests, risk, reasons, files, possible_callers, possible_tests, left = raw
    return Impact(
        tuple(_scored(s) for s in changed),
        tuple(_scored(s) for s in callers),
        tuple(_scored(s) for s in tests),
        risk,
        tuple(reasons),
        tuple(files),
        tuple(_scored(s) for s in possible_callers),
        tuple(_scored(s) for s in possible_tests),
        tuple(LeftReference(*r) for r in left),
    )


def _scored(raw: list[Any]) -> ScoredSymbol:
    symbol, score, components, reasons, distance, changed, tokens, body, evidence, *rest = raw
    reached_by, possibly_reached_by, runs, rank = rest
    return ScoredSymbol(
        _symbol(symbol),
        score,
        dict(components),
        tuple(reasons),
        distance,
        changed,
        tokens,
        body,
        None if evidence is None else Evidence(*evidence),
        tuple(reached_by),
        tuple(possibly_reached_by),
        tuple(runs),
        rank,
    )


def _symbol(raw: list[Any]) -> Symbol:
    sid, path, name, kind, language, signature, docstring, start, end, size, *flags = raw
    is_test, is_test_case, exported, parent_id, decorators = flags
    return Symbol(
        sid,
        path,
        name,
        kind,
        language,
        signature,
        docstring,
        start,
        end,
        size,
        is_test,
        is_test_case,
        exported,
        parent_id,
        tuple(decorators),
    )


def answered(pack: ContextPack, started: float) -> ContextPack:
    """A kept answer handed out again: its ``elapsed_ms`` is this call's."""
    return replace(pack, stats={**pack.stats, "elapsed_ms": round((time.perf_counter() - started) * 1000)})
