from __future__ import annotations

from pathlib import Path

import pytest

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store
from mnemo_core.retrieve.history import history_channel
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.vcs.changes import function_name
from tests.helpers import commit, git, make_repo

CLIENT = """class Client:
    def upload(self, data):
        return self.send(data)

    def send(self, data):
        return data


def parse(text):
    return text.split()
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "r", {"pkg/client.py": CLIENT}, date="2025-01-01T00:00:00+00:00")
    retried = CLIENT.replace("return self.send(data)", "return self.send(data) or None")
    commit(
        root,
        {"pkg/client.py": retried},
        "Retry uploads when the server times out",
        date="2025-03-01T00:00:00+00:00",
    )
    commit(
        root,
        {"pkg/client.py": retried.replace("text.split()", "text.split(',')")},
        "Parse comma separated lists",
        date="2025-06-01T00:00:00+00:00",
    )
    return root


def history(root: Path, task: str) -> list[str]:
    store = Store.open(root)
    try:
        channel, _ = history_channel(root)(store, extract_keywords(task))
        names = {s.id: s.name for s in store.symbols_by_ids(sid for sid, _ in channel).values()}
        return [names[sid] for sid, _ in channel]
    finally:
        store.close()


def test_similar_past_commits_point_at_the_functions_they_changed(repo: Path) -> None:
    index_repo(repo)
    assert history(repo, "upload retries are too slow when the server times out")[0] == "Client.upload"
    assert history(repo, "parse lists separated by semicolons") == ["parse"]


def test_the_memory_never_holds_commits_head_cannot_reach(repo: Path) -> None:
    index_repo(repo)
    git(repo, "checkout", "-q", "HEAD~2")
    index_repo(repo)
    assert history(repo, "parse comma separated lists") == []
    assert history(repo, "retry uploads") == []
    git(repo, "checkout", "-q", "main")
    index_repo(repo)
    assert history(repo, "parse comma separated lists") == ["parse"]


def test_a_directory_without_git_has_no_history(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    index_repo(tmp_path)
    assert history(tmp_path, "retry uploads") == []


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("def upload(self, data):", "upload"),
        ("    async def fetch(self) -> None:", "fetch"),
        ("class UploadClient(Base):", "UploadClient"),
        ("func (c *Client) Upload(data []byte) error {", "Upload"),
        ("fn parse_line(line: &str) -> Option<Line> {", "parse_line"),
        ("public void upload(byte[] data) {", "upload"),
        ("", ""),
    ],
)
def test_function_names_from_hunk_headers(header: str, name: str) -> None:
    assert function_name(header) == name


def test_what_a_commit_changed_is_asked_of_git_once_and_kept_in_the_index(repo: Path) -> None:
    from mnemo_core.retrieve import history as history_module

    index_repo(repo)
    assert history(repo, "retry uploads when the server times out")[0] == "Client.upload"
    history_module._targets.clear()  # as a new process would start
    store = Store.open(repo)
    try:
        kept = store.commit_targets([c.sha for c in store.similar_commits('"retry"', 5)])
    finally:
        store.close()
    assert list(kept.values()) == [(("pkg/client.py", "upload"),)]


def test_a_planted_attributes_file_is_replaced_before_git_reads_it(repo: Path) -> None:
    from mnemo_core.retrieve import history as history_module

    index_repo(repo)
    planted = repo / ".mnemo" / history_module.ATTRIBUTES_FILE
    planted.write_text("*.py diff=planted\n", encoding="utf-8")
    history_module._targets.clear()
    assert history(repo, "parse comma separated lists") == ["parse"]
    assert "planted" not in planted.read_text(encoding="utf-8")


SHAPES = """class Circle:
    def __init__(self, radius):
        self.radius = radius


class Square:
    def __init__(self, side):
        self.side = side
"""


def test_a_commit_in_one_of_a_files_namesakes_says_so(tmp_path: Path) -> None:
    """Git names a hunk by its nearest ``def __init__(``, not by its class: each ``__init__`` of the
    file gets the vote, and its reason says the commit changed one of them, not that one."""
    root = make_repo(tmp_path / "r", {"pkg/shapes.py": SHAPES}, date="2025-01-01T00:00:00+00:00")
    validated = SHAPES.replace("        self.side = side\n", "        self.side = abs(side)\n")
    commit(root, {"pkg/shapes.py": validated}, "Square sides are never negative")
    index_repo(root)
    store = Store.open(root)
    try:
        channel, _ = history_channel(root)(store, extract_keywords("negative square sides"))
        names = {s.id: s.name for s in store.symbols_by_ids(sid for sid, _ in channel).values()}
    finally:
        store.close()
    reasons = {names[sid]: why for sid, why in channel}
    assert set(reasons) == {"Circle.__init__", "Square.__init__"}
    assert all(
        why.startswith("a similar past commit changed one of the 2 __init__ of pkg/shapes.py: ")
        for why in reasons.values()
    )
