"""Damaged state and interrupted runs: a damaged index is moved aside and rebuilt with one warning,
a read-only one answers read-only and is never deleted, Ctrl-C is one line and exit 130, and the
parse workers die with ``mnemo index`` when it is killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile_repos import BIN, Hostile, mnemo_env

from mnemo_core.cli import main
from mnemo_core.index.store import index_path

PAGE = 4096


def damage(db: Path, start: int, length: int | None = None) -> None:
    """Overwrite ``length`` bytes (to the end by default) of ``db`` from ``start`` with garbage."""
    size = db.stat().st_size
    with open(db, "r+b") as handle:
        handle.seek(start)
        handle.write(b"\xde\xad\xbe\xef" * ((length or size - start) // 4))


@pytest.mark.parametrize(
    ("start", "length"),
    [(0, 100), (PAGE, None), (None, 2 * PAGE)],
    ids=["not a database", "pages after the first", "the middle"],
)
def test_a_damaged_index_is_moved_aside_and_rebuilt(
    hostile: Hostile, capsys: pytest.CaptureFixture[str], start: int | None, length: int | None
) -> None:
    assert main(["index", "--no-vectors", str(hostile.root)]) == 0  # vectors: not what is damaged here
    db = index_path(hostile.root)
    damage(db, start if start is not None else db.stat().st_size // PAGE // 2 * PAGE, length)
    capsys.readouterr()
    for args in (["find", "step3"], ["task", "pipeline step"], ["index", "--full", "--no-vectors"]):
        repo = ["--repo", str(hostile.root)] if args[0] != "index" else [str(hostile.root)]
        assert main([*args, *repo]) == 0
    out, err = capsys.readouterr()
    assert "app/mod3.py" in out
    [line] = err.splitlines()  # one warning, from whichever command met the damage first
    assert line.startswith(f"mnemo: the index {db} is damaged (") and "moved it to index.db.damaged-" in line
    assert len(list(db.parent.glob("index.db.damaged-*"))) == 1


@contextmanager
def immutable(*paths: Path) -> Iterator[None]:
    """``chattr +i``: read-only even for root (plain permissions are not, and these tests may run as root)."""
    done: list[Path] = []
    try:
        for path in paths:
            if subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode:
                pytest.skip("chattr +i is not available here (no e2fsprogs, or a file system without it)")
            done.append(path)
        yield
    finally:
        for path in done:
            subprocess.run(["chattr", "-i", str(path)], check=False)


@pytest.mark.parametrize("what", ["directory", "file"])
def test_a_read_only_index_answers_and_is_kept(
    hostile: Hostile, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    assert main(["index", str(hostile.root)]) == 0
    db = index_path(hostile.root)
    before = db.read_bytes()
    capsys.readouterr()
    with immutable(db.parent) if what == "directory" else immutable(db):
        assert main(["find", "step3", "--repo", str(hostile.root)]) == 0
        out, err = capsys.readouterr()
        assert "app/mod3.py" in out
        assert err.splitlines() == [
            f"mnemo: the index {db} cannot be written (read-only); answering from it "
            "as it is, which may be stale"
        ]
        assert main(["index", str(hostile.root)]) == 1
        assert capsys.readouterr().err == f"mnemo: error: the index {db} cannot be written (read-only)\n"
        assert db.read_bytes() == before


def big_walked_repository(root: Path, files: int = 800, first: int = 0) -> Path:
    """Enough code that ``mnemo index`` runs for seconds (a plain directory: no git to wait for)."""
    root.mkdir(exist_ok=True)
    body = "".join(f"def f{j}(x):\n    return g{j}(x) + h(x)\n\n\n" for j in range(60))
    for i in range(first, first + files):
        (root / f"m{i}.py").write_text(body, encoding="utf-8")
    return root


def children(pid: int) -> list[int]:
    """The other processes of ``pid``'s process group (its workers, wherever they were started from)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == pid:
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[2]) == pid:  # fields after the name: state, ppid, pgrp
            found.append(int(entry.name))
    return found


def indexing(root: Path, attempts: int = 3) -> tuple[subprocess.Popen[str], list[int]]:
    """``mnemo index`` from nothing, in its own process group, once its parse workers run. On a busy
    machine the index may be done before this process sees its workers: then the repository grows
    and the index starts again."""
    for attempt in range(attempts):
        shutil.rmtree(root / ".mnemo", ignore_errors=True)
        process = subprocess.Popen(
            [str(BIN / "mnemo"), "index", "--plain"],
            cwd=root,
            env=mnemo_env(),
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while len(workers := children(process.pid)) < 2 and process.poll() is None:
            assert time.monotonic() < deadline, "the parse workers never started"
            time.sleep(0.05)
        if len(workers) >= 2:
            return process, workers
        process.communicate(timeout=30)
        big_walked_repository(root, 800 * 2 ** (attempt + 1), first=len(list(root.glob("m*.py"))))
    pytest.fail(f"mnemo index finished {attempts} times before its parse workers were seen")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_is_one_line_and_kill_leaves_no_workers(tmp_path: Path) -> None:
    root = big_walked_repository(tmp_path / "big")
    process, workers = indexing(root)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    err = process.communicate(timeout=30)[1]
    assert (process.returncode, err) == (130, "mnemo: interrupted\n")
    process, workers = indexing(root)
    process.kill()
    process.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while alive := [w for w in workers if Path(f"/proc/{w}").exists() and "zombie" not in _state(w)]:
        assert time.monotonic() < deadline, f"workers {alive} outlived their parent"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


def test_a_read_only_index_directory_without_an_index_is_one_line(
    hostile: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = index_path(hostile.root).parent
    directory.mkdir()
    (directory / ".gitignore").write_text("*\n", encoding="utf-8")
    with immutable(directory):
        assert main(["find", "step3", "--repo", str(hostile.root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"mnemo: error: cannot write {directory / 'index.lock'}: ")
    assert line.endswith(f"Is {directory} writable?")


def test_files_committed_under_mnemo_are_neither_trusted_nor_deleted(
    hostile: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository may commit its own ``.mnemo/graph-*.npz``: the graph cache is named after the
    index's random id, so theirs is never loaded, and it is left where it is."""
    planted = {f"graph-{generation}.npz": b"PK\x03\x04 not a graph" for generation in range(1, 4)}
    planted["graph-none-1.npz"] = b"PK\x03\x04 not a graph either"
    directory = hostile.root / ".mnemo"
    directory.mkdir(exist_ok=True)
    for name, data in planted.items():
        (directory / name).write_bytes(data)
    assert main(["task", "pipeline step", "--repo", str(hostile.root)]) == 0
    assert "app/mod3.py" in capsys.readouterr().out
    assert all((directory / name).read_bytes() == data for name, data in planted.items())
