"""Builders shared by the tests: throwaway git repositories with pinned authors and dates."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

DEFAULT_DATE = "2026-01-01T12:00:00+00:00"
AUTHOR = ("Ada Tester", "ada@example.com")

if TYPE_CHECKING:
    from mnemo_core.index.store.snapshot import Snapshot


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git in ``repo`` with a clean, pinned environment; return stdout."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    full_env.update(
        {
            "GIT_AUTHOR_NAME": AUTHOR[0],
            "GIT_AUTHOR_EMAIL": AUTHOR[1],
            "GIT_COMMITTER_NAME": AUTHOR[0],
            "GIT_COMMITTER_EMAIL": AUTHOR[1],
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(repo),
        }
    )
    full_env.update(env or {})
    result = subprocess.run(
        ["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, check=True
    )
    return result.stdout


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Write files (text or bytes) under ``root``, creating directories."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def make_repo(root: Path, files: Mapping[str, str | bytes] | None = None, date: str = DEFAULT_DATE) -> Path:
    """A git repository at ``root`` on branch main, with one commit of ``files`` when given."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", AUTHOR[0])
    git(root, "config", "user.email", AUTHOR[1])
    git(root, "config", "commit.gpgsign", "false")
    if files:
        commit(root, files, "initial commit", date=date)
    return root


def commit(
    repo: Path,
    files: Mapping[str, str | bytes | None],
    message: str,
    date: str = DEFAULT_DATE,
    author: tuple[str, str] = AUTHOR,
) -> str:
    """Write (or delete, for None) files, commit them at ``date`` and return the new sha."""
    for rel, content in files.items():
        if content is None:
            (repo / rel).unlink()
        else:
            write_files(repo, {rel: content})
    git(repo, "add", "-A")
    env = {
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_AUTHOR_NAME": author[0],
        "GIT_AUTHOR_EMAIL": author[1],
    }
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def impacted_test_names(repo: Path, path: str, content: str) -> list[str]:
    """Commit ``content`` as ``path`` and return the names of the tests that commit impacts."""
    from mnemo_core.engine import Engine

    commit(repo, {path: content}, "edit")
    pack = Engine.open(repo).pr(base="HEAD~1")
    assert pack.impact is not None
    return sorted(t.symbol.name for t in pack.impact.tests)


def indexed_edges(root: Path, edge_type: str | None = None) -> set[tuple[str, str, str]]:
    """The stored edges of an indexed repository as ``(src key, dst key, resolution)``."""
    from mnemo_core.index.store import Store

    store = Store.open(root)
    try:
        keys = {
            sid: f"{path}:{name}"
            for sid, path, name in store.conn.execute(
                "SELECT s.id, f.path, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
            )
        }
        rows = store.conn.execute("SELECT src, dst, type, resolution FROM edges")
        return {(keys[s], keys[d], r) for s, d, t, r in rows if edge_type in (None, t)}
    finally:
        store.close()


def indexed_symbols(root: Path) -> dict[str, tuple[str, int, int]]:
    """The stored symbols of an indexed repository: ``path:name`` -> (kind, start, end)."""
    from mnemo_core.index.store import Store

    store = Store.open(root)
    try:
        rows = store.conn.execute(
            "SELECT f.path, s.name, s.kind, s.start_line, s.end_line"
            " FROM symbols s JOIN files f ON f.id = s.file_id"
        )
        return {f"{path}:{name}": (kind, start, end) for path, name, kind, start, end in rows}
    finally:
        store.close()


def index_snapshot(root: Path) -> Snapshot:
    """The snapshot (``index.store.snapshot``) of an indexed repository: what two indexes must
    share to be equal."""
    import sqlite3

    from mnemo_core.index.store import index_path
    from mnemo_core.index.store.snapshot import snapshot

    with sqlite3.connect(index_path(root)) as conn:
        return snapshot(conn)


def cold_snapshot(tmp_path: Path, repo: Path, rev: str) -> Snapshot:
    """The snapshot of a cold index of ``repo`` at ``rev``, in a clone of its own (made and indexed
    once per revision and ``tmp_path``)."""
    from mnemo_core.index.indexer import index_repo

    cold = tmp_path / f"cold-{rev}"
    if not cold.exists():
        git(tmp_path, "clone", "-q", str(repo), str(cold))
        git(cold, "checkout", "-q", rev)
        index_repo(cold)
    return index_snapshot(cold)


# A small application and its tests: the fixture repository of the language-server and MCP tests.
SMALL_APP = '''"""The app."""


def helper(x):
    """Double a number."""
    return x * 2


def main():
    return helper(1) + helper(2)


class Box:
    def open(self):
        return main()
'''
SMALL_APP_TESTS = """from app.core import Box, main


def test_main():
    assert main() == 6


def test_box():
    assert Box().open() == 6
"""
SMALL_APP_FILES = {"app/__init__.py": "", "app/core.py": SMALL_APP, "tests/test_core.py": SMALL_APP_TESTS}

# A shop whose cart and pricing functions share words with the memory tests' tasks.
SHOP_CART = (
    "def add_item(cart, item):\n    cart.append(item)\n\n\n"
    "def remove_item(cart, item):\n    cart.remove(item)\n\n\n"
    "def cart_total(cart):\n    return sum(cart)\n"
)
SHOP_PRICING = (
    "def price_item(item):\n    return item.price\n\n\n"
    "def discount_item(item, pct):\n    return item.price * pct\n"
)
SHOP_FILES = {"shop/__init__.py": "", "shop/cart.py": SHOP_CART, "shop/pricing.py": SHOP_PRICING}

# helper <- main <- Box.open, and the two tests that reach them (engine and insight tests).
CORE_FILES = {
    "app/core.py": (
        "def helper(x):\n    return x\n\ndef main():\n    return helper(1)\n\nclass Box:\n"
        "    def open(self):\n        return main()\n"
    ),
    "tests/test_core.py": (
        "from app.core import main, Box\n\ndef test_main():\n    assert main() == 1\n\ndef test_box():\n"
        "    assert Box().open() == 1\n"
    ),
}

# A cart that calls pricing: the CLI tests and the --at tests.
CART_FILES = {
    "shop/cart.py": (
        "from shop.pricing import total\n\n"
        "class Cart:\n"
        "    def checkout(self):\n"
        "        return total(self.items())\n"
        "    def items(self):\n"
        "        return []\n"
    ),
    "shop/pricing.py": "def total(items):\n    return sum(items)\n\ndef tax(x):\n    return total([x])\n",
}


FUNCTIONS = 40  # enough symbols that no small budget holds them all


def many_functions(tag: str) -> dict[str, str]:
    """A package of functions that all match the task 'parse the upload record', and their test."""
    modules = {}
    for group in range(4):
        body = "".join(
            f'''
def parse_upload_record_{group}_{i}(record, options=None):
    """Parse the upload record {i} of group {group} ({tag}): checks the header, the size and the
    checksum of each chunk, then returns the parsed upload record."""
    header = record.get("header", {{}})
    chunks = [chunk for chunk in record.get("chunks", []) if chunk.get("size", 0) > {i}]
    return {{"header": header, "chunks": chunks, "options": options, "tag": "{tag}{i}"}}
'''
            for i in range(FUNCTIONS // 4)
        )
        modules[f"uploads/parse_{group}.py"] = body
    calls = "".join(f"    parse_upload_record_0_{i}({{}})\n" for i in range(FUNCTIONS // 4))
    modules["tests/test_parse.py"] = (
        "from uploads.parse_0 import *\n\n\ndef test_parse_all():\n" + calls + "\n\ndef test_other():\n"
        "    parse_upload_record_0_1({})\n"
    )
    return modules
