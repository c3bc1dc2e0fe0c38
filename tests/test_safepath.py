"""Tests for mnemo_core/safepath.py: which ``sys.path`` entries could put the analysed code first."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo_core.safepath import HOME, is_untrusted


@pytest.mark.parametrize(
    ("entry", "untrusted"),
    [
        ("", True),
        (".", True),
        ("src", True),  # relative: wherever the working directory is
        ("{root}", True),
        ("{cwd}", True),
        ("{root}/.venv/lib/python3.11/site-packages", False),  # put there on purpose: the project's venv
        ("{root}/src", False),
        ("/usr/lib/python3", False),
        (HOME, False),
    ],
)
def test_untrusted_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, untrusted: bool
) -> None:
    root, cwd = tmp_path / "repo", tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert is_untrusted(entry.format(root=root, cwd=cwd), str(root)) is untrusted


def test_the_repository_is_trusted_when_mnemo_lives_there() -> None:
    assert not is_untrusted(HOME, HOME)
