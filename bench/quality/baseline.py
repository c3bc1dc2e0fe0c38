"""The honest baseline: Okapi BM25 over the source of every function, method and class.

What a user would reach for instead of mnemo, built apart from it (Python's ``ast`` and this
module's own tokenizer; nothing of mnemo's index, extractor or FTS). The corpus is every
function, method and class of the non-test, non-doc ``.py`` files under a root (the same path rules
as the task mining). One document per definition, nested ones included (``Class.method``,
``outer.inner``): its path, its qualified name and the source lines of its whole span, decorators
first line to last line (a class's document holds its methods' lines too; its docstring is part of
the span, so it is counted once). Tokens: identifier-like runs, lower-cased; a ``snake_case`` or
``camelCase`` compound yields its parts and the whole compound; a small stop list drops English
function words and Python keywords. Scoring is Okapi BM25 (``k1`` 1.2, ``b`` 0.75, the
non-negative Lucene idf) of the query's distinct tokens; ties go to the key, then the line.

``python -m bench.quality.baseline --root PATH "task text" [--limit N]`` builds the corpus from
scratch and prints the top ``N`` keys (``path:qualified.name``), so its process time compares with
``mnemo task``'s. In the benchmark, :class:`Corpus` keeps each file's documents while its bytes
are unchanged, so a checkout only re-parses the files it changed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

K1 = 1.2  # Okapi's usual term-frequency saturation
B = 0.75  # Okapi's usual length normalisation
DEFAULT_LIMIT = 20
TEST_FILE_PREFIX, TEST_FILE_SUFFIX, CONFTEST = "test_", "_test.py", "conftest.py"  # pytest's test files
TEST_DIR_PREFIX = "test"  # ``test/``, ``tests/``, ``testing/``, ``testsuite/``: the mining's rule
DOC_DIRS = frozenset({"doc", "docs", "example", "examples"})  # code that illustrates, not code that runs
SKIPPED_DIRS = frozenset({"node_modules", "build", "dist", "venv", "__pycache__"})  # never the project's code
SOURCE_SUFFIX = ".py"
MIN_TOKEN_CHARS = 2  # a one-letter part (``x``, the ``v`` of ``v1``) names nothing
_ENGLISH_STOP = (  # function words: in every task, telling none apart
    "a an the and or but not no nor of to in on at by for from with without into onto as is are was were be"
    " been being it its this that these those there here than then so if else when while which who what"
    " how why can could should would will shall may might must do does did done has have had having we"
    " you they he she i me my our your their them us all any some each also only just more most very"
)
_PYTHON_STOP = (  # keywords and ubiquitous names: in every function, telling none apart
    "def class return self cls import none true false pass elif try except finally raise yield lambda"
    " async await global nonlocal del assert break continue"
)
STOP_WORDS = frozenset(f"{_ENGLISH_STOP} {_PYTHON_STOP}".split())
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens of ``text``: each compound's parts, then the compound itself."""
    tokens: list[str] = []
    for run in _TOKEN.findall(text):
        parts = [p.lower() for piece in run.split("_") for p in _CAMEL.findall(piece)]
        whole = run.strip("_").lower()
        tokens += [p for p in parts if len(p) >= MIN_TOKEN_CHARS and p not in STOP_WORDS]
        if len(parts) > 1 and whole not in STOP_WORDS:
            tokens.append(whole)
    return tokens


def is_source_path(path: str) -> bool:
    """A non-test, non-doc ``.py`` file (the task mining's rules, restated without mnemo)."""
    pure = PurePosixPath(path)
    name, directories = pure.name, pure.parts[:-1]
    if not name.endswith(SOURCE_SUFFIX):
        return False
    if name.startswith(TEST_FILE_PREFIX) or name.endswith(TEST_FILE_SUFFIX) or name == CONFTEST:
        return False
    return not any(d.startswith(TEST_DIR_PREFIX) or d in DOC_DIRS for d in directories)


# -- documents ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Document:
    """One definition: its key, where it starts, and its bag of tokens."""

    key: str  # ``path:qualified.name``
    line: int
    terms: Counter[str]
    length: int


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def definitions(tree: ast.Module) -> Iterator[tuple[str, Definition]]:
    """Every function, method and class with its qualified name, outer ones first. Definitions in
    ``if``/``try``/``with``/loop bodies belong to the enclosing definition, as in mnemo's keys."""
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in reversed(list(ast.iter_child_nodes(node))):
            if isinstance(child, _DEFINITIONS):
                name = f"{prefix}{child.name}"
                yield name, child
                stack.append((name + ".", child))
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                stack.append((prefix, child))


def documents(path: str, source: bytes) -> list[Document]:
    """The documents of one file, in source order (none when ``ast`` cannot parse it)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.decode("utf-8", "replace").splitlines()
    path_terms = tokenize(path)
    docs = []
    for name, node in definitions(tree):
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        terms = Counter(path_terms + tokenize(name) + tokenize("\n".join(lines[start - 1 : end])))
        docs.append(Document(f"{path}:{name}", start, terms, sum(terms.values())))
    return sorted(docs, key=lambda d: d.line)


def source_files(root: Path) -> Iterator[str]:
    """Repo-relative POSIX paths of the source files under ``root``, sorted (hidden and build
    directories skipped)."""
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS]
        relative = Path(directory).relative_to(root)
        found += [(relative / f).as_posix() for f in files]
    yield from sorted(p for p in found if is_source_path(p))


class Corpus:
    """The documents of a tree, re-parsing only files whose bytes changed since the last call."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[bytes, list[Document]]] = {}

    def documents(self, root: Path) -> list[Document]:
        """Every document of the source files under ``root`` now."""
        files: dict[str, tuple[bytes, list[Document]]] = {}
        for path in source_files(root):
            try:
                source = (root / path).read_bytes()
            except OSError:
                continue
            digest = hashlib.blake2b(source, digest_size=16).digest()
            cached = self._files.get(path)
            files[path] = cached if cached and cached[0] == digest else (digest, documents(path, source))
        self._files = files
        return [d for _, docs in files.values() for d in docs]


# -- scoring --------------------------------------------------------------------------------------
def bm25_scores(docs: Sequence[Document], query: str) -> list[float]:
    """Okapi BM25 of each document for the distinct tokens of ``query``."""
    terms = list(dict.fromkeys(tokenize(query)))
    if not docs or not terms:
        return [0.0] * len(docs)
    average = sum(d.length for d in docs) / len(docs) or 1.0
    frequencies = {t: sum(1 for d in docs if t in d.terms) for t in terms}
    idf = {t: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for t, n in frequencies.items() if n}
    scores = []
    for doc in docs:
        norm = K1 * (1 - B + B * doc.length / average)
        scores.append(
            sum(w * doc.terms[t] * (K1 + 1) / (doc.terms[t] + norm) for t, w in idf.items() if t in doc.terms)
        )
    return scores


def rank(docs: Sequence[Document], query: str) -> list[str]:
    """Keys of the documents matching ``query``, best first (ties: key, then line)."""
    scored = [(s, d) for s, d in zip(bm25_scores(docs, query), docs, strict=True) if s > 0]
    scored.sort(key=lambda item: (-item[0], item[1].key, item[1].line))
    return [d.key for _, d in scored]


def main(argv: Sequence[str] | None = None) -> int:
    """Index ``--root`` from scratch and print the top keys for the task text."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality.baseline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the checked-out tree to search")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="how many keys to print")
    parser.add_argument("text", help="the task, in words")
    args = parser.parse_args(argv)
    keys = rank(Corpus().documents(args.root.resolve()), args.text)
    sys.stdout.write("".join(f"{key}\n" for key in keys[: args.limit]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
