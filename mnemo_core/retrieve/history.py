"""The history channel: past commits like the task point at the functions they changed.

Bug-localisation work (BugLocator and its successors) found that the code changed by similar past
reports is one of the strongest signals of where a new one lands. Here the index's memory of
commits (``index/commits.py``) is searched with the task's terms by BM25 over the messages; each of
the ``HISTORY_COMMITS`` best commits votes ``similarity x recency / functions changed`` for every
function its diff touched (a commit that changed many functions spreads its vote thin), newer
commits counting more (half-life ``HISTORY_HALF_LIFE_DAYS`` from the newest of them). Which functions
a commit changed is asked of git only for the commits a task turns up, and kept in memory.

Git names the function a hunk is in by its name alone. Where the file defines that name more than
once (a class's ``__init__`` beside thirty others), the vote goes to the definition at the hunk's line
in the commit's tree, found among today's namesakes (the one whose lines hold it, else the last
starting before it), and the target is kept by its qualified name, ``(path, "Option.__init__")``.
Targets the index cached before it knew lines still name the short name: all its namesakes vote.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from textwrap import shorten

from mnemo_core.errors import MnemoError
from mnemo_core.index.languages import source_extensions
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.seeds import Channel, Ranked, Strengths, fts_query
from mnemo_core.statedir import own_file, write_own_text
from mnemo_core.vcs.changes import attributes_text, changed_function_lines
from mnemo_core.vcs.git import GitError

HISTORY_COMMITS = 30  # similar past commits consulted
SUBJECT_SHOWN = 60  # characters of a commit's subject in a reason, cut at a word
HISTORY_HALF_LIFE_DAYS = 365.0  # a year-old commit's vote counts half
SECONDS_PER_DAY = 86400.0
ATTRIBUTES_FILE = "diff.gitattributes"
CACHED_COMMITS = 4096
Targets = tuple[tuple[str, str], ...]
_targets: OrderedDict[tuple[str, str], Targets] = OrderedDict()
_lock = threading.Lock()


def history_channel(root: Path) -> Ranked:
    """The history channel of the repository at ``root``."""

    def ranked(store: Store, keywords: Keywords) -> tuple[Channel, Strengths]:
        query = fts_query(keywords)
        commits = store.similar_commits(query, HISTORY_COMMITS) if query else []
        if not commits:
            return [], {}
        targets = commit_targets(root, store, [c.sha for c in commits])
        newest = max(c.time for c in commits)
        best = max(c.score for c in commits) or 1.0
        votes: dict[tuple[str, str], float] = defaultdict(float)
        voter: dict[tuple[str, str], str] = {}
        for commit in commits:
            changed = targets.get(commit.sha, ())
            subject = shorten(commit.subject, SUBJECT_SHOWN, placeholder="...")
            age_days = max(0.0, (newest - commit.time) / SECONDS_PER_DAY)
            weight = commit.score / best * 0.5 ** (age_days / HISTORY_HALF_LIFE_DAYS) / max(1, len(changed))
            for target in changed:
                votes[target] += weight
                voter.setdefault(target, f"{commit.sha[:7]}: {subject}")
        located = locate_targets(store, votes)
        ranked = sorted(
            ((votes[t], sid, _reason(t, len(ids), voter[t])) for t, ids in located.items() for sid in ids),
            key=lambda v: (-v[0], v[1]),
        )
        top = ranked[0][0] if ranked else 1.0
        return [(sid, why) for _, sid, why in ranked], {sid: vote / top for vote, sid, _ in ranked}

    return ranked


def _reason(target: tuple[str, str], namesakes: int, commit: str) -> str:
    """Why a symbol has a vote. Git names the function a hunk is in, not its class: where a file
    has several definitions of that name, the commit changed one of them, perhaps not this one."""
    if namesakes == 1:
        return f"changed by a similar past commit {commit}"
    path, name = target
    return f"a similar past commit changed one of the {namesakes} {name} of {path}: {commit}"


def locate_targets(store: Store, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
    """Today's symbols of each target: by short name, or by qualified name where it has a dot."""
    wanted = set(targets)
    by_short = {t: (t[0], t[1].rsplit(".", 1)[-1]) for t in wanted}
    located = store.symbols_at(set(by_short.values()))
    qualified = [t for t in wanted if "." in t[1] and by_short[t] in located]
    named = store.symbols_by_ids(sid for t in qualified for sid in located[by_short[t]])
    out = {t: located[by_short[t]] for t in wanted if "." not in t[1] and by_short[t] in located}
    for target in qualified:
        ids = [sid for sid in located[by_short[target]] if sid in named and named[sid].name == target[1]]
        if ids:
            out[target] = ids
    return out


def commit_targets(root: Path, store: Store, shas: Sequence[str]) -> dict[str, Targets]:
    """The (path, function name) pairs each commit changed: from this process's memory, then the
    index, then one ``git show`` for the rest (whose answers the index keeps when it can). A name a
    file defines more than once is qualified by the definition at the hunk's line."""
    key = str(store.path)
    with _lock:
        found = {sha: _targets[(key, sha)] for sha in shas if (key, sha) in _targets}
    found.update(store.commit_targets([sha for sha in shas if sha not in found]))
    missing = [sha for sha in shas if sha not in found]
    if missing:
        try:
            fresh = changed_function_lines(root, missing, _attributes(store.path.parent), source_extensions())
        except (GitError, OSError):
            fresh = {}
        asked = _qualified(store, {sha: fresh.get(sha, ()) for sha in missing})
        store.save_commit_targets(asked)
        found.update(asked)
    with _lock:
        for sha in shas:
            _targets[(key, sha)] = found[sha]
        while len(_targets) > CACHED_COMMITS:
            _targets.popitem(last=False)
    return found


def _qualified(store: Store, found: dict[str, tuple[tuple[str, str, int], ...]]) -> dict[str, Targets]:
    """Each commit's targets, a name the file defines more than once qualified by the definition
    at the target's line."""
    located = store.symbols_at({(path, name) for lines in found.values() for path, name, _ in lines})
    shared = [sid for ids in located.values() if len(ids) > 1 for sid in ids]
    symbols = store.symbols_by_ids(shared)
    out = {}
    for sha, lines in found.items():
        targets: dict[tuple[str, str], None] = {}
        for path, name, line in lines:
            namesakes = [symbols[sid] for sid in located.get((path, name), ()) if sid in symbols]
            targets[(path, _at_line(namesakes, line).name if namesakes else name)] = None
        out[sha] = tuple(targets)
    return out


def _at_line(namesakes: list[Symbol], line: int) -> Symbol:
    """The namesake whose lines hold ``line`` (the innermost), else the last to start before it,
    else the first."""
    holding = [s for s in namesakes if s.start_line <= line <= s.end_line]
    if holding:
        return min(holding, key=lambda s: (s.end_line - s.start_line, s.id))
    before = [s for s in namesakes if s.start_line <= line]
    if before:
        return max(before, key=lambda s: (s.start_line, -s.id))
    return min(namesakes, key=lambda s: (s.start_line, s.id))


def _attributes(index_dir: Path) -> Path:
    """Our attributes file, naming git's built-in function-name drivers (rewritten unless it says
    exactly what we would write)."""
    path = index_dir / ATTRIBUTES_FILE
    text = attributes_text()
    try:
        current = own_file(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, MnemoError):
        current = None
    if current != text:  # absent, or not ours
        write_own_text(path, text)
    return path
