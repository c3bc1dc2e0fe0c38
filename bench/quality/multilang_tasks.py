"""Commit tasks in Go, Rust, Java and JavaScript/TypeScript, located with ctags (not mnemo).

A task is a first-parent commit whose author is a person and whose cleaned subject is descriptive
(:mod:`bench.quality.mining`'s filters); its text is that subject, its answer the named functions and
methods of the **parent** tree that the commit's diff touched, found by universal-ctags
(:mod:`bench.quality.ctags_index`): each deleted or replaced parent line names the innermost
callable around it, and lines inserted strictly inside a callable name it. Only the benchmark
languages' non-test, non-doc, non-vendored files count; a commit is kept when it names 1..8
functions and changes a line that is not blank and not a comment. Candidates are the newest
``window`` commits, shuffled with a seeded RNG; the ground-truth mapping runs in that order until
``count`` tasks are found, so mining is deterministic.

A ground-truth entry keeps the path, the name and the first line of each definition carrying its
key (overloads share one key, as a reader would take them for one answer); a ranked symbol is that
answer when it is in the same file, its last name segment is the name, and its span holds one of
those lines (so a class that folds its constructor answers for the constructor).
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.quality import ctags_index
from bench.quality.mining import (
    MAX_FUNCTIONS,
    OldSideChange,
    candidates,
    clean_message,
    first_parent_commits,
    git,
    git_bytes,
    is_descriptive,
    parse_zero_context_diff,
)

TASKS_DIR = Path(__file__).resolve().parent / "tasks" / "multilang"
_COMMENT = re.compile(r"^\s*(?://|/\*|\*|\*/|#\[doc|$)")  # a comment, a doc attribute or a blank line
_NAME_SPLIT = re.compile(r"::|[.#]")
CONSTRUCTOR_NAMES = frozenset({"constructor", "initialize", "__construct"})  # Java's and C#'s: the class's


@dataclass(frozen=True)
class Truth:
    """One answer: ``key`` as ``path:scope.name``; ``lines`` the first line of each definition."""

    key: str
    path: str
    name: str
    lines: tuple[int, ...]


@dataclass(frozen=True)
class MultiTask:
    """A task: the commit, the tree it is run on, its text and its answers."""

    id: str
    parent: str
    position: int
    text: str
    truth: tuple[Truth, ...]

    def to_json(self) -> dict[str, Any]:
        """A plain dict for the task file."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MultiTask:
        """The inverse of :meth:`to_json`."""
        truth = tuple(Truth(t["key"], t["path"], t["name"], tuple(t["lines"])) for t in data["truth"])
        return cls(data["id"], data["parent"], data["position"], data["text"], truth)


@dataclass(frozen=True)
class Ranked:
    """A ranked definition as any ranker reports it: where it is and what it is called."""

    path: str
    name: str  # the last segment of its qualified name
    start: int
    end: int


def short_name(qualified: str) -> str:
    """The last segment of a qualified name in any convention (``A.b``, ``A::b``, ``A#b``)."""
    return _NAME_SPLIT.split(qualified)[-1]


def as_keys(ranking: Iterable[Ranked], truth: Sequence[Truth]) -> list[str]:
    """Each ranked definition as the ground-truth key it answers, else as its own ``path:name@line``."""
    keys = []
    for item in ranking:
        found = next((t.key for t in truth if answers(item, t)), None)
        keys.append(found or f"{item.path}:{item.name}@{item.start}")
    return keys


def answers(item: Ranked, truth: Truth) -> bool:
    """Same file, and either the same name (or, for a constructor, its class's) with a span holding
    the definition's line, or a span starting on that very line (one definition, whatever the two
    parsers call it: ctags names ``module.exports = function xhrAdapter`` ``exports``)."""
    if item.path != truth.path:
        return False
    if item.name == truth.name or (truth.name in CONSTRUCTOR_NAMES and item.name == owner(truth)):
        return any(item.start <= line <= item.end for line in truth.lines)
    return item.start in truth.lines


def owner(truth: Truth) -> str:
    """The last segment of the scope a ground-truth definition sits in ("" at the top level)."""
    qualified = truth.key.split(":", 1)[1]
    return qualified.rpartition(".")[0].rpartition(".")[2]


# -- ground truth -----------------------------------------------------------------------------
def touched(tags: Sequence[ctags_index.Tag], change: OldSideChange) -> list[ctags_index.Tag]:
    """The innermost named callables a change touches, in order of first touch."""
    found: dict[str, ctags_index.Tag] = {}
    for start, end in change.changed:
        for line in range(start, end + 1):
            inner = ctags_index.innermost(tags, line)
            if inner is not None:
                found.setdefault(f"{inner.key}@{inner.line}", inner)
    for after in change.inserted_after:
        inner = ctags_index.innermost(tags, after, strictly_inside=True)
        if inner is not None:
            found.setdefault(f"{inner.key}@{inner.line}", inner)
    return list(found.values())


def truth_of(tags: Sequence[ctags_index.Tag], hit: Sequence[ctags_index.Tag]) -> list[Truth]:
    """One answer per touched key, with the lines of every definition that carries the key."""
    keys = dict.fromkeys(t.key for t in hit)
    return [
        Truth(key, tag.path, tag.name, tuple(t.line for t in tags if t.key == key and t.callable))
        for key in keys
        for tag in [next(t for t in hit if t.key == key)]
    ]


def parent_tags(root: Path, parent: str, paths: Sequence[str]) -> list[ctags_index.Tag]:
    """ctags over the parent's version of ``paths``, written to a scratch tree at the same paths."""
    with tempfile.TemporaryDirectory(prefix="mnemo-ml-") as scratch:
        sources = {}
        for path in paths:
            target = Path(scratch) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(git_bytes(root, "show", f"{parent}:{path}"))
            sources[path] = ctags_index.read_lines(target)
        return ctags_index.run_ctags(Path(scratch), sources)


def source_diff(root: Path, parent: str, commit: str) -> str:
    """The zero-context diff of the benchmark languages' files."""
    patterns = [f"*{suffix}" for suffix in ctags_index.EXTENSIONS]
    return git(
        root,
        "diff",
        "-U0",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        parent,
        commit,
        "--",
        *patterns,
    )


def changes_code(diff: str) -> bool:
    """True when a source file's diff adds or removes a line that is not blank and not a comment."""
    counted = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            counted = ctags_index.is_source_path(line.split(" b/", 1)[0].removeprefix("diff --git a/"))
        elif (
            counted
            and line[:1] in "+-"
            and not line.startswith(("+++", "---"))
            and not _COMMENT.match(line[1:])
        ):
            return True
    return False


def task_for(root: Path, sha: str, parent: str, position: int, text: str) -> MultiTask | None:
    """The task a commit makes, or None (no source change, only comments, too few or many answers)."""
    diff = source_diff(root, parent, sha)
    changes = {
        p: c for p, c in sorted(parse_zero_context_diff(diff).items()) if ctags_index.is_source_path(p)
    }
    if not changes or not changes_code(diff):
        return None
    tags = parent_tags(root, parent, list(changes))
    hit = [
        t for path, change in changes.items() for t in touched([t for t in tags if t.path == path], change)
    ]
    truth = truth_of(tags, hit)
    if not 1 <= len(truth) <= MAX_FUNCTIONS:
        return None
    return MultiTask(sha, parent, position, text, tuple(truth))


def mine(root: Path, head: str, count: int, seed: int, window: int) -> list[MultiTask]:
    """Up to ``count`` tasks from the seeded shuffle of the window's descriptive commits."""
    pool = candidates(first_parent_commits(root, head, window))
    random.Random(seed).shuffle(pool)
    found: list[MultiTask] = []
    for commit in pool:
        subject = clean_message(commit.message).splitlines()[0]
        if not is_descriptive(subject):
            continue
        task = task_for(root, commit.sha, commit.parent, commit.position, subject)
        if task is not None:
            found.append(task)
        if len(found) == count:
            break
    return found


# -- task files -------------------------------------------------------------------------------
def load(name: str, count: int, seed: int, window: int) -> list[MultiTask] | None:
    """The stored tasks when mined with this seed and window and there are enough, else None."""
    path = TASKS_DIR / f"{name}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if (
        data["seed"] != seed
        or data["window"] != window
        or (len(data["tasks"]) < count and not data["exhausted"])
    ):
        return None
    return [MultiTask.from_json(t) for t in data["tasks"][:count]]


def save(
    name: str, source: str, head: str, seed: int, window: int, tasks: Sequence[MultiTask], count: int
) -> None:
    """Write the task file (messages, names and line numbers; no code)."""
    data = {
        "repo": name,
        "source": source,
        "head": head,
        "seed": seed,
        "window": window,
        "exhausted": len(tasks) < count,
        "tasks": [t.to_json() for t in tasks],
    }
    TASKS_DIR.mkdir(parents=True, exist_ok=True)
    (TASKS_DIR / f"{name}.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def stored_head(name: str) -> str | None:
    """The head a stored task file was mined from."""
    path = TASKS_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))["head"] if path.exists() else None


def oldest_first(tasks: Iterable[MultiTask]) -> Iterator[MultiTask]:
    """Tasks in history order, so each checkout moves the tree forward."""
    yield from sorted(tasks, key=lambda t: -t.position)
