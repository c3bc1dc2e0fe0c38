"""The history channel: past commits like the task point at the functions they changed.

Bug-localisation work (BugLocator and its successors) found that the code changed by similar past
reports is one of the strongest signals of where a new one lands. Here the index's memory of
commits (``index/commits.py``) is searched with the task's terms by BM25 over the messages; each of
the ``HISTORY_COMMITS`` best commits votes ``similarity x recency / functions changed`` for every
function its diff touched (a commit that changed many functions spreads its vote thin), newer
commits counting more (half-life ``HISTORY_HALF_LIFE_DAYS`` from the newest of them). Which functions
a commit changed is asked of git only for the commits a task turns up, and kept in memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from pathlib import Path
from textwrap import shorten

from mnemo_core.errors import MnemoError
from mnemo_core.index.languages import source_extensions
from mnemo_core.index.store import Store
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.seeds import Channel, Ranked, Strengths, fts_query
from mnemo_core.statedir import own_file, write_own_text
from mnemo_core.vcs.changes import attributes_text, changed_functions
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
        located = store.symbols_at(votes)
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


def commit_targets(root: Path, store: Store, shas: Sequence[str]) -> dict[str, Targets]:
    """The (path, function name) pairs each commit changed: from this process's memory, then the
    index, then one ``git show`` for the rest (whose answers the index keeps when it can)."""
    key = str(store.path)
    with _lock:
        found = {sha: _targets[(key, sha)] for sha in shas if (key, sha) in _targets}
    found.update(store.commit_targets([sha for sha in shas if sha not in found]))
    missing = [sha for sha in shas if sha not in found]
    if missing:
        try:
            fresh = changed_functions(root, missing, _attributes(store.path.parent), source_extensions())
        except (GitError, OSError):
            fresh = {}
        asked = {sha: fresh.get(sha, ()) for sha in missing}
        store.save_commit_targets(asked)
        found.update(asked)
    with _lock:
        for sha in shas:
            _targets[(key, sha)] = found[sha]
        while len(_targets) > CACHED_COMMITS:
            _targets.popitem(last=False)
    return found


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
