"""Builders of hostile repositories: modules planted under the names of what mnemo imports, which
leave a marker file when imported, enough real modules that the parse pool starts, and helpers to
run mnemo's entry points from inside such a repository."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ci_helpers import CHECKOUT, PullRequestRepo
from helpers import commit, git, make_repo

from mnemo_core.index.indexer import PARALLEL_MIN_FILES

# what mnemo, its dependencies and multiprocessing's bootstrap import, by top-level name
PLANTED = (
    "multiprocessing",
    "concurrent",
    "numpy",
    "scipy",
    "git",
    "pygls",
    "lsprotocol",
    "cattrs",
    "tree_sitter",
    "tree_sitter_language_pack",
    "json",
    "sqlite3",
    "ctypes",
    "signal",
    "threading",
    "subprocess",
    "tempfile",
    "logging",
    "re",
    "pickle",
    "selectors",
    "asyncio",
    "ci",
    "lsp_server",
    "mcp",
    "mcp_server",
    "anyio",
    "pydantic",
)
MODULES = PARALLEL_MIN_FILES + 12  # enough real files that indexing starts its worker processes
RUN_TIMEOUT_S = 120
BIN = Path(sys.executable).parent  # where the console scripts of this Python are


def planted(name: str, markers: Path) -> str:
    """A module that records its import (no imports of its own: they could be planted too)."""
    return f"open({str(markers / name)!r}, 'w').close()\nraise ImportError('planted {name} was imported')\n"


def app_modules() -> dict[str, str]:
    """``MODULES`` small modules calling each other, and a test."""
    files = {
        f"app/mod{i}.py": f"from app.mod{(i + 1) % MODULES} import step{(i + 1) % MODULES}\n\n\n"
        f'def step{i}(x):\n    """Step {i} of the pipeline."""\n'
        f"    return step{(i + 1) % MODULES}(x) if x else x\n"
        for i in range(MODULES)
    }
    files["app/__init__.py"] = ""
    files["tests/test_app.py"] = "from app.mod0 import step0\n\n\ndef test_step():\n    assert not step0(0)\n"
    return files


@dataclass
class Hostile:
    """A hostile repository with a pull request, and where its planted modules leave markers."""

    pr: PullRequestRepo
    markers: Path

    @property
    def root(self) -> Path:
        return self.pr.root

    def ran(self) -> list[str]:
        """The planted modules that were imported (none, if mnemo behaves)."""
        return sorted(p.name for p in self.markers.iterdir())


def make_hostile(tmp_path: Path) -> Hostile:
    """The repository at ``tmp_path/repo``: the modules, every planted name at the top (packages for
    ``concurrent``, ``ci``, ``lsp_server``, ``mcp`` and ``mcp_server``), then a change to
    ``app/mod1.py`` on ``feature``."""
    markers = tmp_path / "markers"
    markers.mkdir()
    files = app_modules()
    for name in PLANTED:
        package = name in ("concurrent", "ci", "lsp_server", "mcp", "mcp_server")
        files[f"{name}/__init__.py" if package else f"{name}.py"] = planted(name, markers)
    root = make_repo(tmp_path / "repo", files)
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    changed = files["app/mod1.py"].replace("if x else x", "if x else -x")
    head = commit(root, {"app/mod1.py": changed}, "change")
    return Hostile(PullRequestRepo(root, base, head), markers)


def mnemo_env(**extra: str) -> dict[str, str]:
    """The environment for mnemo's processes: this checkout first on the path, git config kept out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(PYTHONPATH=str(CHECKOUT), GIT_CONFIG_NOSYSTEM="1", **extra)
    return env


def run_in(
    root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = RUN_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run a command with ``root`` as its working directory."""
    return subprocess.run(
        args, cwd=root, env=env or mnemo_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
