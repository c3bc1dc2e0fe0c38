"""The task's own encoder: numpy over the built arrays and a plain-Python tokenizer, held to the
ONNX Runtime encoder that makes the stored vectors, and a query process that loads neither ONNX
Runtime nor ``tokenizers``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.semantic.encoder import MAX_TOKENS, available, built_model, weights_dir
from mnemo_core.semantic.wordpiece import WordPiece

WORKTREE = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not available(), reason="the semantic extra is not installed (pip install 'mnemo[semantic]')"
)
ODD_TEXTS = (
    "Café naïve résumé — “quotes” 中文字符 テスト ﬁ \u200b zero\x00width \ufffd x\u0301 İstanbul ǅ ß Σίσυφος",
    "x" * 150,  # longer than a word may be
    "tab\there\r\nnew line",
    "",
    "a literal [SEP] and [MASK] in the text",
    "word " * 300,  # cut at the encoder's length
)


def source_slices() -> list[str]:
    """Slices of mnemo's own code and docs: identifiers, punctuation, prose."""
    files = [*sorted((WORKTREE / "mnemo_core").rglob("*.py")), *sorted((WORKTREE / "docs").glob("*.md"))]
    return [
        text[i : i + 600]
        for f in files
        for text in [f.read_text()]
        for i in range(0, min(len(text), 6000), 600)
    ]


def test_the_plain_tokenizer_gives_the_library_s_ids() -> None:
    from tokenizers import Tokenizer

    library = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
    library.enable_truncation(max_length=MAX_TOKENS)
    library.no_padding()
    plain = WordPiece.from_vocab_file(weights_dir() / "vocab.txt", MAX_TOKENS)
    texts = [*source_slices(), *ODD_TEXTS]
    assert len(texts) > 500
    differing = [t for t in texts if plain.ids(t) != library.encode(t).ids]
    assert differing == []
    assert len(plain.ids(ODD_TEXTS[-1])) == MAX_TOKENS


def test_the_query_encoder_agrees_with_the_runtime_encoder() -> None:
    from mnemo_core.semantic.channel import query_encoder
    from mnemo_core.semantic.encoder import shared_encoder

    texts = [
        *source_slices()[::240],  # six slices of code and prose: the encoders agree or not on all kinds
        "retry the upload when sending a file fails",
        "The weather is lovely today.",
    ]
    runtime = shared_encoder()
    mine = query_encoder()
    cosines = [float(mine.encode(t) @ runtime.encode([t])[0]) for t in texts]
    assert min(cosines) >= 0.99, cosines
    assert abs(float(mine.encode(texts[0]) @ mine.encode(texts[0])) - 1.0) < 1e-4


def test_the_arrays_are_rebuilt_from_the_model_when_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemo_core.semantic.query import QueryEncoder, arrays_path

    model = built_model()
    monkeypatch.setenv("MNEMO_ENCODER_CACHE", str(tmp_path))
    (tmp_path / model.name).symlink_to(model)  # the model as an older cache has it, without arrays
    assert not arrays_path(tmp_path / model.name).exists()
    vector = QueryEncoder.load().encode("retry the upload")
    assert arrays_path(tmp_path / model.name).is_file()
    assert abs(float(vector @ vector) - 1.0) < 1e-4


REPORT = """
import sys
from mnemo_core.cli import main
code = main(sys.argv[1:])
watched = {"onnxruntime", "tokenizers", "onnx", "numpy"}
print("LOADED", sorted({m.split(".")[0] for m in sys.modules} & watched))
sys.exit(code)
"""


def test_a_query_loads_numpy_but_not_the_runtime(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "net/upload.py": "def send_file(path, url):\n    for attempt in range(3):\n        post(url)\n",
            "text/format.py": "def title_case(words):\n    return words.title()\n",
        },
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKTREE), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-m", "mnemo_core.cli", "index", str(repo)], env=env, capture_output=True
    )
    assert run.returncode == 0, run.stderr
    task = [
        "task",
        "retry the upload when sending a file fails",
        "--repo",
        str(repo),
        "--no-memory",
        "--format",
        "json",
    ]
    run = subprocess.run([sys.executable, "-c", REPORT, *task], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    answer, loaded = run.stdout.rsplit("LOADED", 1)
    assert loaded.strip() == "['numpy']"
    symbols = {s["name"]: s for s in json.loads(answer)["symbols"]}
    assert symbols["send_file"]["components"]["semantic"] > 0
    assert any(r.startswith("similar in meaning to the task") for r in symbols["send_file"]["reasons"])
