"""The fast path: a change's tests from its diff and the coverage map alone, or a reason to analyse it fully.

``mnemo tests RANGE`` and ``pytest --mnemo-select RANGE`` try this first. It needs no index and no
extraction of either side of the change: it reads the changed line ranges (``git diff -U0``), the
two sides of each changed Python file (parsed with ``ast``) and the map. It answers only where the
map vouches for every changed file, by construction:

- the map was made by a full run, at the change's base commit, or at a commit from which no Python
  file changed up to the base (its lines are the base's lines, and no test changed since);
- every changed file is Python (or documentation, which no test runs), under the size the index reads,
  and its base side parses.

Then, per changed file: a test file (a file the map ran tests of, ``test_*.py``, ``*_test.py``) added
or edited selects the whole file (its new and edited tests among them), a deleted one nothing; a
``conftest.py`` selects the tests under its directory. In any other file each hunk goes to the
innermost function whose lines (decorators included) hold it on both sides, by qualified name
(for an insertion, a function holding a line next to it; blank lines at a hunk's ends left out);
the tests that ran that function's own lines (body, nested functions' bodies left out) are its
tests. A hunk that only removes whole functions: the tests that ran them. A hunk elsewhere
(module-level code, a class body, a new function, lines that end up outside the function) changes
what runs at import, which no test's lines show: the tests that ran any line of the file. A deleted
or moved file: the tests that ran it. A new file: no test ran it yet (the changed lines that use it
select theirs).

Anything else (no map, one of another commit with Python changes since, a partial map, a file that is
not Python, a conftest at the top, the settings naming coverage data) declines with its reason, and
the caller runs the full change analysis. The order is ``covmap.select``'s: the tests that ran a
line the change rewrites first, then the others; within each, the most recent failure first, then
by id.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from mnemo_core.config import load_config
from mnemo_core.covmap.store import CoverageMap, map_path, reading
from mnemo_core.errors import MnemoError
from mnemo_core.vcs.diff import ChangeStatus, FileChange, Hunk, changed_files, files_at
from mnemo_core.vcs.git import decode_path, require_toplevel, run_git
from mnemo_core.vcs.refs import default_base_name, merge_base, resolve_range, resolve_ref

PYTHON_SUFFIXES = (".py", ".pyi")
DOCUMENTATION = ("docs/*", "doc/*", "*.md", "*.rst", "LICENSE*", "AUTHORS*", ".github/*", ".gitignore")
CONFTEST = "conftest.py"
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")  # pytest's default python_files
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
NO_MAP = "no coverage map"  # the one reason to decline that is no news


@dataclass(frozen=True)
class FastAnswer:
    """The fast path's selection (ordered pytest ids), or why it declined (``ids`` None)."""

    ids: tuple[str, ...] | None
    note: str


@dataclass(frozen=True)
class _Function:
    """A function of one side: its qualified name, its lines (decorators included), its own lines."""

    name: str
    first: int
    last: int
    own: frozenset[int]


@dataclass
class _Found:
    """Tests by node id in two tiers (ran a rewritten line, the rest), and test files or directories
    selected whole."""

    lines: set[str] = field(default_factory=set)
    others: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)


class _Declined(Exception):
    """The map cannot vouch for the change (the message says why)."""


def fast_change(path: Path, spec: str | None, base: str | None = None, head: str | None = None) -> FastAnswer:
    """The fast path for a change as ``mnemo tests`` names it: a range (``spec``), else ``base``
    (default: the default branch) and ``head`` (default: HEAD), the base taken as the merge-base of
    the two, as the change pipeline takes it. A repository or commit that cannot be resolved
    declines: the full analysis says what is wrong."""
    try:
        root = require_toplevel(path)
        if spec is not None:
            commits = resolve_range(root, spec)
            old, new = commits.base, commits.head
        else:
            old, new = resolve_ref(root, base or default_base_name(root)), resolve_ref(root, head or "HEAD")
        return fast_tests(root, merge_base(root, old, new), new)
    except MnemoError as exc:
        return FastAnswer(None, str(exc))


def fast_tests(root: Path, base: str, head: str) -> FastAnswer:
    """The tests of the change ``base..head`` (commits) from the map, or why not (see the module)."""
    try:
        return _answer(root, base, head)
    except _Declined as exc:
        return FastAnswer(None, str(exc))


def _answer(root: Path, base: str, head: str) -> FastAnswer:
    path = map_path(root)
    if not path.is_file():
        raise _Declined(NO_MAP)
    if load_config(root).coverage is not None:
        raise _Declined("the settings name coverage data")
    with reading(path) as coverage_map:
        if not coverage_map.complete:
            raise _Declined("the coverage map was not made by a full run")
        commit = coverage_map.commit or ""
        _vouch(root, commit, base)
        changes = changed_files(root, base, head)
        found = _Found()
        test_files = {nodeid.split("::", 1)[0] for nodeid in coverage_map.measured_contexts()}
        _by_file(root, base, head, changes, coverage_map, test_files, found)
        failures = coverage_map.failures()
    ids = _ordered(found, failures)
    note = (
        f"{len(ids)} tests from the coverage map of {commit[:10]} and the changed lines "
        f"of {len(changes)} files (the fast path)"
    )
    return FastAnswer(tuple(ids), note)


def _vouch(root: Path, commit: str, base: str) -> None:
    """Decline unless the map's lines are the base's: recorded there, or no Python file changed since."""
    if commit == base:
        return
    try:
        out = run_git(root, "diff", "--name-only", "-z", "--no-renames", commit, base)
    except MnemoError as exc:
        raise _Declined(f"the coverage map's commit {commit[:10]} cannot be compared with the base") from exc
    python = [decode_path(p) for p in out.split(b"\0") if p and decode_path(p).endswith(PYTHON_SUFFIXES)]
    if python:
        raise _Declined(
            f"the coverage map is of {commit[:10]}, and {len(python)} Python files changed "
            "from there to the base"
        )


def _by_file(
    root: Path,
    base: str,
    head: str,
    changes: list[FileChange],
    coverage_map: CoverageMap,
    test_files: set[str],
    found: _Found,
) -> None:
    modified = [c for c in changes if c.status == ChangeStatus.MODIFIED and c.hunks]
    product = [c for c in modified if not _is_test_file(c.path, test_files)]
    before = files_at(root, base, {c.path for c in product})
    after = files_at(root, head, {c.path for c in product})
    for change in changes:
        path, old = change.path, change.old_path or change.path
        if not path.endswith(PYTHON_SUFFIXES) and not old.endswith(PYTHON_SUFFIXES):
            if not any(fnmatch(path, pattern) for pattern in DOCUMENTATION):
                raise _Declined(f"{path} changed, and it is not Python code: tests may read it")
            continue
        if change.too_large or change.binary:
            raise _Declined(f"{path} is too large or binary to read")
        if PurePosixPath(path).name == CONFTEST or PurePosixPath(old).name == CONFTEST:
            directory = path.rpartition("/")[0]
            if not directory:
                raise _Declined(f"{path} changed: every test")
            found.whole.add(directory)
        elif _is_test_file(old, test_files) or _is_test_file(path, test_files):
            if change.status != ChangeStatus.DELETED:
                found.whole.add(path)
        elif change.status == ChangeStatus.DELETED or old != path:
            found.others |= coverage_map.tests_in_file(old)
        elif change in product:
            _by_hunk(path, before.get(path), after.get(path), change.hunks, coverage_map, found)


def _is_test_file(path: str, test_files: set[str]) -> bool:
    name = PurePosixPath(path).name
    return path in test_files or any(fnmatch(name, pattern) for pattern in TEST_FILE_PATTERNS)


def _by_hunk(
    path: str,
    before: bytes | None,
    after: bytes | None,
    hunks: Iterable[Hunk],
    coverage_map: CoverageMap,
    found: _Found,
) -> None:
    """Each hunk of a modified file: its function's tests, or the file's (see the module)."""
    if before is None or after is None:
        raise _Declined(f"{path} cannot be read on both sides")
    old, new = _functions(path, before, "base"), _functions(path, after, "head")
    old_lines, new_lines = before.splitlines(), after.splitlines()
    by_line = coverage_map.contexts_by_lineno(path)
    for hunk in hunks:
        rewritten = (
            range(hunk.old_start, hunk.old_start + hunk.old_count)
            if hunk.old_count
            else (hunk.old_start, hunk.old_start + 1)
        )
        found.lines |= {t for n in rewritten for t in by_line.get(n, ())}
        trimmed = Hunk(
            *_trimmed(old_lines, hunk.old_start, hunk.old_count),
            *_trimmed(new_lines, hunk.new_start, hunk.new_count),
        )
        homes = _removed(old, trimmed, old_lines) if trimmed.old_count and not trimmed.new_count else []
        if not homes:
            home = _home(old, new, trimmed if trimmed.old_count or trimmed.new_count else hunk)
            homes = [home] if home is not None else []
        if not homes:
            found.others |= coverage_map.tests_in_file(path)
        for function in homes:
            found.others |= {t for n in function.own for t in by_line.get(n, ())}


def _trimmed(lines: list[bytes], start: int, count: int) -> tuple[int, int]:
    """A side of a hunk without its blank lines at either end (which belong to no code); a side of
    blank lines only becomes an insertion point."""
    first, last = start, start + count - 1
    while first <= last and not lines[first - 1].strip():
        first += 1
    while last >= first and not lines[last - 1].strip():
        last -= 1
    return (first, last - first + 1) if first <= last else (start if count == 0 else start - 1, 0)


def _removed(functions: list[_Function], hunk: Hunk, lines: list[bytes]) -> list[_Function]:
    """The whole functions a hunk that adds no code removes, when its removed lines are those
    functions and blank lines between them; else none."""
    first, last = hunk.old_start, hunk.old_start + hunk.old_count - 1
    inside = [f for f in functions if first <= f.first and f.last <= last]
    covered = {n for f in inside for n in range(f.first, f.last + 1)}
    if any(lines[n - 1].strip() for n in range(first, last + 1) if n not in covered):
        return []
    return [f for f in inside if not any(g is not f and g.first <= f.first <= g.last for g in inside)]


def _home(old: list[_Function], new: list[_Function], hunk: Hunk) -> _Function | None:
    """The innermost function of the base side that holds the hunk on both sides (by qualified
    name); None: the hunk changes code outside functions."""
    names = {f.name for f in _holding(new, hunk.new_start, hunk.new_count)}
    holding = [f for f in _holding(old, hunk.old_start, hunk.old_count) if f.name in names]
    return max(holding, key=lambda f: (f.first, -f.last), default=None)


def _holding(functions: list[_Function], start: int, count: int) -> list[_Function]:
    """The functions holding lines ``start`` .. ``start + count - 1``; for none (``count`` 0), those
    holding line ``start`` or the line after it (the change sits between them)."""
    if count:
        return [f for f in functions if f.first <= start and start + count - 1 <= f.last]
    return [f for f in functions if f.first <= start <= f.last or f.first <= start + 1 <= f.last]


def _functions(path: str, content: bytes, side: str) -> list[_Function]:
    """The functions of a file's content: qualified name, lines, own lines (the body, nested
    functions' bodies left out)."""
    try:
        tree = ast.parse(content, path)
    except (SyntaxError, ValueError) as exc:
        raise _Declined(f"{path} does not parse on the {side} side ({exc})") from exc
    found: list[_Function] = []
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            name = f"{prefix}{child.name}" if isinstance(child, (*FUNCTIONS, ast.ClassDef)) else prefix
            if isinstance(child, FUNCTIONS):
                found.append(_function(child, name))
            stack.append((child, f"{name}." if name != prefix else prefix))
    return found


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> _Function:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    last = node.end_lineno or node.lineno
    own = set(range(node.body[0].lineno, last + 1))
    for inner in ast.walk(node):
        if inner is not node and isinstance(inner, FUNCTIONS):
            own -= set(range(inner.body[0].lineno, (inner.end_lineno or inner.lineno) + 1))
    return _Function(name, first, last, frozenset(own))


def _ordered(found: _Found, failures: Mapping[str, int]) -> list[str]:
    """Runnable ids, the tests that ran a rewritten line first; within a tier the most recently
    failed first, then by id. A test of a file (or directory) selected whole is that file's id, at
    its best test's place."""
    last_failed = function_failures(failures)
    tiers = [{_function_id(t) for t in found.lines}]
    tiers.append({_function_id(t) for t in found.others} - tiers[0] | found.whole)
    ordered = [i for tier in tiers for i in sorted(tier, key=lambda i: (-last_failed.get(i, 0), i))]
    shown: list[str] = []
    for test in ordered:
        whole = next((w for w in sorted(found.whole) if test == w or _under(test, w)), None)
        shown.append(whole or test)
    return list(dict.fromkeys(shown))


def _under(test: str, whole: str) -> bool:
    path = test.split("::", 1)[0]
    return path == whole or path.startswith(whole + "/")


def _function_id(nodeid: str) -> str:
    """A test's id without its parameters (``path::test_f[1]`` -> ``path::test_f``)."""
    return nodeid.split("[", 1)[0]


def function_failures(failures: Mapping[str, int]) -> dict[str, int]:
    """When each test function last failed (any of its parameters), by id without parameters."""
    found: dict[str, int] = {}
    for nodeid, when in failures.items():
        key = _function_id(nodeid)
        found[key] = max(found.get(key, 0), when)
    return found
