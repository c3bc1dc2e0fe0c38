"""Files that are no regular files inside the repository are never read: a committed symlink to
``/dev/zero`` (reading it would fill memory), one to a file outside the repository (its text must
never be printed), a FIFO in a plain directory (reading it would block forever)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers import make_repo
from hostile_repos import BIN, Hostile, run_in

from mnemo_core.cli import main
from mnemo_core.fsread import Refused, read_inside

SECRET = "def stolen_credentials():\n    return 'TOPSECRET-7f3a'\n"
MAX_RSS_MB = 400  # mnemo indexing this repository needs about 100 MB; reading /dev/zero needs it all
MEASURED = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=60)\n"
    "sys.stdout.write(done.stdout)\nsys.stderr.write(done.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, file=sys.stderr)\n"
    "sys.exit(done.returncode)\n"
)


def with_links(tmp_path: Path) -> Path:
    """A repository that commits a symlink to /dev/zero and one to a secret outside it."""
    secret = tmp_path / "outside" / "secret.py"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    root = tmp_path / "repo"
    root.mkdir()
    os.symlink("/dev/zero", root / "zero.py")
    os.symlink(secret, root / "leak.py")
    os.symlink("app.py", root / "alias.py")  # inside: may be followed
    return make_repo(root, {"app.py": "def inside():\n    return 1\n"})


def test_symlinks_out_of_the_repository_are_never_read(tmp_path: Path) -> None:
    root = with_links(tmp_path)
    done = run_in(root, sys.executable, "-c", MEASURED, str(BIN / "mnemo"), "index")
    assert done.returncode == 0, done.stderr
    assert "skipped 2 outside the repository" in done.stdout
    assert int(done.stderr.splitlines()[-1]) < MAX_RSS_MB
    for args in (
        ["find", "stolen_credentials"],
        ["find", "*"],
        ["task", "return the credentials"],
        ["pr", "--base", "HEAD", "--worktree"],
        ["files", "leak.py"],
    ):
        shown = run_in(root, str(BIN / "mnemo"), *args, "--format", "json")
        assert "TOPSECRET" not in shown.stdout + shown.stderr, args
        assert '"path": "leak.py"' not in shown.stdout, args
    assert "inside" in run_in(root, str(BIN / "mnemo"), "find", "inside").stdout


def test_a_fifo_in_a_walked_directory_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "app.py").write_text("def ok():\n    return 1\n", encoding="utf-8")
    os.mkfifo(root / "pipe.py")
    done = run_in(root, str(BIN / "mnemo"), "index", "--plain", timeout=30)  # without the fix: hangs
    assert done.returncode == 0, done.stderr
    assert "1 parsed" in done.stdout and "skipped 1 not a regular file" in done.stdout
    assert main(["find", "ok", "--repo", str(root)]) == 0 and "app.py:1" in capsys.readouterr().out


def test_reads_are_bounded_by_what_is_read(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 1000)
    assert len(read_inside(tmp_path, "big.py", 6000).data) == 6000
    with pytest.raises(Refused, match="too large"):
        read_inside(tmp_path, "big.py", 5999)
    os.mkfifo(tmp_path / "fifo.py")
    with pytest.raises(Refused, match="not a regular file"):
        read_inside(tmp_path, "fifo.py")
    with pytest.raises(Refused, match="outside the repository"):
        read_inside(tmp_path, "../x.py")


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.py", "no/such.py"])
def test_files_outside_the_repository_or_missing_are_one_line(
    hostile: Hostile, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    assert main(["files", path, "--repo", str(hostile.root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("mnemo: error: ")
    assert "not inside the repository" in line or "no such file" in line
