"""Coverage runs for tests: a repository's own tests under a real ``coverage run`` with per-test contexts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# pytest-cov's ``--cov-context=test`` labels, switched the way pytest-cov does it (pytest-cov itself
# is not needed for the data file to have that form)
NODEID_PLUGIN = (
    "import coverage, pytest\n"
    "\n"
    "def _switch(item, when):\n"
    "    cov = coverage.Coverage.current()\n"
    "    if cov is not None:\n"
    "        cov.switch_context(f'{item.nodeid}|{when}')\n"
    "\n"
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_setup(item):\n"
    "    _switch(item, 'setup'); yield\n"
    "\n"
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_call(item):\n"
    "    _switch(item, 'run'); yield\n"
    "\n"
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_teardown(item):\n"
    "    _switch(item, 'teardown'); yield\n"
    "    coverage.Coverage.current().switch_context('')\n"
)


def run_coverage(root: Path, form: str, plugin_dir: Path, source: str = "calc") -> Path:
    """Run the repository's tests under coverage (of the package ``source``) with per-test contexts
    in the given form: ``nodeid`` (pytest-cov's) or ``test_function`` (coverage's own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV", "PYTEST", "GIT_"))}
    args = [sys.executable, "-m", "coverage", "run", f"--source={source}"]
    if form == "test_function":
        args.append("--context=ignored")  # a static context too: the dynamic one is appended to it
        rc = plugin_dir / "coveragerc"
        rc.write_text("[run]\ndynamic_context = test_function\n")
        args.append(f"--rcfile={rc}")
    elif form == "nodeid":
        env["PYTHONPATH"] = str(plugin_dir)
        (plugin_dir / "nodeid_contexts.py").write_text(NODEID_PLUGIN)
    args += ["-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if form == "nodeid":
        args += ["-p", "nodeid_contexts"]
    subprocess.run([*args, "tests"], cwd=root, env=env, check=True, capture_output=True)
    return root / ".coverage"
