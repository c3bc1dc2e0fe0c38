"""Work per file and per change is bounded by size limits, not by what a repository holds: a file
nested thousands deep is indexed in seconds (around its nesting, with a note), and a change adding
a file far beyond the index's size limit is analysed without reading it, saying it was skipped."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path

import pytest
from helpers import commit, git, make_repo
from hostile_repos import BIN, mnemo_env, run_in

from mnemo_core.fsread import MAX_SOURCE_BYTES
from mnemo_core.index.budget import MAX_QUERY_DEPTH

NESTED_DEEP = 5000  # f(f(f(...))): 47 s to index before the bounds
INDEX_SECONDS = 10  # the floor for indexing that repository (about 2 s here)
DEEP_NOTE = f"deep.py (nested deeper than {MAX_QUERY_DEPTH} levels)"
GENERATED_MB = 200  # the generated file: 123 s and 3.9 GB before, SIGSEGV under 2 GB
MEMORY_LIMIT = 2_000_000_000  # bytes of address space the change analysis runs in
CHANGE_SECONDS = 10  # the floor for analysing that change (about 3 s here)


def deep_repo(tmp_path: Path) -> Path:
    deep = "x = " + "f(\n" * NESTED_DEEP + "1" + ")" * NESTED_DEEP + "\n"
    return make_repo(tmp_path / "repo", {"deep.py": deep, "app.py": "def hello():\n    return 1\n"})


def test_a_file_nested_thousands_deep_is_indexed_quickly_and_said_to_be_in_part(tmp_path: Path) -> None:
    root = deep_repo(tmp_path)
    started = time.monotonic()
    done = run_in(root, str(BIN / "mnemo"), "index")
    assert time.monotonic() - started < INDEX_SECONDS
    assert done.returncode == 0, done.stderr
    assert f"1 in part: {DEEP_NOTE}" in done.stdout
    assert "app.py:1  function  hello" in run_in(root, str(BIN / "mnemo"), "find", "hello").stdout
    stats = run_in(root, str(BIN / "mnemo"), "stats")
    assert f"in part     1: {DEEP_NOTE}" in stats.stdout
    shown = json.loads(run_in(root, str(BIN / "mnemo"), "stats", "--format", "json").stdout)
    assert shown["partial"] == {"deep.py": f"nested deeper than {MAX_QUERY_DEPTH} levels"}


def test_the_note_lasts_until_the_file_is_read_again(tmp_path: Path) -> None:
    root = deep_repo(tmp_path)
    assert run_in(root, str(BIN / "mnemo"), "index").returncode == 0
    commit(root, {"app.py": "def hello():\n    return 2\n"}, "an unrelated change")
    run_in(root, str(BIN / "mnemo"), "index")
    assert DEEP_NOTE in run_in(root, str(BIN / "mnemo"), "stats").stdout  # not re-read: still in part
    commit(root, {"deep.py": "x = f(1)\n"}, "flattened")
    again = json.loads(run_in(root, str(BIN / "mnemo"), "index", "--format", "json").stdout)
    assert again["partial"] == {}
    assert "in part" not in run_in(root, str(BIN / "mnemo"), "stats").stdout


def generated(size: int) -> str:
    """A generated module of about ``size`` bytes: one small function after another."""
    line = "def f(x):\n    return x + 1\n\n\n"
    return line * (size // len(line) + 1)


def with_large_file(tmp_path: Path, size: int) -> tuple[Path, str]:
    """A repository whose last commit edits a tested function and adds ``gen.py`` of ``size`` bytes."""
    test = "from app import hello\n\n\ndef test_hello():\n    hello()\n"
    root = make_repo(tmp_path / "repo", {"app.py": "def hello():\n    return 1\n", "tests/test_app.py": test})
    base = git(root, "rev-parse", "HEAD").strip()
    commit(root, {"app.py": "def hello():\n    return 2\n", "gen.py": generated(size)}, "generated")
    return root, base


def test_a_change_adding_a_file_over_the_limit_is_analysed_without_it(tmp_path: Path) -> None:
    root, base = with_large_file(tmp_path, MAX_SOURCE_BYTES + 100_000)
    note = "skipped gen.py (1.1 MB): files over 1 MB are not read"
    shown = run_in(root, str(BIN / "mnemo"), "pr", f"{base}..HEAD")
    assert shown.returncode == 0, shown.stderr
    assert f"note: {note}" in shown.stdout
    assert "app.py:1  hello" in shown.stdout and "gen.py:" not in shown.stdout
    answer = json.loads(run_in(root, str(BIN / "mnemo"), "pr", f"{base}..HEAD", "--format", "json").stdout)
    assert note in answer["notes"]
    assert "added gen.py (not read: over the 1 MB mnemo reads of a file)" in answer["impact"]["changed_files"]
    comment = run_in(root, str(BIN / "mnemo"), "pr", f"{base}..HEAD", "--format", "markdown").stdout
    assert f"> {note}" in comment
    tests = run_in(root, str(BIN / "mnemo"), "tests", f"{base}..HEAD")
    assert "tests/test_app.py" in tests.stdout
    assert f"mnemo: {note}" in tests.stderr


def limited(size: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


@pytest.mark.slow
def test_a_generated_file_of_200_mb_is_skipped_quickly_in_2_gb(tmp_path: Path) -> None:
    root, base = with_large_file(tmp_path, GENERATED_MB * 1_000_000)
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "mnemo"), "pr", f"{base}..HEAD"],
        cwd=root,
        env=mnemo_env(),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: limited(MEMORY_LIMIT),
        check=False,
    )
    assert time.monotonic() - started < CHANGE_SECONDS
    assert done.returncode == 0, done.stderr
    assert f"note: skipped gen.py ({GENERATED_MB:.1f} MB): files over 1 MB are not read" in done.stdout
