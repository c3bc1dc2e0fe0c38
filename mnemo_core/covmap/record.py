"""Recording the coverage map: the lines each test runs, through coverage.py's per-test contexts.

coverage.py measures the repository's own files (those under its root, outside virtual
environments and mnemo's state) from the start of the session; before each test the context is
switched to the test's node id, and back to none after it, so its setup, call and teardown (its
fixtures included) are its lines, and what runs at collection (imports, module-level code) is no
test's. At the end the per-line contexts are turned into per-test line sets.

A map is numbered at one commit. Lines that ran in a file whose content differs from that commit's
(a working tree with edits, or a run recorded at another commit being merged into the map) are
carried over: the two versions are matched line by line (``difflib``), a line in an unchanged
stretch takes its number at the commit, a line the commit does not have is dropped (its file stays
in the test's row, for the file-level evidence).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo_core.covmap.store import RecordedTest
from mnemo_core.statedir import STATE_NAME
from mnemo_core.vcs.diff import files_at
from mnemo_core.vcs.refs import Snapshot

if TYPE_CHECKING:
    import coverage

SKIPPED_PARTS = ("site-packages", "dist-packages", STATE_NAME, ".tox", ".nox")  # not the repository's code


class Collector:
    """coverage.py measuring the repository at ``root``, one context per test."""

    def __init__(self, root: Path) -> None:
        import coverage  # only when recording: a plain pytest run never loads it through mnemo

        self.root = root.resolve()
        omit = [f"*/{part}/*" for part in SKIPPED_PARTS]
        self._cov: coverage.Coverage = coverage.Coverage(
            data_file=None, include=[f"{self.root}{os.sep}*"], omit=omit, config_file=False
        )
        self._cov.start()

    def switch(self, nodeid: str | None) -> None:
        """Lines run from now on are ``nodeid``'s (None: no test's)."""
        self._cov.switch_context(nodeid or "")

    def stop(self) -> dict[str, dict[str, frozenset[int]]]:
        """Stop measuring; each test's lines by repository-relative path."""
        self._cov.stop()
        data = self._cov.get_data()
        found: dict[str, dict[str, set[int]]] = {}
        for name in data.measured_files():
            path = self._relative(name)
            if path is None:
                continue
            for line, contexts in data.contexts_by_lineno(name).items():
                for context in contexts:
                    if context:
                        found.setdefault(context, {}).setdefault(path, set()).add(line)
        return {test: {p: frozenset(ls) for p, ls in files.items()} for test, files in found.items()}

    def _relative(self, name: str) -> str | None:
        try:
            return Path(name).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None


def at_commit(
    root: Path, commit: str, runs: Iterable[RecordedTest], source: str | Snapshot = Snapshot.WORKTREE
) -> list[RecordedTest]:
    """``runs`` (lines numbered as the files are at ``source``) numbered as at ``commit``."""
    runs = list(runs)
    paths = {p for r in runs for p in r.files}
    then, now = files_at(root, commit, paths), files_at(root, source, paths)
    moves = {p: line_map(now.get(p), then.get(p)) for p in paths if now.get(p) != then.get(p)}
    if not moves:
        return runs
    return [replace(r, files=_moved(r.files, moves)) for r in runs]


def _moved(
    files: Mapping[str, frozenset[int]], moves: Mapping[str, Mapping[int, int]]
) -> dict[str, frozenset[int]]:
    return {
        p: frozenset(moves[p][n] for n in lines if n in moves[p]) if p in moves else lines
        for p, lines in files.items()
    }


def line_map(old: bytes | None, new: bytes | None) -> dict[int, int]:
    """Line numbers of ``old`` -> those of the same lines in ``new``, where the two match."""
    if old is None or new is None:
        return {}
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {a + 1 + k: b + 1 + k for a, b, size in matcher.get_matching_blocks() for k in range(size)}


def merge_maps(root: Path, sources: Iterable[Path], into: Path) -> tuple[str, int]:
    """Merge the maps ``sources`` (CI shards, jobs of a matrix) into the map ``into``, numbered at its
    commit (else the first source's): each test keeps its most recently recorded row. Returns the
    commit and how many tests were written."""
    from mnemo_core.covmap.store import open_map, reading

    written = 0
    with open_map(into) as target:
        for source in sources:
            if source.resolve() == into.resolve():
                continue
            with reading(source) as other:
                runs, commit = list(other.runs()), other.commit or ""
            at = target.commit or commit
            if commit != at:
                runs = at_commit(root, at, runs, commit)
            written += target.write(at, runs, replace=False, newer_only=True)
        return target.commit or "", written
