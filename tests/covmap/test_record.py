"""Carrying recorded lines between versions of a file, and the plugin's registration."""

from __future__ import annotations

import re
from pathlib import Path

from mnemo_core.covmap.record import line_map


def test_lines_follow_their_text_and_lines_gone_are_dropped() -> None:
    old = b"a\nb\nc\nd\n"
    new = b"new\na\nc\nd\nmore\n"
    assert line_map(old, new) == {1: 2, 3: 3, 4: 4}  # b is gone


def test_a_missing_version_maps_nothing() -> None:
    assert line_map(None, b"a\n") == {} and line_map(b"a\n", None) == {}


def test_the_plugin_is_registered_for_pytest() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert re.search(r'\[project\.entry-points\.pytest11\]\nmnemo = "mnemo_core\.covmap\.plugin"', pyproject)
