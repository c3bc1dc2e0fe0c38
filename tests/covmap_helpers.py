"""A small Python project with tests, in a git repository, and pytest runs of mnemo's plugin on it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import commit, make_repo

PLUGIN = "mnemo_core.covmap.plugin"

CALC = """\
LIMIT = 10


def add(a, b):
    return a + b


def clamp(x):
    if x > LIMIT:
        return LIMIT
    return x


def double(x):
    return add(x, x)


def unused(x):
    return x
"""

PROJECT: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n',
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": CALC,
    "src/pkg/data.json": '{"k": 1}\n',
    "src/pkg/loader.py": (
        "import json\nimport pathlib\n\n\ndef load():\n"
        '    return json.loads((pathlib.Path(__file__).parent / "data.json").read_text())\n'
    ),
    "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef big():\n    return 100\n",
    "tests/test_calc.py": """\
from pkg.calc import add, clamp, double


def test_add():
    assert add(1, 2) == 3


def test_clamp():
    assert clamp(20) == 10


def test_double():
    assert double(2) == 4


def test_big(big):
    assert clamp(big) == 10


class TestMore:
    def test_small(self):
        assert clamp(3) == 3
""",
    "tests/test_loader.py": (
        "from pkg.loader import load\n\n\ndef test_load():\n    assert load() == {'k': 1}\n"
    ),
    "README.md": "# demo\n",
}


def project(root: Path) -> Path:
    """The project, committed once."""
    make_repo(root, PROJECT)
    return root


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest itself in ``root``, with mnemo's plugin (from this checkout) and no other plugin."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1]), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", PLUGIN, "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def change(root: Path, files: dict[str, str | bytes | None], message: str = "change") -> str:
    """Commit a change; its sha."""
    return commit(root, files, message)
