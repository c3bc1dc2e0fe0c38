"""Each verb imports only what it needs: a fresh interpreter runs the verb, then lists the modules
of mnemo it loaded (``mnemo --version`` and ``mnemo task`` load no change analysis; the pre-commit
hook and ``mnemo pr`` load no coverage reader when there is no coverage data)."""

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
from {entry} import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("mnemo_core") or m == "coverage")))
"""
CHANGE_ANALYSIS = ("mnemo_core.change.", "mnemo_core.vcs.blame")
TASK_NEEDS_NONE = (
    "mnemo_core.commands.change",
    "mnemo_core.commands.index",
    "mnemo_core.insight",
    "mnemo_core.symbol_history",
    "mnemo_core.vcs.linelog",
    "mnemo_core.index.languages.go",
    "mnemo_core.index.languages.rust",
)
# the coverage reader (coverage.py's API, the measured commit's extraction) and the map's selection
COVERAGE_CODE = ("mnemo_core.change.coverage", "mnemo_core.covmap.select", "mnemo_core.covmap.record")


def _loaded(*argv: str, entry: str = "mnemo_core.cli") -> list[str]:
    """The ``mnemo_core`` modules (and coverage.py) a fresh interpreter has loaded after running
    ``entry``'s ``main(argv)``: by default ``mnemo argv``."""
    run = subprocess.run(
        [sys.executable, "-c", _PROBE.format(entry=entry), *argv],
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
    _loaded("index", "--no-vectors", str(repo))  # a warm index, as a query mostly finds it
    loaded = _loaded("task", "add an item to the cart", "--repo", str(repo), "--no-memory")
    assert "mnemo_core.retrieve.task" in loaded  # the task ran
    assert not [m for m in loaded if m.startswith(CHANGE_ANALYSIS)]
    # nor another verb's command, the editor's cards and lenses, a symbol's history, another commit's
    # tree, or the display conventions of languages it did not show
    assert not [m for m in loaded if m.startswith(TASK_NEEDS_NONE)]


def test_pr_loads_change_analysis(tmp_path: Path) -> None:
    """The probe sees a verb's imports: ``mnemo pr`` does load the change analysis."""
    repo = make_repo(tmp_path / "repo", CART_FILES)
    loaded = _loaded("pr", "--worktree", "--repo", str(repo), "--no-memory")
    assert "mnemo_core.change.impact" in loaded
    assert not [m for m in loaded if m.startswith(COVERAGE_CODE) or m == "coverage"]


def test_the_precommit_hook_loads_no_coverage_code(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", CART_FILES)
    path, text = next((p, t) for p, t in CART_FILES.items() if "def " in t and not p.startswith("tests"))
    (repo / path).write_text(text.replace("def ", "def  ", 1), encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", path], check=True, capture_output=True)
    loaded = _loaded("--repo", str(repo), entry="ci.precommit")
    assert "mnemo_core.change.impact" in loaded  # the staged change was analysed
    assert not [m for m in loaded if m.startswith(COVERAGE_CODE) or m == "coverage"]
