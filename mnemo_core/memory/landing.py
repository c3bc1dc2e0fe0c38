"""When a task's work lands: the commits after a ``mnemo task`` say which symbols were used for it.

A task asked at commit H is open until HEAD moves. When HEAD has moved forward from H, the first
(first-parent) commits after H, up to the head the next task was asked at, are that task's work:
the functions they changed count as used for it. Of several tasks asked at the same H, the last is
credited (the others were rephrasings or abandoned). When HEAD moved elsewhere (a checkout, a
rebase), the task is closed uncredited: nothing says its commits are its work.
"""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from mnemo_core.index.store import Store
from mnemo_core.memory.store import Key, MemoryStore, OpenTask
from mnemo_core.retrieve.history import commit_targets
from mnemo_core.vcs.git import GitError, is_ancestor, run_git

LANDING_COMMITS = 3  # a task's work is its first few commits; later ones are other work
MAX_LANDED_SYMBOLS = 30  # a commit that changes more functions than this is a sweep, not a task's work


def land(store: MemoryStore, index: Store, root: Path, head: str | None) -> None:
    """Credit every open task whose work has landed since, and close it."""
    if head is None:
        return
    tasks = store.open_tasks()
    groups = [list(g) for _, g in groupby(tasks, key=lambda t: t.head)]
    heads = [g[0].head for g in groups]
    for i, group in enumerate(groups):
        start = group[0].head
        if start == head:
            continue
        end = next((h for h in heads[i + 1 :] if h != start), head)
        credited = group[-1]
        try:
            commits = _commits_between(root, start, end) if is_ancestor(root, start, head) else []
        except GitError:
            commits = []
        if commits:
            _credit(store, index, root, credited, commits)
        store.close_tasks(t.id for t in group)


def _own(targets: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return targets if len(targets) <= MAX_LANDED_SYMBOLS else ()


def _commits_between(root: Path, start: str, end: str) -> list[str]:
    out = run_git(root, "rev-list", "--first-parent", "--reverse", f"{start}..{end}", check=False)
    return out.decode().split()[:LANDING_COMMITS]


def _credit(store: MemoryStore, index: Store, root: Path, task: OpenTask, commits: list[str]) -> None:
    targets = commit_targets(root, index, commits)
    changed = {t for sha in commits for t in _own(targets.get(sha, ()))}
    located = index.symbols_at(changed)
    symbols = index.symbols_by_ids(sid for ids in located.values() for sid in ids)
    used: list[Key] = sorted({(s.path, s.name, s.kind) for s in symbols.values() if not s.is_test})
    if used:
        store.add_verdicts(task.id, used, [], f"commit {commits[0][:7]}")
