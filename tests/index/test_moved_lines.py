"""A line added to one function moves every import below it: what other files read of the module is
the same, so only the edited file is resolved again, and the index equals a cold one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import git, make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import index_path
from mnemo_core.index.store.snapshot import snapshot

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "def helper():\n    return 1\n\ndef other():\n    return 2\n",
    "pkg/core.py": (  # an import written below a function, re-exported to the other modules
        "def parse(x):\n    return x\n\nfrom pkg.base import helper as shown\n\n"
        "def run():\n    return shown()\n"
    ),
    "pkg/user.py": "from pkg.core import shown, parse\n\ndef use():\n    return shown() + parse(1)\n",
    "tests/test_user.py": "from pkg.user import use\n\ndef test_use():\n    assert use()\n",
}
MOVED = "def parse(x):\n    x = x + 0\n    return x\n\nfrom pkg.base import helper as shown\n\n"
REBOUND = "def parse(x):\n    return x\n\nfrom pkg.base import other as shown\n\n"
TAIL = "def run():\n    return shown()\n"


def _snapshot(root: Path) -> object:
    with sqlite3.connect(index_path(root)) as conn:
        return snapshot(conn)


def _cold(tmp_path: Path, repo: Path) -> object:
    cold = tmp_path / "cold"
    git(tmp_path, "clone", "-q", str(repo), str(cold))
    (cold / "pkg/core.py").write_text((repo / "pkg/core.py").read_text())
    index_repo(cold)
    return _snapshot(cold)


@pytest.mark.parametrize(
    ("head", "resolved"),
    [(MOVED, "resolved 1 files"), (REBOUND, "resolved 2 files")],
    ids=["moved", "rebound"],
)
def test_a_moved_import_resolves_only_its_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, head: str, resolved: str
) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    index_repo(repo)
    (repo / "pkg/core.py").write_text(head + TAIL)
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(repo)
    assert resolved in caplog.text  # the importer resolves again only when the binding changed
    assert _snapshot(repo).differences(_cold(tmp_path, repo)) == []  # type: ignore[attr-defined]
