from __future__ import annotations

import subprocess
from pathlib import Path

from mnemo_core.engine import Engine
from tests.helpers import commit, make_repo

CLIENT = "def upload(data):\n    return data\n\n\ndef download(url):\n    return url\n"


def history(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "origin", {"client.py": CLIENT}, date="2025-01-01T00:00:00+00:00")
    commit(
        root,
        {"client.py": CLIENT.replace("return data", "return bytes(data)")},
        "Upload bytes",
        date="2025-06-01T00:00:00+00:00",
    )
    return root


def test_recency_comes_from_the_remembered_commits(tmp_path: Path) -> None:
    pack = Engine.open(history(tmp_path)).task("upload data")
    upload = next(s for s in pack.symbols if s.symbol.name == "upload")
    assert upload.components["recency"] == 1.0  # its file changed in the newest commit
    told = [r for r in upload.reasons if r.startswith("in a file changed")]
    assert told and "year" in told[0]  # told against today, not against the newest commit (2025-06)


def test_a_shallow_clone_gets_no_recency_and_says_why(tmp_path: Path) -> None:
    origin = history(tmp_path)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    pack = Engine.open(clone).task("upload data")
    assert all(s.components["recency"] == 0.0 for s in pack.symbols)
    assert not any(
        r.startswith(("in a file changed", "last changed")) for s in pack.symbols for r in s.reasons
    )
    assert any("shallow clone" in note for note in pack.notes)


def test_a_directory_without_git_says_history_is_absent(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    pack = Engine.open(tmp_path, plain=True).task("upload data")
    assert any("no git history" in note and "history channel is empty" in note for note in pack.notes)
