"""The multi-language benchmark's independent parser and baseline: universal-ctags spans and BM25.

Nothing here uses mnemo's index or extractor. ``ctags --output-format=json --fields=+ne`` lists each
file's definitions with their kind, scope and first line; where ctags gives no last line (its Rust,
JavaScript and TypeScript parsers), the span is closed by bracket matching from the first line:
the definition ends where a ``}`` brings the bracket depth back to 0, or at a ``;`` at depth 0 (a
declaration without a body, an arrow function without braces). Comments and string literals are
skipped; a Rust ``'`` is a character literal only when one closes it right after, else a lifetime.

The corpus is every named function, method and type of the non-test, non-doc, non-vendored source
files (Go, Rust, Java, C#, JavaScript, TypeScript) under a root; JavaScript and TypeScript constants
and properties whose line holds ``=>`` or ``function`` are functions too (ctags files an arrow
function as a constant). ``python -m bench.quality.ctags_index --root PATH "task"`` prints the
BM25 baseline's top keys, as ``python -m bench.quality.baseline`` does for Python: one document per
definition, its path, qualified name and the source lines of its span, scored by the Python
baseline's Okapi BM25 and tokenizer with a stop list grown by these languages' keywords.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bench.quality import baseline

CTAGS = "/usr/bin/ctags"
CTAGS_ARGS = ("--output-format=json", "--fields=+ne", "--sort=no", "-o", "-", "-L", "-")
EXTENSIONS = {  # the benchmark's languages, by file suffix
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".cs": "csharp",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".tsx": "typescript",
}
ECMASCRIPT = frozenset({"javascript", "typescript"})
CALLABLE_KINDS = frozenset({"func", "function", "method", "constructor", "generator"})
TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "type", "record"})
ARROW_HOLDERS = frozenset({"constant", "variable", "property", "field"})  # ctags' kinds for `f = () => ...`
_ARROW = re.compile(r"=>|\bfunction\b")
_ANONYMOUS = re.compile(r"^(?:Anonymous\w*|anon\w*?)[0-9a-f]{6,}$|^func\d+$")  # ctags' invented names
TEST_DIRS = frozenset({"__tests__", "spec", "specs", "bench", "benches", "testdata", "fixtures", "e2e"})
DOC_DIRS = frozenset({"doc", "docs", "example", "examples", "sample", "samples"})
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "third_party", "dist", "build", "target", "out"})
TEST_SUFFIXES = ("_test.go", "Test.java", "Tests.java", "Test.cs", "Tests.cs", ".d.ts")
_TEST_NAME = re.compile(r"\.(?:test|spec)\.[cm]?[jt]sx?$")
TEST_SCOPES = frozenset({"tests", "test"})  # Rust's inline `mod tests`
RUST_ATTRIBUTE_LINES = 4  # attributes stacked above a function (`#[test]`, `#[ignore]`, ...)
RUST_TEST_ATTRIBUTES = ("#[test]", "#[tokio::test", "#[cfg(test)]", "#[bench]")
MAX_SPAN_LINES = 5000  # a bracket that never closes stops here, not at the end of a huge file
_EXTRA_STOP_WORDS = (  # keywords of these languages: in every definition, telling none apart
    "func fn pub impl mut let const var public private protected static void final new this"
    " nil null undefined err string int bool mod use crate super struct interface extends implements"
    " export function typeof instanceof package go type match loop where enum trait"
)
_EXTRA_STOP = frozenset(_EXTRA_STOP_WORDS.split())


@dataclass(frozen=True)
class Tag:
    """One ctags definition: ``key`` is ``path:scope.name`` (overloads share it), ``line``..``end``
    its span (1-based, inclusive)."""

    path: str
    name: str
    scope: str
    kind: str
    line: int
    end: int

    @property
    def key(self) -> str:
        return f"{self.path}:{self.scope + '.' if self.scope else ''}{self.name}"

    @property
    def callable(self) -> bool:
        return self.kind in CALLABLE_KINDS


def language(path: str) -> str | None:
    """The benchmark language of a path, by suffix (None for other files)."""
    return EXTENSIONS.get(PurePosixPath(path).suffix)


def is_source_path(path: str) -> bool:
    """A non-test, non-doc, non-vendored source file of one of the benchmark's languages."""
    pure = PurePosixPath(path)
    if language(path) is None or pure.name.endswith(TEST_SUFFIXES) or _TEST_NAME.search(pure.name):
        return False
    directories = pure.parts[:-1]
    if any(d.startswith((".", "test")) for d in directories):
        return False
    return not (TEST_DIRS | DOC_DIRS | SKIPPED_DIRS).intersection(directories)


# -- spans ------------------------------------------------------------------------------------
def bracket_end(lines: Sequence[str], start: int, rust: bool = False) -> int:
    """The last line (1-based) of the definition starting on line ``start``, by bracket matching."""
    depth, state = 0, ""  # state: "" code, "/*" block comment, or the quote that opened a string
    for number in range(start, min(len(lines), start + MAX_SPAN_LINES) + 1):
        text, i = lines[number - 1], 0
        while i < len(text):
            char, pair = text[i], text[i : i + 2]
            if state == "/*":
                state, i = ("", i + 2) if pair == "*/" else (state, i + 1)
                continue
            if state:
                if char == "\\":
                    i += 2
                    continue
                state, i = ("" if char == state else state), i + 1
                continue
            if pair == "//":
                break
            if pair == "/*":
                state, i = "/*", i + 2
                continue
            if char == "'" and rust:
                literal = re.match(r"'(?:\\.[^']*|[^\\'])'", text[i:])
                i += len(literal.group(0)) if literal else 1
                continue
            if char in "\"'`":
                state = char
            elif char in "{([":
                depth += 1
            elif char in "})]":
                depth -= 1
                if depth <= 0 and char == "}":
                    return number
            elif char == ";" and depth <= 0:
                return number
            i += 1
        if state != "/*" and state != "`":
            state = ""  # a string never spans lines in these languages (template literals aside)
    return start


def parse_tags(output: str, sources: dict[str, list[str]]) -> list[Tag]:
    """Named callables and types from ctags' JSON lines, each with its span (``sources``: the lines
    of each file, for the spans ctags leaves open)."""
    tags = []
    for line in output.splitlines():
        if not line.startswith("{"):
            continue
        raw = json.loads(line)
        path, name, kind = raw.get("path", ""), raw.get("name", ""), raw.get("kind", "")
        lang = language(path)
        if lang in ECMASCRIPT and kind in ARROW_HOLDERS and _ARROW.search(raw.get("pattern", "")):
            kind = "function"
        scope = raw.get("scope", "")
        if kind not in CALLABLE_KINDS | TYPE_KINDS or _ANONYMOUS.match(name) or "line" not in raw:
            continue
        if TEST_SCOPES.intersection(re.split(r"[.:]+", scope)):
            continue
        start = int(raw["line"])
        if lang == "rust" and _is_rust_test(sources.get(path, []), start):
            continue
        end = int(raw["end"]) if "end" in raw else bracket_end(sources.get(path, []), start, lang == "rust")
        tags.append(Tag(path, name, scope, kind, start, max(end, start)))
    return tags


def _is_rust_test(lines: Sequence[str], line: int) -> bool:
    """A Rust function under a ``#[test]`` attribute (within the attribute lines just above it)."""
    for above in reversed(lines[max(0, line - 1 - RUST_ATTRIBUTE_LINES) : line - 1]):
        stripped = above.strip()
        if not stripped.startswith("#["):
            return False
        if stripped.startswith(RUST_TEST_ATTRIBUTES):
            return True
    return False


def run_ctags(root: Path, sources: dict[str, list[str]]) -> list[Tag]:
    """The tags of the files of ``sources`` (paths relative to ``root`` -> their lines), one ctags
    process for all of them."""
    if not sources:
        return []
    done = subprocess.run(
        [CTAGS, *CTAGS_ARGS],
        input="\n".join(sources),
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
    )
    return parse_tags(done.stdout, sources)


def read_lines(path: Path) -> list[str]:
    """A file's lines (none when it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def innermost(tags: Iterable[Tag], line: int, strictly_inside: bool = False) -> Tag | None:
    """The smallest callable whose span holds ``line`` (for an insertion after ``line``: strictly
    before its last line)."""
    holding = [
        t
        for t in tags
        if t.callable and t.line <= line and (line < t.end if strictly_inside else line <= t.end)
    ]
    return min(holding, key=lambda t: (t.end - t.line, -t.line), default=None)


# -- the BM25 baseline ----------------------------------------------------------------------------
def tokenize(text: str) -> list[str]:
    """The Python baseline's tokens without these languages' keywords."""
    return [t for t in baseline.tokenize(text) if t not in _EXTRA_STOP]


def documents(tags: Iterable[Tag], sources: dict[str, list[str]]) -> list[baseline.Document]:
    """One BM25 document per tag: its path, qualified name and the lines of its span."""
    docs = []
    for tag in tags:
        body = "\n".join(sources.get(tag.path, [])[tag.line - 1 : tag.end])
        terms = Counter(tokenize(tag.path) + tokenize(f"{tag.scope} {tag.name}") + tokenize(body))
        docs.append(baseline.Document(f"{tag.key}@{tag.line}", tag.line, terms, sum(terms.values())))
    return docs


def rank(docs: Sequence[baseline.Document], query: str) -> list[str]:
    """Document ids (``key@line``) matching ``query``, best first."""
    query_terms = " ".join(tokenize(query))
    return baseline.rank(docs, query_terms)


def source_files(root: Path) -> Iterator[str]:
    """The benchmark's source files under ``root`` (git's list when it is a repository)."""
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=False)
    listed = [p for p in done.stdout.decode("utf-8", "replace").split("\0") if p]
    yield from sorted(p for p in listed if is_source_path(p))


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``--root`` from scratch and print the top keys for the task text."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.ctags_index", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the checked-out tree to search")
    parser.add_argument("--limit", type=int, default=baseline.DEFAULT_LIMIT, help="how many keys to print")
    parser.add_argument("text", help="the task, in words")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sources = {p: read_lines(root / p) for p in source_files(root)}
    keys = rank(documents(run_ctags(root, sources), sources), args.text)
    sys.stdout.write("".join(f"{key}\n" for key in keys[: args.limit]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
