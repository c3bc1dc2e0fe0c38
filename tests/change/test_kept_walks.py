"""Walks to tests kept across processes and index generations (``change/kept_walks.py``): a later
process reads a walk back while nothing it read changed, also after an edit elsewhere (a new
generation); a graph change that reaches it (a new caller, an edited caller) makes it walk again."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import zlib
from contextlib import closing
from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.change.kept_walks import FILE_NAME, KeptWalks, Recording
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store

CODE = Path(__file__).resolve().parents[2]  # this checkout's mnemo, for the processes started here
CORE = "def helper(x):\n    return x + 1\n\n\ndef api(x):\n    return helper(x) * 2\n"
OTHER = "def thing():\n    return 3\n"
TESTS = "from app.core import api\n\n\ndef test_api():\n    assert api(1) == 4\n"
OTHER_TESTS = "from app.other import thing\n\n\ndef test_thing():\n    assert thing() == 3\n"
DIRECT = "from app.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n"
ASK = """
import json, sys
from pathlib import Path
from mnemo_core.change.impact import tests_reaching
from mnemo_core.index.store import Store
store = Store.open(Path(sys.argv[1]))
sid = next(s.id for s in store.find_symbols(sys.argv[2]) if s.name == sys.argv[2])
tests = tests_reaching(store, [sid])[sid]
names = {i: s.short_name for i, s in store.symbols_by_ids([*tests.sure, *tests.possible]).items()}
print(json.dumps(sorted(names.get(i, str(i)) for i in tests.sure)))
"""


def _tests_in_a_new_process(root: Path, name: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(CODE), "PYTHONSAFEPATH": "1"}
    out = subprocess.run(
        [sys.executable, "-c", ASK, str(root), name], env=env, capture_output=True, text=True, check=True
    )
    names: list[str] = json.loads(out.stdout)
    return names


FORGED = [[-7, [-7, 1, 0.6, [-7, 0], ["calls"], 0, [], None, 1.0, "exact", []]]]  # a test no walk finds


def _forge(root: Path) -> None:
    """Swap the sure tests of every kept walk for ``FORGED``: what a later process answers then
    shows whether it read the walk back."""
    with closing(sqlite3.connect(root / ".mnemo" / FILE_NAME)) as db, db:
        rows = db.execute("SELECT key, answer FROM walks WHERE key LIKE '%:tests:%'").fetchall()
        assert rows
        for key, answer in rows:
            _, possible = json.loads(zlib.decompress(answer))
            forged = zlib.compress(json.dumps([FORGED, possible]).encode())
            db.execute("UPDATE walks SET answer=? WHERE key=?", (forged, key))


def test_a_walk_is_read_back_until_what_it_read_changes(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            ".gitignore": ".mnemo/\n",
            "app/__init__.py": "",
            "app/core.py": CORE,
            "app/other.py": OTHER,
            "tests/test_core.py": TESTS,
            "tests/test_other.py": OTHER_TESTS,
        },
    )
    index_repo(root)
    assert _tests_in_a_new_process(root, "helper") == ["test_api"]
    _forge(root)
    assert _tests_in_a_new_process(root, "helper") == ["-7"]  # read back, not walked again
    commit(
        root,
        {"app/other.py": OTHER.replace("3", "4"), "tests/test_other.py": OTHER_TESTS.replace("3", "4")},
        "x",
    )
    index_repo(root)  # a new generation; nothing the walk from helper read was rewritten
    assert _tests_in_a_new_process(root, "helper") == ["-7"]
    commit(root, {"tests/test_direct.py": DIRECT}, "a new caller of helper")
    index_repo(root)  # a new edge into a symbol the walk read the callers of
    assert _tests_in_a_new_process(root, "helper") == ["test_api", "test_helper"]
    _forge(root)
    commit(root, {"app/core.py": CORE.replace("* 2", "* 3")}, "an edited caller")
    commit(root, {"tests/test_core.py": TESTS.replace("== 4", "== 6")}, "its test")
    index_repo(root)  # the files the walk read were rewritten
    assert _tests_in_a_new_process(root, "helper") == ["test_api", "test_helper"]


def test_a_walk_that_read_a_rewritten_file_is_not_read_back(tmp_path: Path) -> None:
    """A file read whole (its symbols), with no edge into what the walk read: only the files the
    index rewrote since say that it changed."""
    root = make_repo(tmp_path / "repo", {".gitignore": ".mnemo/\n", "app/settings.py": "LIMIT = 3\n"})
    index_repo(root)
    store = Store.open(root)
    recording = Recording(store)
    [limit] = [s for s in recording.as_store().symbols_in_file("app/settings.py") if s.name == "LIMIT"]
    mark = recording.mark()
    assert mark is not None
    kept = KeptWalks(store, "settings")
    kept.keep(recording, {limit.id: (mark, ["what the walk answered"])})
    assert kept.read([limit.id], str) == {limit.id: "['what the walk answered']"}
    commit(root, {"README.md": "a file the index does not read\n"}, "unindexed")
    index_repo(root)
    assert KeptWalks(store, "settings").read([limit.id], str) == {limit.id: "['what the walk answered']"}
    commit(root, {"app/settings.py": "LIMIT = 4\n"}, "a new limit")
    index_repo(root)
    assert KeptWalks(store, "settings").read([limit.id], str) == {}
