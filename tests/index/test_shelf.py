"""Extractions kept by content (``store.shelf``): a file whose content comes back after a checkout
is taken from the index, not parsed again, and the index still equals a cold one."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.index.extract import extract
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import encode_refs, index_path
from mnemo_core.index.store.shelf import Shelved, decode, encode
from mnemo_core.index.store.snapshot import snapshot

SOURCE = '''"""Module doc."""
from .models import User as U
from ..base import *

__all__ = ["Shop", "helper"]


@decor(1)
class Shop(Base, Generic[T, K]):
    """A shop."""

    tag: Label

    def __init__(self, owner: U, *args: int, **kw: str) -> None:
        self.owner = owner
        self.hook = HookRelay()

    @property
    def name(self) -> str:
        return super().name() + helper(self.owner)


def helper(x):
    # words in a comment
    return "a string" + x
'''
FIRST = {"app/__init__.py": "", "app/shop.py": SOURCE, "app/use.py": "from app.shop import helper\n"}
SECOND = {
    "app/shop.py": SOURCE.replace("helper(self.owner)", "helper(self.owner, 2)"),
    "app/new.py": "X = 1\n",
}


def test_a_kept_extraction_decodes_to_what_was_extracted() -> None:
    spec = language_for_path("app/shop.py")
    assert spec is not None
    full = extract("app/shop.py", SOURCE.encode(), spec)
    kept = Shelved(
        replace(full, refs=()), encode_refs(full.refs), tuple(r for r in full.refs if r.kind == "inherit")
    )
    assert any(s.fields for s in full.symbols) and any(s.decorators for s in full.symbols)
    assert decode(encode(kept)) == kept


def _snapshot(root: Path) -> object:
    with sqlite3.connect(index_path(root)) as conn:
        return snapshot(conn)


def _cold(tmp_path: Path, repo: Path, rev: str) -> object:
    cold = tmp_path / f"cold-{rev}"
    if not cold.exists():
        git(tmp_path, "clone", "-q", str(repo), str(cold))
        git(cold, "checkout", "-q", rev)
        index_repo(cold)
    return _snapshot(cold)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    root = make_repo(tmp_path / "repo", FIRST)
    return root, [git(root, "rev-parse", "HEAD").strip(), commit(root, SECOND, "second")]


def test_content_seen_before_is_not_parsed_again(
    tmp_path: Path, repo: tuple[Path, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    root, (first, second) = repo
    index_repo(root)  # a cold build keeps nothing
    git(root, "checkout", "-q", first)
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(root)  # app/shop.py at the first commit: parsed and kept
        assert "taken from the kept extractions" not in caplog.text
        git(root, "checkout", "-q", second)
        index_repo(root)  # the second commit's app/shop.py: never parsed by an update yet
        assert "taken from the kept extractions" not in caplog.text
        git(root, "checkout", "-q", first)
        caplog.clear()
        stats = index_repo(root)
    assert "1 files taken from the kept extractions, not parsed" in caplog.text
    assert stats.parsed == 1
    assert _snapshot(root).differences(_cold(tmp_path, root, first)) == []  # type: ignore[attr-defined]
    git(root, "checkout", "-q", second)
    caplog.clear()
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(root)
    assert "2 files taken from the kept extractions, not parsed" in caplog.text
    assert _snapshot(root).differences(_cold(tmp_path, root, second)) == []  # type: ignore[attr-defined]


def test_a_kept_extraction_that_does_not_decode_is_parsed_instead(
    tmp_path: Path, repo: tuple[Path, list[str]]
) -> None:
    root, (first, second) = repo
    index_repo(root)
    git(root, "checkout", "-q", first)
    index_repo(root)
    git(root, "checkout", "-q", second)
    index_repo(root)
    with sqlite3.connect(index_path(root)) as conn:
        conn.execute("UPDATE shelf SET data = x'00ff'")
    git(root, "checkout", "-q", first)
    index_repo(root)
    assert _snapshot(root).differences(_cold(tmp_path, root, first)) == []  # type: ignore[attr-defined]
