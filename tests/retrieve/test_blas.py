"""numpy's BLAS is kept to one thread in a mnemo process (its products are small, and OpenBLAS's
spinning threads cost more than they save), unless the user chose a number."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_repo

WORKTREE = Path(__file__).resolve().parents[2]
REPORT = """
import os, sys
from mnemo_core.cli import main
code = main(sys.argv[1:])
print("BLAS", "numpy" in sys.modules, os.environ.get("OPENBLAS_NUM_THREADS"))
sys.exit(code)
"""


@pytest.mark.parametrize(("chosen", "expected"), [(None, "1"), ("2", "2")])
def test_why_walks_with_one_blas_thread_unless_the_user_chose(
    tmp_path: Path, chosen: str | None, expected: str
) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"pkg/core.py": "def helper(x):\n    return x\n\ndef run(x):\n    return helper(x)\n"},
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["PYTHONPATH"] = os.pathsep.join([str(WORKTREE), os.environ.get("PYTHONPATH", "")])
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    args = ["why", "helper", "--task", "run the helper", "--repo", str(repo)]  # `why` runs the walk
    run = subprocess.run([sys.executable, "-c", REPORT, *args], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.rsplit("BLAS", 1)[1].split() == ["True", expected]
