"""A changed module constant reaches the code that reads it, and through it that code's tests: a
real repository, a real commit, the ``pr`` a reviewer reads and the ``tests`` a gate runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.cli import main

NET = (
    "import logging\n"
    "\n"
    "LOG = logging.getLogger(__name__)\n"
    "TIMEOUT = 5\n"
    "RETRIES = 3\n"
    "\n"
    "def fetch(url):\n"
    '    LOG.info("fetch %s", url)\n'
    "    return url, TIMEOUT\n"
    "\n"
    "def unrelated():\n"
    "    return 1\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/net.py": NET,
    "pkg/client.py": "from pkg.net import RETRIES\n\ndef attempts():\n    return list(range(RETRIES))\n",
    "tests/test_net.py": (
        "from pkg.client import attempts\n"
        "from pkg.net import fetch, unrelated\n"
        "\n"
        "def test_fetch():\n"
        '    assert fetch("u") == ("u", 5)\n'
        "\n"
        "def test_attempts():\n"
        "    assert len(attempts()) == 3\n"
        "\n"
        "def test_unrelated():\n"
        "    assert unrelated() == 1\n"
    ),
}


@pytest.mark.parametrize(
    ("edit", "tests", "path"),
    [
        (("TIMEOUT = 5", "TIMEOUT = 6"), ["test_fetch"], "calls fetch -> uses TIMEOUT"),
        (('LOG.info("fetch', 'LOG.debug("fetch'), ["test_fetch"], "calls fetch"),
        (("getLogger(__name__)", 'getLogger("net")'), ["test_fetch"], "calls fetch -> uses LOG"),
        (("RETRIES = 3", "RETRIES = 4"), ["test_attempts"], "calls attempts -> uses RETRIES"),
    ],
)
def test_a_changed_constant_reaches_the_tests_of_its_readers(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: tuple[str, str],
    tests: list[str],
    path: str,
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {"pkg/net.py": NET.replace(*edit)}, "tune the network")
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "pytest"]) == 0
    listed = capsys.readouterr().out.split()
    assert [line.rsplit("::", 1)[1] for line in listed] == tests
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]) == 0
    impact = json.loads(capsys.readouterr().out)["impact"]
    assert [t["evidence"].split(" (")[0] for t in impact["tests"]] == [path]
    assert not any(r.startswith("no test reaches") for r in impact["reasons"])
    value_changed = [r for r in impact["reasons"] if r.startswith("public constant's value changed")]
    assert value_changed == (
        [] if edit[0].startswith("LOG.") else [f"public constant's value changed: {path.split()[-1]}"]
    )


def test_the_callers_of_a_constant_are_its_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    assert main(["callers", "RETRIES", "--repo", str(root), "--depth", "2", "--format", "json"]) == 0
    hops = json.loads(capsys.readouterr().out)["hops"]
    assert [(h["name"], h["depth"], h["resolution"]) for h in hops] == [
        ("attempts", 1, "import"),
        ("test_attempts", 2, "import"),
    ]
