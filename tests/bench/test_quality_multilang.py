"""The multi-language benchmark's own parts, without network: ctags spans, the source rules, the
ground truth of a diff, the matching of ranked symbols to it, and the ctags BM25 baseline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import write_files

from bench.quality import ctags_index
from bench.quality.ctags_index import Tag, bracket_end, documents, is_source_path, parse_tags, rank
from bench.quality.mining import OldSideChange
from bench.quality.multilang_tasks import Ranked, Truth, as_keys, changes_code, short_name, touched, truth_of

RUST = """impl<'a> Searcher<'a> {
    pub fn new(s: &'a str) -> Searcher<'a> {
        let brace = '{';
        let text = "a } in a string";
        // a } in a comment
        Searcher { s }
    }

    fn declared(&self) -> usize;
}
"""
JS = """export const parse = (text) => {
  const shape = `template ${text} with }`;
  /* a } in a block
     comment */
  return shape;
};
const short = (x) => x + 1;
"""


def test_bracket_end_skips_strings_comments_and_lifetimes() -> None:
    lines = RUST.splitlines()
    assert bracket_end(lines, 2, rust=True) == 7  # `'a`, `'{'`, a string and a comment hold no bracket
    assert bracket_end(lines, 9, rust=True) == 9  # a declaration ends at its `;`
    assert bracket_end(lines, 1, rust=True) == 10
    js = JS.splitlines()
    assert bracket_end(js, 1) == 6
    assert bracket_end(js, 7) == 7  # an arrow function without braces


def tag_line(**fields: object) -> str:
    return json.dumps({"_type": "tag", **fields})


def test_parse_tags_keeps_named_definitions_with_spans() -> None:
    output = "\n".join(
        [
            tag_line(
                name="parse",
                path="src/a.js",
                kind="constant",
                line=1,
                pattern="/^export const parse = (text) => {$/",
            ),
            tag_line(
                name="short",
                path="src/a.js",
                kind="constant",
                line=7,
                pattern="/^const short = (x) => x + 1;$/",
            ),
            tag_line(name="LIMIT", path="src/a.js", kind="constant", line=8, pattern="/^const LIMIT = 3;$/"),
            tag_line(name="AnonymousFunction1a2b3c4d0100", path="src/a.js", kind="function", line=2),
            tag_line(name="Abort", path="context.go", kind="func", line=3, end=5, scope="gin.Context"),
            tag_line(
                name="it_works", path="src/lib.rs", kind="function", line=3, scope="tests", scopeKind="module"
            ),
            tag_line(name="checked", path="src/lib.rs", kind="function", line=6),
            tag_line(name="main", path="src/lib.rs", kind="function", line=9),
        ]
    )
    sources = {
        "src/a.js": [*JS.splitlines(), "const LIMIT = 3;"],
        "src/lib.rs": [
            "mod tests {",
            "    #[test]",
            "    fn it_works() {}",
            "}",
            "#[test]",
            "fn checked() {}",
            "",
            "",
            "fn main() {",
            "}",
        ],
    }
    tags = parse_tags(output, sources)
    assert [(t.name, t.kind, t.line, t.end) for t in tags] == [
        ("parse", "function", 1, 6),
        ("short", "function", 7, 7),
        ("Abort", "func", 3, 5),
        ("main", "function", 9, 10),
    ]
    assert tags[2].key == "context.go:gin.Context.Abort"


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("context.go", True),
        ("context_test.go", False),
        ("crates/core/flags/defs.rs", True),
        ("crates/core/tests/misc.rs", False),
        ("benches/walk.rs", False),
        ("gson/src/main/java/com/google/gson/Gson.java", True),
        ("gson/src/test/java/com/google/gson/GsonTest.java", False),
        ("lib/core/Axios.js", True),
        ("lib/core/Axios.test.js", False),
        ("source/types/options.d.ts", False),
        ("node_modules/x/index.js", False),
        ("examples/server.go", False),
        ("README.md", False),
    ],
)
def test_source_paths(path: str, source: bool) -> None:
    assert is_source_path(path) is source


def test_ground_truth_is_the_innermost_callable_and_overloads_share_a_key() -> None:
    tags = [
        Tag("A.java", "A", "", "class", 1, 20),
        Tag("A.java", "put", "A", "method", 2, 5),
        Tag("A.java", "put", "A", "method", 7, 9),
        Tag("A.java", "run", "A", "method", 11, 18),
        Tag("A.java", "Inner", "A", "class", 12, 17),
        Tag("A.java", "step", "A.Inner", "method", 13, 15),
    ]
    change = OldSideChange(changed=[(3, 3), (14, 14), (19, 19)], inserted_after=[11, 18])
    hit = touched(tags, change)
    assert [t.key for t in hit] == ["A.java:A.put", "A.java:A.Inner.step", "A.java:A.run"]
    truth = truth_of(tags, hit)
    assert truth[0] == Truth("A.java:A.put", "A.java", "put", (2, 7))


def test_a_ranked_symbol_answers_by_file_name_and_line() -> None:
    truth = [Truth("A.java:A.put", "A.java", "put", (2, 7)), Truth("A.java:A.A", "A.java", "A", (21,))]
    ranking = [
        Ranked("A.java", "put", 7, 9),  # the second overload
        Ranked("B.java", "put", 1, 3),  # another file
        Ranked("A.java", "A", 1, 30),  # the class holding its constructor
        Ranked("A.java", "put", 40, 44),  # the same name elsewhere in the file
        Ranked("A.java", "xhrAdapter", 21, 30),  # another name, starting on the definition's line
    ]
    keys = ["A.java:A.put", "B.java:put@1", "A.java:A.A", "A.java:put@40", "A.java:A.A"]
    assert as_keys(ranking, truth) == keys
    constructor = [Truth("src/Ky.ts:Ky.constructor", "src/Ky.ts", "constructor", (12,))]
    assert as_keys([Ranked("src/Ky.ts", "Ky", 3, 90)], constructor) == ["src/Ky.ts:Ky.constructor"]
    assert [short_name(n) for n in ("Jekyll::Filters#slugify", "pkg.Type.Method", "Type::new")] == [
        "slugify",
        "Method",
        "new",
    ]


def test_a_comment_only_diff_changes_no_code() -> None:
    comment = "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3 +3 @@\n-// old\n+// new\n"
    code = comment + "@@ -9 +9 @@\n-\treturn 1\n+\treturn 2\n"
    test_only = "diff --git a/x_test.go b/x_test.go\n@@ -1 +1 @@\n-\ta()\n+\tb()\n"
    assert not changes_code(comment)
    assert changes_code(code)
    assert not changes_code(test_only)


def test_bm25_ranks_the_definition_whose_span_holds_the_task_s_words() -> None:
    tags = [Tag("a.go", "Render", "JSON", "func", 1, 3), Tag("b.go", "Close", "Conn", "func", 1, 3)]
    sources = {
        "a.go": ["func (r JSON) Render() error {", "\treturn writeJSON(r.Data)", "}"],
        "b.go": ["func (c *Conn) Close() error {", "\treturn c.sock.Close()", "}"],
    }
    docs = documents(tags, sources)
    assert rank(docs, "render the data as json") == ["a.go:JSON.Render@1"]
    assert rank(docs, "pub fn func return") == []  # keywords of the language tell nothing apart


@pytest.mark.skipif(shutil.which(ctags_index.CTAGS) is None, reason="universal-ctags is not installed")
def test_run_ctags_on_real_files(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {"src/lib.rs": RUST, "context.go": "package gin\n\nfunc (c *Context) Abort() {\n\tc.index = 1\n}\n"},
    )
    sources = {p: ctags_index.read_lines(tmp_path / p) for p in ("src/lib.rs", "context.go")}
    spans = {(t.path, t.name): (t.line, t.end) for t in ctags_index.run_ctags(tmp_path, sources)}
    assert spans[("src/lib.rs", "new")] == (2, 7)
    assert spans[("context.go", "Abort")] == (3, 5)
