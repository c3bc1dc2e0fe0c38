"""Tasks from real git history: a cleaned commit or pull-request message -> the functions it changed.

Two sources on the first-parent line. A **pull request** is a GitHub merge commit ("Merge pull
request #N from owner/branch", then the PR title) or a squash merge whose subject ends in
"(#N)" (its body is the PR description); its task text is the title and body without the
"Merge pull request" line, and its change is ``merge^1..merge``. Any other non-merge commit is a
**commit** task; other merges ("Merge branch ...") are skipped. Either becomes a task when its text
is descriptive and it changes 1..``MAX_FUNCTIONS`` existing functions or methods in non-test,
non-doc Python code. The text has trailers, issue/PR numbers and URLs stripped; the ground truth is
every function of the *parent* (first parent) version of a changed file that the change touched:

- a deleted or replaced line of the parent side falls in the function's lines, or
- lines are inserted strictly inside it (after its first line and before its last);

each line counts for the innermost function or method around it (never the enclosing class), and
functions the commit adds do not exist in the parent, so they are not part of the answer.
Test files (mnemo's rules, plus directories named ``test*``) and doc directories do not count. A
commit whose source changes leave the syntax trees unchanged once docstrings are removed only
touched documentation, comments or layout: it is skipped like a docs-only commit. So is one whose
ground-truth files ``ast`` cannot parse (Python 2 era code).

Candidates are the newest ``window`` first-parent commits whose message and author pass the cheap
filters; they are shuffled with a seeded RNG (so tasks spread across that stretch of history) and
the expensive ground-truth mapping runs in that order: pull requests until ``MAX_PR_SHARE`` of the
tasks, then commits, then more pull requests if the commits ran out. Tasks keep the shuffled order.
"""

from __future__ import annotations

import ast
import os
import random
import re
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path
from mnemo_core.model import CALLABLE_KINDS, RawSymbol

MAX_FUNCTIONS = 8  # bigger commits are refactorings or features whose message cannot point at code
MIN_WORDS = 4  # "Fix it", "Update foo.py" say nothing a retriever can use
DOC_DIRS = frozenset({"doc", "docs", "example", "examples"})  # code that illustrates, not code that runs
TEST_DIR_PREFIX = "test"  # beyond mnemo's test dirs: ``testsuite/``, ``test_utils/`` hold tests too
PYTHON = "python"
LOG_FIELD, LOG_RECORD = "\x1f", "\x1e"
MAX_PR_SHARE = 0.5  # half the tasks from pull requests at most, so both sources are well represented
Source = Literal["commit", "pr"]
COMMIT: Source = "commit"
PR: Source = "pr"

# -- message cleaning -----------------------------------------------------------------------
_TRAILER = re.compile(r"^\s*(?:[\w-]+-by|cc|change-id)\s*:.*$", re.IGNORECASE | re.MULTILINE)
_CHERRY_PICK = re.compile(r"^\s*\(cherry picked from commit [0-9a-f]+\)\s*$", re.IGNORECASE | re.MULTILINE)
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\((?:https?://|/|#)[^)]*\)")
_URL = re.compile(r"<?https?://[^\s>)]+>?")
_ISSUE = re.compile(r"(?:\b[\w.-]+/[\w.-]+)?#\d+\b|\b(?:gh|bpo|issue|pr)-\d+\b", re.IGNORECASE)
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*\]")
_RULE = re.compile(r"^\s*(?:[-*=_~]\s*){3,}$", re.MULTILINE)
_REF_ONLY_LINE = re.compile(  # what is left of "Fixes #4, see <url> and #5" once references go
    r"^\s*(?:[-*]\s*)?(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see(?: also)?|related(?: to)?"
    r"|part of|follow[- ]up(?: to| of)?|backport(?: of)?|and)\b|[\s:,.;&])*$",
    re.IGNORECASE,
)
_BOILERPLATE_LINE = re.compile(  # squash-merge lists repeat what GitHub's buttons wrote, not the task
    r"^\s*(?:[-*]\s*)?(?:\[pre-commit\.ci\].*|for more information, see:?|merge (?:branch|remote-tracking) .*"
    r"|apply suggestions? from (?:code )?review.*|update [\w./-]+\.\w+)\s*$",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[ \t]+")
_BLANK_RUN = re.compile(r"\n{3,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_NON_DESCRIPTIVE = re.compile(
    r"^\s*(?:merge\b|revert\b|wip\b|fix(?:ed|es)?\s+(?:a\s+|some\s+)?typos?\b|typos?\b|(?:fix\s+)?spelling\b|grammar\b|bump\b|release\b"
    r"|prepare(?:\s+for)?\s+(?:the\s+)?release|(?:update\s+)?changelog\b|v?\d+(?:\.\d+)+\b"
    r"|\[pre-commit\.ci\]|\[automated\]|pre-commit autoupdate|(?:apply|run)\s+(?:black|isort|ruff|pre-commit)"
    r"|blacken\b|reformat(?:ted)?\s+(?:with|code|codebase|using)|update (?:the )?version\b)",
    re.IGNORECASE,
)
_BOT = re.compile(r"\[bot\]|\bbot\b", re.IGNORECASE)
_MERGE_PR = re.compile(r"^Merge pull request #\d+ from (\S+).*$", re.MULTILINE)
_SQUASH_PR = re.compile(r"\(#\d+\)\s*$")
_BOT_BRANCH = re.compile(r"dependabot|pre-commit-ci|renovate", re.IGNORECASE)  # PRs opened by bots


def clean_message(message: str) -> str:
    """A commit message as a task: subject and body without trailers, issue/PR numbers and URLs."""
    text = _CHERRY_PICK.sub("", _TRAILER.sub("", message))
    text = _MARKDOWN_LINK.sub(r"\1", text)
    text = _ISSUE.sub("", _URL.sub("", text))
    text = _RULE.sub("", _EMPTY_BRACKETS.sub("", text))
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if not (line and _is_noise(line))]
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip()


def _is_noise(line: str) -> bool:
    """A line that carries no task: a bare "Fixes", or squash-merge boilerplate."""
    return bool(_REF_ONLY_LINE.match(line) or _BOILERPLATE_LINE.match(line))


def is_descriptive(text: str) -> bool:
    """True when a cleaned message says enough to be a task (several words, not a chore)."""
    return len(_WORD.findall(text)) >= MIN_WORDS and not _NON_DESCRIPTIVE.match(text)


def is_bot(author: str) -> bool:
    """Dependabot, pre-commit.ci and friends: their commits are chores, not tasks."""
    return bool(_BOT.search(author))


def pr_message(message: str) -> str:
    """A merge commit's message without GitHub's "Merge pull request #N from ..." line."""
    return _MERGE_PR.sub("", message, count=1)


def source_of(message: str, merge: bool) -> Source | None:
    """``pr`` for a pull request's merge or squash commit, ``commit`` for another non-merge commit,
    None for any other merge (``Merge branch ...``) and for pull requests a bot opened."""
    found = _MERGE_PR.match(message)
    if merge:
        return PR if found and not _BOT_BRANCH.search(found.group(1)) else None
    subject = message.split("\n", 1)[0]
    return PR if _SQUASH_PR.search(subject) else COMMIT


# -- diffs -> changed lines of the parent side ----------------------------------------------
@dataclass
class OldSideChange:
    """What a diff did to one file, in the parent's line numbers."""

    changed: list[tuple[int, int]]  # deleted or replaced lines, inclusive ranges
    inserted_after: list[int]  # pure insertions: new lines go after this parent line (0: at the top)
    new_path: str | None = None  # the file in the commit (None when the commit deleted it)


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def parse_zero_context_diff(diff: str) -> dict[str, OldSideChange]:
    """Parse ``git diff -U0`` output: for each file of the parent side, its changed lines.

    Files the commit added (no parent side) are left out; a renamed file is keyed by its old path.
    Header lines are only read between ``diff --git`` and the first hunk, so a removed line that
    happens to start with ``-- a/`` is never mistaken for a file name.
    """
    changes: dict[str, OldSideChange] = {}
    old_path = new_path = None
    in_header = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            old_path, new_path, in_header = None, None, True
        elif in_header and line.startswith("--- "):
            old_path = _diff_path(line[4:], "a/")
        elif in_header and line.startswith("+++ "):
            new_path = _diff_path(line[4:], "b/")
        elif line.startswith("@@"):
            in_header = False
            found = _HUNK.match(line)
            if old_path is None or found is None:
                continue
            start, count = int(found.group(1)), int(found.group(2) or "1")
            change = changes.setdefault(old_path, OldSideChange([], [], new_path))
            if count:
                change.changed.append((start, start + count - 1))
            else:
                change.inserted_after.append(start)
    return changes


def _diff_path(raw: str, prefix: str) -> str | None:
    """A ``---``/``+++`` header's path; git appends a tab to names with spaces, quotes exotic ones."""
    raw = raw.rstrip("\t").strip('"')
    if raw == "/dev/null":
        return None
    return raw.removeprefix(prefix)


def touched_functions(symbols: Iterable[RawSymbol], change: OldSideChange) -> list[str]:
    """The qualified names of the innermost non-test functions/methods a change touches."""
    callables = [s for s in symbols if s.kind in CALLABLE_KINDS and not s.is_test]
    touched: dict[str, None] = {}
    for start, end in change.changed:
        for line in range(start, end + 1):
            inner = _innermost(s for s in callables if s.start_line <= line <= s.end_line)
            if inner is not None:
                touched.setdefault(inner.name)
    for after in change.inserted_after:
        inner = _innermost(s for s in callables if s.start_line <= after < s.end_line)
        if inner is not None:
            touched.setdefault(inner.name)
    return list(touched)


def _innermost(symbols: Iterable[RawSymbol]) -> RawSymbol | None:
    return min(symbols, key=lambda s: (s.end_line - s.start_line, -s.start_line), default=None)


def is_source_path(path: str) -> bool:
    """A non-test, non-doc Python file (judged by mnemo's own language and test-file rules)."""
    spec = language_for_path(path)
    if spec is None or spec.name != PYTHON:
        return False
    directories = PurePosixPath(path).parts[:-1]
    if spec.hooks.is_test_file(path) or any(d.startswith(TEST_DIR_PREFIX) for d in directories):
        return False
    return not DOC_DIRS.intersection(directories)


# -- git --------------------------------------------------------------------------------------
def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (no inherited ``GIT_*`` variables, no pager, no colour); return stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        ["git", "-c", "core.quotePath=false", "-C", str(root), *args],
        capture_output=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: {message}")
    return done.stdout.decode("utf-8", "replace")


def git_bytes(root: Path, *args: str) -> bytes:
    """Like :func:`git`, returning raw bytes (file contents)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, env=env, check=True).stdout


def source_changes(root: Path, parent: str, commit: str) -> dict[str, OldSideChange]:
    """The changed lines of each non-test, non-doc Python file of ``parent`` that ``commit`` changed."""
    diff = git(
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
        "*.py",
    )
    changes = sorted(parse_zero_context_diff(diff).items())
    return {path: change for path, change in changes if is_source_path(path)}


def ground_truth(root: Path, parent: str, changes: dict[str, OldSideChange]) -> list[str]:
    """``path:qualified.name`` of every parent-side function the changes touch (see the module doc)."""
    truth: list[str] = []
    for path, change in changes.items():
        spec = language_for_path(path)
        assert spec is not None  # source_changes keeps Python files only
        symbols = extract(path, git_bytes(root, "show", f"{parent}:{path}"), spec).symbols
        truth += [f"{path}:{name}" for name in touched_functions(symbols, change)]
    return truth


def changes_code(root: Path, parent: str, commit: str, changes: dict[str, OldSideChange]) -> bool:
    """False when every change is to docstrings, comments or layout: a documentation commit."""
    for path, change in changes.items():
        if change.new_path is None:
            return True
        before = git_bytes(root, "show", f"{parent}:{path}")
        after = git_bytes(root, "show", f"{commit}:{change.new_path}")
        if not same_code(before, after):
            return True
    return False


def same_code(before: bytes, after: bytes) -> bool:
    """True when two versions of a module differ only in docstrings, comments and layout (judged by
    their syntax trees with docstrings removed). Source ``ast`` cannot parse counts as different."""
    first, second = _code_tree(before), _code_tree(after)
    return first is not None and first == second


def _code_tree(source: bytes) -> str | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:]
    return ast.dump(tree)


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


# -- commits -> tasks -------------------------------------------------------------------------
@dataclass(frozen=True)
class Commit:
    """A first-parent commit; ``position`` counts back from the mined head (0 = head)."""

    sha: str
    parent: str  # the first parent: the change is ``parent..sha``
    author: str
    message: str  # for a merged pull request, without the "Merge pull request" line
    position: int
    source: Source


@dataclass(frozen=True)
class Task:
    """One benchmark task: the text a developer would write, and the functions that had to change."""

    id: str  # the commit's sha
    parent: str  # the tree the task is evaluated on
    position: int
    subject: str
    text: str
    ground_truth: tuple[str, ...]  # ``path:qualified.name`` in the parent tree
    source: Source = COMMIT

    def to_json(self) -> dict[str, Any]:
        """A plain dict for the task file."""
        return {**asdict(self), "ground_truth": list(self.ground_truth)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Task:
        """The inverse of :meth:`to_json`."""
        return cls(**{**data, "ground_truth": tuple(data["ground_truth"])})


def first_parent_commits(root: Path, head: str, window: int) -> list[Commit]:
    """Pull requests and commits among the newest ``window`` first-parent commits from ``head``
    back (root commits and merges that are not pull requests skipped)."""
    fmt = LOG_FIELD.join(("%H", "%P", "%an <%ae>", "%B")) + LOG_RECORD
    out = git(root, "log", "--first-parent", f"-n{window}", f"--format={fmt}", head)
    commits = []
    for position, record in enumerate(r for r in out.split(LOG_RECORD) if r.strip()):
        sha, parents, author, message = record.lstrip("\n").split(LOG_FIELD, 3)
        source = source_of(message, merge=len(parents.split()) > 1)
        if parents.split() and source is not None:
            text = pr_message(message) if len(parents.split()) > 1 else message
            commits.append(Commit(sha, parents.split()[0], author, text, position, source))
    return commits


def candidates(commits: Sequence[Commit]) -> list[Commit]:
    """Commits whose author is a person and whose cleaned message is descriptive."""
    return [c for c in commits if not is_bot(c.author) and is_descriptive(clean_message(c.message))]


def mine(root: Path, head: str, count: int, seed: int, window: int) -> list[Task]:
    """Up to ``count`` tasks, at most ``MAX_PR_SHARE`` of them pull requests unless commits run
    out, in seeded-random order over the candidates of the ``window``."""
    pool = candidates(first_parent_commits(root, head, window))
    random.Random(seed).shuffle(pool)
    prs = _tasks(root, (c for c in pool if c.source == PR))
    commits = _tasks(root, (c for c in pool if c.source == COMMIT))
    found = list(islice(prs, int(count * MAX_PR_SHARE)))
    found += islice(commits, count - len(found))
    found += islice(prs, count - len(found))
    order = {c.sha: i for i, c in enumerate(pool)}
    return sorted(found, key=lambda t: order[t.id])


def is_python3(root: Path, parent: str, truth: Iterable[str]) -> bool:
    """True when every ground-truth file of ``parent`` parses with ``ast``: Python 2 era code is not
    what a task today is about, and no Python 3 tool (the baseline included) can read it."""
    paths = dict.fromkeys(key.split(":", 1)[0] for key in truth)
    return all(_code_tree(git_bytes(root, "show", f"{parent}:{path}")) is not None for path in paths)


def _tasks(root: Path, commits: Iterable[Commit]) -> Iterator[Task]:
    """The commits that make tasks (1..``MAX_FUNCTIONS`` functions, not documentation only)."""
    for commit in commits:
        changes = source_changes(root, commit.parent, commit.sha)
        truth = ground_truth(root, commit.parent, changes)
        if (
            1 <= len(truth) <= MAX_FUNCTIONS
            and changes_code(root, commit.parent, commit.sha, changes)
            and is_python3(root, commit.parent, truth)
        ):
            text = clean_message(commit.message)
            yield Task(
                commit.sha,
                commit.parent,
                commit.position,
                text.splitlines()[0],
                text,
                tuple(truth),
                commit.source,
            )
