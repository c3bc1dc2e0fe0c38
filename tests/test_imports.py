"""Each verb imports only what it needs: a fresh interpreter runs the verb, then lists the modules
of mnemo it loaded (``mnemo --version`` and ``mnemo task`` load no change analysis)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import CART_FILES, make_repo

ROOT = Path(__file__).resolve().parents[1]
# runs the verb through ``main`` in the child, then prints the mnemo modules it loaded as JSON
_PROBE = """
import contextlib, io, json, sys
from mnemo_core.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("mnemo_core"))))
"""
CHANGE_ANALYSIS = ("mnemo_core.change.", "mnemo_core.vcs.blame")


def _loaded(*argv: str) -> list[str]:
    """The ``mnemo_core`` modules a fresh interpreter has loaded after running ``mnemo argv``."""
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(ROOT)},
    )
    modules: list[str] = json.loads(run.stdout.splitlines()[-1])
    return modules


def test_version_loads_no_engine() -> None:
    loaded = _loaded("--version")
    assert "mnemo_core.cli" in loaded
    engine = ("mnemo_core.engine", "mnemo_core.index", *CHANGE_ANALYSIS)
    assert not [m for m in loaded if m.startswith(engine)]


def test_task_loads_no_change_analysis(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", CART_FILES)
    loaded = _loaded("task", "add an item to the cart", "--repo", str(repo), "--no-memory")
    assert "mnemo_core.retrieve.task" in loaded  # the task ran
    assert not [m for m in loaded if m.startswith(CHANGE_ANALYSIS)]


def test_pr_loads_change_analysis(tmp_path: Path) -> None:
    """The probe sees a verb's imports: ``mnemo pr`` does load the change analysis."""
    repo = make_repo(tmp_path / "repo", CART_FILES)
    loaded = _loaded("pr", "--worktree", "--repo", str(repo), "--no-memory")
    assert "mnemo_core.change.impact" in loaded
