"""Work per file and per change is bounded by size limits, not by what a repository holds: a file
nested thousands deep is indexed in seconds (around its nesting, with a note), and a change adding
a file far beyond the index's size limit is analysed without reading it, saying it was skipped."""

from __future__ import annotations

import json
import time
from pathlib import Path

from helpers import commit, make_repo
from hostile_repos import BIN, run_in

from mnemo_core.index.budget import MAX_QUERY_DEPTH

NESTED_DEEP = 5000  # f(f(f(...))): 47 s to index before the bounds
INDEX_SECONDS = 10  # the floor for indexing that repository (about 2 s here)
DEEP_NOTE = f"deep.py (nested deeper than {MAX_QUERY_DEPTH} levels)"


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
