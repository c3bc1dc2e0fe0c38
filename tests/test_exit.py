"""How the ``mnemo`` program ends (``mnemo_core.cli.run``): its whole output, its exit code, its
index and memory closed, and no interpreter teardown unless a thread still runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import CART_FILES, make_repo

from mnemo_core.statedir import state_dir

ROOT = Path(__file__).resolve().parents[1]
# a child that ends through ``exit_now``: an exit handler, a global whose finaliser only a teardown
# runs, and (with an argument) a thread still running when the main thread is done
_ENDING = """
import atexit, sys, threading, time
from mnemo_core.cli import exit_now

class Torn:
    def __del__(self):
        print("torn down", flush=True)

kept = Torn()
atexit.register(lambda: print("exit handler"))
if sys.argv[1:]:
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread done"))).start()
print("main done")
exit_now(5)
"""


def _mnemo(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mnemo_core.cli", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


def test_a_query_prints_its_whole_answer_and_closes_its_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", CART_FILES)
    done = _mnemo("task", "add an item to the cart", "--repo", str(repo), "--format", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # all of it reached the pipe
    assert "Cart.checkout" in [s["name"] for s in answer["symbols"]]
    state = state_dir(repo)
    assert (state / "memory.db").is_file()  # the task was remembered ...
    left = sorted(p.name for p in state.iterdir() if p.name.endswith(("-wal", "-shm", "-journal")))
    assert left == []  # ... and every SQLite file closed, as a closed connection leaves it


def test_a_failure_keeps_its_exit_code_and_line(tmp_path: Path) -> None:
    done = _mnemo("task", "anything", "--repo", str(tmp_path / "missing"))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"mnemo: error: {tmp_path / 'missing'}: no such directory"]
    usage = _mnemo("task", "anything", "--budget", "0")
    assert usage.returncode == 2


def _ending(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", _ENDING, *args], capture_output=True, text=True, env=env)


def test_exit_now_runs_the_exit_handlers_and_skips_the_teardown() -> None:
    done = _ending()
    assert done.returncode == 5
    assert done.stdout.splitlines() == ["main done", "exit handler"]


def test_exit_now_waits_for_a_running_thread_as_the_interpreter_does() -> None:
    done = _ending("with a thread")
    assert done.returncode == 5
    assert done.stdout.splitlines()[:3] == ["main done", "thread done", "exit handler"]
    assert "torn down" in done.stdout  # the ordinary exit, teardown included
