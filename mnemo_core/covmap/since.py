"""Tests the coverage map has not seen as they are: added or edited since its commit.

A stale map (recorded some commits before the change's base) never saw the tests written since run.
They are the map's blind spot, so ``covmap.select`` adds them, but only where the map says they may
matter, and only those that really are new:

- a test whose definition (its decorators and body, as Python parses them: formatting, comments
  and the rest of its file left out) is the same as a test of the same qualified name at the map's
  commit, in its file then or in another test file changed since (moved between files, a file
  renamed or split), and that the map's own ids lead to, is no news: the map saw it run;
- the others count as added or edited since. One is selected when its class, or for a function
  outside classes its file's other such functions (its group: the peers ``change.coverage`` uses
  for tests the data never saw), has a test the change reaches by the map, its rules or the static
  graph: a test edited since (the map saw its old self run, and what it ran did not reach the
  change), or added beside tests the map saw run. A test added in a group the map saw no test of
  (a class new since) is selected in a test file the change reaches: nothing says what it runs.
  In a test file of which the map saw no test (all of it new), every one. Elsewhere they are the
  static graph's to reach, on a path the map agrees with (``change.coverage``'s ``CO_RUN``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mnemo_core.change.diffmap import changed_symbols
from mnemo_core.covmap.store import CoverageMap
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol
from mnemo_core.vcs.diff import ChangeStatus, FileChange, changed_files, files_at
from mnemo_core.vcs.refs import Snapshot

PYTHON_SUFFIXES = (".py", ".pyi")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
TestIds = Callable[[Iterable[str]], set[int]]  # node ids -> the test symbols of the index they name


@dataclass(frozen=True)
class Since:
    """The tests added since the map's commit, and those edited since, that the selection takes."""

    added: list[Symbol] = field(default_factory=list)
    edited: list[Symbol] = field(default_factory=list)


def tests_since(
    store: Store,
    root: Path,
    coverage_map: CoverageMap,
    ids: TestIds,
    sides: tuple[str, str | Snapshot],
    reached: set[tuple[str, str]],
) -> Since:
    """The tests added or edited from the map's commit to the change's side (``sides``: the map's
    commit, the new side) that the selection takes (see the module); ``reached``: the groups of
    tests (``test_group``) the selection already has a test of."""
    commit, head = sides
    since = [c for c in changed_files(root, commit, head) if c.path.endswith(PYTHON_SUFFIXES)]
    with_tests = [c for c in since if any(s.is_test_case for s in store.symbols_in_file(c.path))]
    if not with_tests:
        return Since()
    edited, _ = changed_symbols(root, with_tests, commit, head)
    keys = [(c.path, c.name, c.kind) for c in edited if c.is_test_case and c.status != "deleted"]
    tests = list(store.symbols_by_keys(keys).values())
    seen = _unchanged(root, since, (commit, head), tests, coverage_map, ids)
    new = [t for t in tests if t.id not in seen]
    seen_files = {t.path for t in tests if t.id in seen}
    seen_files |= {c.path for c in with_tests if c.status != ChangeStatus.ADDED}
    added = {(c.path, c.name) for c in edited if c.status == "added"}
    files = {path for path, _ in reached}
    known = _groups_seen(store, coverage_map, ids) if any((t.path, t.name) in added for t in new) else set()
    taken = [
        t
        for t in new
        if t.path not in seen_files
        or test_group(t) in reached
        or ((t.path, t.name) in added and t.path in files and test_group(t) not in known)
    ]
    return Since(
        [t for t in taken if (t.path, t.name) in added], [t for t in taken if (t.path, t.name) not in added]
    )


def _groups_seen(store: Store, coverage_map: CoverageMap, ids: TestIds) -> set[tuple[str, str]]:
    """The groups (``test_group``) of the tests the map saw run."""
    seen = store.symbols_by_ids(ids(coverage_map.measured_contexts())).values()
    return {test_group(s) for s in seen if s.is_test_case}


def test_group(test: Symbol) -> tuple[str, str]:
    """A test's peers: its file and class (``""`` for a function outside any class)."""
    return test.path, test.name.rpartition(".")[0]


def _unchanged(
    root: Path,
    since: list[FileChange],
    sides: tuple[str, str | Snapshot],
    tests: list[Symbol],
    coverage_map: CoverageMap,
    ids: TestIds,
) -> set[int]:
    """Of ``tests``, those defined as a namesake was at the map's commit in a file changed since,
    and whose id in the map leads to them (the map saw them run as they are)."""
    commit, head = sides
    then = files_at(root, commit, {c.old_path or c.path for c in since if c.status != ChangeStatus.ADDED})
    before: dict[str, set[str]] = {}
    for content in then.values():
        for name, dumps in _definitions(content).items():
            before.setdefault(name, set()).update(dumps)
    now = {p: _definitions(c) for p, c in files_at(root, head, {t.path for t in tests}).items()}
    alike = [t for t in tests if now.get(t.path, {}).get(t.name, set()) & before.get(t.name, set())]
    if not alike:
        return set()
    names = {t.name.replace(".", "::") for t in alike}
    contexts = [c for c in coverage_map.measured_contexts() if _function_of(c) in names]
    found = ids(contexts)
    return {t.id for t in alike if t.id in found}


def _function_of(nodeid: str) -> str:
    """``path::Class::test[param]`` -> ``Class::test``."""
    return nodeid.split("[", 1)[0].partition("::")[2]


def _definitions(content: bytes | None) -> Mapping[str, set[str]]:
    """Each qualified name of a file's functions and classes -> its definitions as parsed, without
    positions (empty when the file is missing or does not parse)."""
    if content is None:
        return {}
    try:
        tree = ast.parse(content)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, set[str]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, _DEFINITIONS):
                name = f"{prefix}{node.name}"
                found.setdefault(name, set()).add(ast.dump(node))
                walk(node.body, f"{name}.")

    walk(tree.body, "")
    return found
