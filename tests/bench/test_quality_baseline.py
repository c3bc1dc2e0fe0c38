"""The honest baseline of the quality benchmark: tokenizer, keys, BM25 scoring, CLI, and RRF."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from helpers import write_files

from bench.quality import baseline, mining
from bench.quality.baseline import Corpus, Document, bm25_scores, documents, rank, tokenize
from bench.quality.evaluate import rrf

NESTED = """import functools


if True:
    def guarded():
        pass


class Box:
    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        pass

    class Inner:
        async def run(self):
            def step():
                pass

    try:
        def attempt(self):
            pass
    except ImportError:
        pass


@functools.cache
def outer():
    class Local:
        def method(self):
            pass
    return Local
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parse_url", ["parse", "url", "parse_url"]),
        ("getURLPath", ["get", "url", "path", "geturlpath"]),
        ("HTTPServer", ["http", "server", "httpserver"]),
        ("Fix the crash in self.loader", ["fix", "crash", "loader"]),  # stop words and one-part words
        ("__init__ x v1Beta", ["init", "beta", "v1beta"]),  # one-letter parts dropped, the compound kept
        ("def return class", []),
    ],
)
def test_tokenize_splits_compounds_and_keeps_them(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_documents_use_mnemo_style_qualified_keys_and_spans() -> None:
    docs = documents("pkg/box.py", NESTED.encode())
    assert [(d.key, d.line) for d in docs] == [
        ("pkg/box.py:guarded", 5),
        ("pkg/box.py:Box", 9),
        ("pkg/box.py:Box.size", 10),
        ("pkg/box.py:Box.size", 14),
        ("pkg/box.py:Box.Inner", 18),
        ("pkg/box.py:Box.Inner.run", 19),
        ("pkg/box.py:Box.Inner.run.step", 20),
        ("pkg/box.py:Box.attempt", 24),
        ("pkg/box.py:outer", 30),  # the decorator line starts the span
        ("pkg/box.py:outer.Local", 32),
        ("pkg/box.py:outer.Local.method", 33),
    ]
    box = next(d for d in docs if d.key == "pkg/box.py:Box")
    assert box.terms["attempt"] == 1 and box.terms["pkg"] == 1  # whole span, and the path
    assert documents("old.py", b"print 'python 2'\n") == []


@pytest.mark.parametrize(
    "path",
    [
        "pkg/mod.py",
        "src/pkg/testing.py",
        "tests/test_mod.py",
        "pkg/conftest.py",
        "pkg/mod_test.py",
        "pkg/testsuite/helpers.py",
        "docs/conf.py",
        "examples/app.py",
        "pkg/data.json",
        "pkg/stub.pyi",
    ],
)
def test_source_paths_agree_with_the_mining(path: str) -> None:
    assert baseline.is_source_path(path) is (mining.is_source_path(path) and path.endswith(".py"))


def _doc(key: str, *tokens: str) -> Document:
    terms = Counter(tokens)
    return Document(key, 1, terms, sum(terms.values()))


def test_bm25_scores_follow_okapi() -> None:
    docs = [
        _doc("a.py:f", "parse", "url", "parse"),
        _doc("b.py:g", "render", "page"),
        _doc("c.py:h", "url", "render", "page", "page"),
    ]
    scores = bm25_scores(docs, "parse url")
    average = 3.0

    def term(tf: int, df: int, length: int) -> float:
        idf = math.log(1 + (3 - df + 0.5) / (df + 0.5))
        return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))

    assert scores[0] == pytest.approx(term(2, 1, 3) + term(1, 2, 3))
    assert scores[1] == 0.0
    assert scores[2] == pytest.approx(term(1, 2, 4))
    assert rank(docs, "parse url") == ["a.py:f", "c.py:h"]
    assert rank(docs, "the and of") == []


def test_corpus_reads_source_files_and_reparses_only_changes(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/net.py": "def fetch_url(url):\n    return url\n",
            "pkg/page.py": "def render_page(page):\n    return page\n",
            "tests/test_net.py": "def test_fetch_url():\n    pass\n",
            ".venv/lib.py": "def fetch_url():\n    pass\n",
        },
    )
    corpus = Corpus()
    first = corpus.documents(tmp_path)
    assert [d.key for d in first] == ["pkg/net.py:fetch_url", "pkg/page.py:render_page"]
    write_files(tmp_path, {"pkg/page.py": "def render_page(page, url):\n    return page\n"})
    second = corpus.documents(tmp_path)
    assert second[0] is first[0] and second[1] is not first[1]
    assert rank(second, "fetch the URL") == ["pkg/net.py:fetch_url", "pkg/page.py:render_page"]


def test_cli_prints_the_top_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(tmp_path, {"a.py": "def load_config():\n    pass\n\n\ndef save_config():\n    pass\n"})
    assert baseline.main(["--root", str(tmp_path), "--limit", "1", "load the config"]) == 0
    assert capsys.readouterr().out == "a.py:load_config\n"


def test_rrf_fuses_first_ranks() -> None:
    assert rrf([["a", "b", "c"], ["c", "a"]]) == ["a", "c", "b"]
    assert rrf([["a", "a", "b"], []]) == ["a", "b"]  # a repeated key counts once, at its first rank
