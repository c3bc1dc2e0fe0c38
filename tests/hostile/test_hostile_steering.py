"""A repository that controls more than its source files: committed links in and at ``.mnemo``,
terminal escapes in names and subjects, a directory that is no repository, hostile settings and
test names. Nothing outside the repository and mnemo's state directory is written, renamed or
deleted, and no control character reaches the output."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SMALL_APP_FILES, commit, git, make_repo

from mnemo_core.cli import main
from mnemo_core.statedir import private_dir

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` and its bytes (links as their targets' names)."""
    found: dict[str, bytes] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_symlink():
            found[str(path)] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path)] = path.read_bytes()
    return found


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory of the user's outside the repository, with files of its own."""
    directory = tmp_path / "outside"
    (directory / "tree").mkdir(parents=True)
    (directory / "tree" / "keep.txt").write_text("mine\n", encoding="utf-8")
    (directory / "index.db").write_bytes(b"my own file, not an index")
    return directory


def two_commits(root: Path, planted: dict[str, str | bytes]) -> Path:
    make_repo(root, SMALL_APP_FILES)
    for rel, target in planted.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    commit(root, {"app/more.py": "def helper2(x):\n    return x\n"}, "plant links and more code")
    return root


def run_all(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Every verb that writes state: index, task (memory), find at an older commit (``--at`` tree),
    pr twice (the answer kept, then read back)."""
    for argv in (["index", str(root)], ["task", "double a number", "--repo", str(root)]):
        assert main(argv) == 0
    assert main(["find", "helper", "--at", "HEAD~1", "--repo", str(root)]) == 0
    for _ in range(2):
        assert main(["pr", "--base", "HEAD~1", "--repo", str(root)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "link",
    [
        ".mnemo",
        ".mnemo/at",
        ".mnemo/index.db",
        ".mnemo/memory.db",
        ".mnemo/blame",
        ".mnemo/lastchange",
        ".mnemo/extracts.db",
        ".mnemo/answers",
        ".mnemo/commitgraph",
    ],
)
def test_a_committed_link_at_or_under_mnemo_steers_nothing(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    target = outside / "index.db" if link.endswith(".db") else outside
    root = two_commits(tmp_path / "repo", {link: str(target)})
    before = snapshot(outside)
    out = run_all(root, capsys)
    assert "app/core.py" in out
    assert snapshot(outside) == before  # nothing written, renamed or deleted there
    state = private_dir(root)
    assert (state / "index.db").is_file() and (state / "at" / "tree" / "app" / "core.py").is_file()
    assert any((state / "answers").glob("*.json"))  # the change's answer kept in the state directory
    assert any((state / "commitgraph" / "info" / "commit-graphs").glob("*.graph"))  # and git's walks' graph
    [warning] = [line for line in capsys.readouterr().err.splitlines() if "instead" in line] or [""]
    assert warning == "" or str(state) in warning  # said when the private directory was first made


def test_another_sqlite_database_behind_a_link_is_never_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = tmp_path / "theirs.db"
    with sqlite3.connect(theirs) as db:
        db.execute("CREATE TABLE t(x)")
    db.close()
    before = theirs.read_bytes()
    root = make_repo(tmp_path / "repo", SMALL_APP_FILES)
    (root / ".mnemo").mkdir()  # mnemo's own directory, untracked; a link planted in it later
    os.symlink(theirs, root / ".mnemo" / "index.db")
    assert main(["find", "helper", "--repo", str(root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"mnemo: error: {root / '.mnemo' / 'index.db'} is not a regular file (a link")
    assert theirs.read_bytes() == before and not Path(f"{theirs}-wal").exists()


def test_a_commit_holding_mnemo_as_a_file_is_answered_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", {**SMALL_APP_FILES, ".mnemo": "not a directory\n"})
    commit(root, {"app/more.py": "def helper2(x):\n    return x\n"}, "more")
    assert main(["find", "helper", "--at", "HEAD~1", "--repo", str(root)]) == 0
    assert "app/core.py" in capsys.readouterr().out
    assert (root / ".mnemo").read_text(encoding="utf-8") == "not a directory\n"


ESCAPES = "x\x1b[2J\x1b]0;PWNED\x07\u202e"


def test_no_control_character_from_the_repository_reaches_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"app/{ESCAPES}.py"
    root = make_repo(tmp_path / "repo", SMALL_APP_FILES)
    osc52 = "fix \x1b]52;c;cm0gLXJmIH4=\x07 helper\x9b31m"
    commit(root, {name: "def helper_double(x):\n    return x * 2\n"}, osc52)
    runs = (
        ["find", "helper_double"],
        ["history", "helper_double"],
        ["task", "fix helper double"],
        ["task", "fix helper double", "--format", "json"],
        ["pr", "--base", "HEAD~1"],
        ["tests", "--base", "HEAD~1", "--format", "list"],
    )
    for argv in runs:
        assert main([*argv, "--repo", str(root)]) in (0, 5)
        out, err = capsys.readouterr()
        assert not CONTROL.search(out.replace("\n", "").replace("\t", "")), argv
        assert not CONTROL.search(err.replace("\n", "")), argv
    assert main(["find", "helper_double", "--format", "json", "--repo", str(root)]) == 0
    assert name in capsys.readouterr().out.encode().decode("unicode_escape")  # JSON keeps it exactly


def test_a_plain_directory_is_refused_unless_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    make_repo(plain / "nested", SMALL_APP_FILES)  # a repository below it is not a reason to walk it
    (plain / "notes.py").write_text("def helper_note():\n    return 1\n", encoding="utf-8")
    for argv in (["task", "helper", "--repo", str(plain)], ["index", str(plain)]):
        assert main(argv) == 1
        [line] = capsys.readouterr().err.splitlines()
        assert "is not inside a git work tree" in line and "mnemo index --plain" in line
    assert not (plain / ".mnemo").exists()
    assert main(["index", "--plain", str(plain)]) == 0
    capsys.readouterr()
    assert main(["find", "helper_note", "--repo", str(plain)]) == 0  # indexed deliberately before
    assert "notes.py" in capsys.readouterr().out


def test_the_mcp_server_refuses_a_plain_directory(tmp_path: Path) -> None:
    server = Path(sys.executable).parent / "mnemo-mcp"
    proc = subprocess.run([str(server)], cwd=tmp_path, capture_output=True, text=True, timeout=60, input="")
    assert proc.returncode == 1 and "is not inside a git work tree" in proc.stderr
    assert not (tmp_path / ".mnemo").exists()


def test_settings_outside_the_repository_and_huge_values_are_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", SMALL_APP_FILES)
    secret = tmp_path / "secret.toml"
    secret.write_text('fail_on = "low"\n', encoding="utf-8")
    os.symlink(secret, root / "mnemo.toml")
    assert main(["pr", "--base", "HEAD", "--repo", str(root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "mnemo.toml: refused (outside the repository)" in line
    (root / "mnemo.toml").unlink()
    huge = "x" * 500_000
    unknown = "".join(f"k{i} = 1\n" for i in range(20_000))
    (root / "mnemo.toml").write_text(f'fail_on = "{huge}"\n{unknown}', encoding="utf-8")
    assert main(["pr", "--base", "HEAD", "--repo", str(root)]) == 1
    err = capsys.readouterr().err
    assert len(err) < 2_000 and err.count("\n") <= 2
    (root / "mnemo.toml").write_text(unknown, encoding="utf-8")
    assert main(["pr", "--base", "HEAD", "--repo", str(root)]) == 0
    err = capsys.readouterr().err
    assert err.count("unknown settings ignored") == 1 and "and 19995 more" in err and len(err) < 1_000


def test_mnemo_tests_output_is_safe_for_a_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path / "repo", SMALL_APP_FILES)
    spaced = "tests/test_core --collect-only x.py"
    git(root, "mv", "tests/test_core.py", spaced)
    commit(root, {}, "a test file with spaces in its name")
    commit(root, {"app/core.py": SMALL_APP_FILES["app/core.py"].replace("x * 2", "x + x")}, "change helper")
    assert main(["tests", "--base", "HEAD~1", "--repo", str(root)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "would not survive `$(mnemo tests)`" in line and "--output FILE" in line
    selection = tmp_path / "selection.txt"
    assert main(["tests", "--base", "HEAD~1", "--output", str(selection), "--repo", str(root)]) == 0
    assert capsys.readouterr().out == ""
    assert selection.read_text(encoding="utf-8").splitlines() == [
        f"{spaced}::test_main",
        f"{spaced}::test_box",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"@{selection}"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert proc.returncode == 0 and "2 passed" in proc.stdout


# In the child: no file may grow past 4 KB (EFBIG, refused as a full disk would), SIGXFSZ ignored.
NO_ROOM = ("bash", "-c", 'trap "" XFSZ; ulimit -f 4; exec "$@"', "no-room")


def test_no_room_to_write_the_state_answers_read_only_and_keeps_the_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", SMALL_APP_FILES)
    assert main(["index", str(root)]) == 0
    index = root / ".mnemo" / "index.db"
    before = index.read_bytes()
    (root / "app" / "late.py").write_text("def late_helper():\n    return 1\n", encoding="utf-8")
    mnemo = str(Path(sys.executable).parent / "mnemo")
    runs = {("find", "helper"): 0, ("index",): 1, ("find", "helper", "--at", "HEAD"): 1}
    for argv, code in runs.items():
        proc = subprocess.run([*NO_ROOM, mnemo, *argv], cwd=root, capture_output=True, text=True, timeout=120)
        assert proc.returncode == code, (argv, proc.stderr)
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
        if code:
            assert proc.stderr.splitlines()[-1].startswith("mnemo: error: "), proc.stderr
        else:
            assert "app/core.py" in proc.stdout and "answering from the index as it is" in proc.stderr
    assert index.read_bytes() == before and not list(index.parent.glob("index.db.damaged-*"))
