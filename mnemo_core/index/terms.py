"""Each definition's own words in fields, unstemmed: what the subject channel's BM25F reads.

A definition's document is its own text (nested definitions are documents of their own, as in
``bodytext``), its tokens sorted into five fields: its **name** (the file's path and the qualified
name), its **docstring**, its **comments**, its other **string** literals and its **identifiers**
(everything else). Comments and strings are the grammar's own nodes (found by one query per
language); the docstring's words are taken out of the strings field, where Python writes it.

Tokens are runs of ``[A-Za-z0-9_]``, lower-cased; a ``snake_case`` or ``camelCase`` compound gives
its parts and the whole compound (``getURLPath`` -> get url path geturlpath); parts of one
character and a stop list of English function words and Python keywords are dropped; counts are
raw (no cap). Nothing is stemmed: ``parse`` and ``parser`` stay apart, which is what this view is
for (mnemo's full-text tables are porter-stemmed). Each definition's terms are stored with their
count per field, so a query reads only the postings of its own few terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from tree_sitter import Node, Query, QueryCursor

from mnemo_core.index.bodytext import own_ranges
from mnemo_core.index.languages import LanguageSpec

FIELDS = ("name", "doc", "comment", "string", "ident")
NAME, DOC, COMMENT, STRING, IDENT = range(len(FIELDS))
MIN_TOKEN_CHARS = 2  # a one-letter part (``x``, the ``v`` of ``v1``) names nothing
MAX_CACHED_TOKENS = 200_000  # split tokens remembered across the files a process extracts
# Node kinds of comments and string literals across the grammars; each language uses those it has.
COMMENT_KINDS = ("comment", "line_comment", "block_comment")
STRING_KINDS = (
    "string",
    "string_literal",
    "raw_string_literal",
    "interpreted_string_literal",
    "template_string",
    "char_literal",
    "heredoc_body",
)
_ENGLISH_STOP = (  # function words: in every task, telling none apart
    "a an the and or but not no nor of to in on at by for from with without into onto as is are was were be"
    " been being it its this that these those there here than then so if else when while which who what"
    " how why can could should would will shall may might must do does did done has have had having we"
    " you they he she i me my our your their them us all any some each also only just more most very"
)
_KEYWORD_STOP = (  # keywords and ubiquitous names: in every function, telling none apart
    "def class return self cls import none true false pass elif try except finally raise yield lambda"
    " async await global nonlocal del assert break continue"
)
STOP_WORDS = frozenset(f"{_ENGLISH_STOP} {_KEYWORD_STOP}".split())
_RUN = re.compile(r"[A-Za-z0-9_]+")
_RUN_BYTES = re.compile(rb"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SPLIT: dict[bytes, list[str]] = {}  # token -> its terms: identifiers repeat across files
_QUERIES: dict[str, Query | None] = {}  # by language name

TermCounts = tuple[tuple[str, int, int, int, int, int], ...]  # (term, count in each of FIELDS), by term


def tokenize(text: str) -> list[str]:
    """Lower-cased terms of ``text``: each compound's parts, then the compound itself."""
    return [term for run in _RUN.findall(text) for term in _run_terms(run)]


def _run_terms(run: str) -> list[str]:
    parts = [p.lower() for piece in run.split("_") for p in _CAMEL.findall(piece)]
    terms = [p for p in parts if len(p) >= MIN_TOKEN_CHARS and p not in STOP_WORDS]
    whole = run.strip("_").lower()
    if len(parts) > 1 and whole not in STOP_WORDS:
        terms.append(whole)
    return terms


def definition_terms(
    source: bytes,
    root: Node,
    spec: LanguageSpec,
    spans: Sequence[tuple[int, int]],
    names: Sequence[str],
    docstrings: Sequence[str],
) -> list[TermCounts]:
    """The term counts of each definition (``spans`` as ``(start_byte, end_byte)``, with its
    name words, path included, in ``names`` and its docstring in ``docstrings``)."""
    literals = _literal_ranges(root, spec)
    counts = [[Counter[str]() for _ in FIELDS] for _ in spans]
    if len(_SPLIT) > MAX_CACHED_TOKENS:
        _SPLIT.clear()
    for start, end, owner in own_ranges(len(source), spans):
        if owner < len(spans):
            _count_range(source, start, end, literals, counts[owner])
    out = []
    for fields, name, docstring in zip(counts, names, docstrings, strict=True):
        fields[NAME].update(tokenize(name))
        fields[DOC].update(tokenize(docstring))
        fields[STRING] -= fields[DOC]  # the docstring is a string literal of its body (Python)
        out.append(_encode(fields))
    return out


def _count_range(
    source: bytes, start: int, end: int, literals: Sequence[tuple[int, int, int]], fields: list[Counter[str]]
) -> None:
    """Count the tokens of ``source[start:end]`` into the comment, string or identifier field."""
    at = start
    for lit_start, lit_end, field in literals:  # sorted, non-overlapping
        if lit_end <= at:
            continue
        if lit_start >= end:
            break
        if lit_start > at:
            _count_tokens(source, at, lit_start, fields[IDENT], code=True)
        _count_tokens(source, max(at, lit_start), min(end, lit_end), fields[field])
        at = min(end, lit_end)
    if at < end:
        _count_tokens(source, at, end, fields[IDENT], code=True)


def _count_tokens(source: bytes, start: int, end: int, into: Counter[str], code: bool = False) -> None:
    """Count the terms of the tokens in ``source[start:end]``; in ``code``, numbers are not words."""
    for token, n in Counter(_RUN_BYTES.findall(source, start, end)).items():
        if code and token[:1].isdigit():
            continue
        terms = _SPLIT.get(token)
        if terms is None:
            terms = _SPLIT[token] = _run_terms(token.decode("ascii"))
        for term in terms:
            into[term] += n


def _encode(fields: list[Counter[str]]) -> TermCounts:
    terms = sorted(set().union(*fields))
    return tuple((t, *(f[t] for f in fields)) for t in terms)  # type: ignore[misc]


def _literal_ranges(root: Node, spec: LanguageSpec) -> list[tuple[int, int, int]]:
    """The file's comments and string literals as sorted, non-overlapping ``(start, end, field)``
    (a string inside another, as in an f-string's replacement field, belongs to the outer one)."""
    query = _literal_query(spec)
    if query is None:
        return []
    found = [
        (node.start_byte, node.end_byte, COMMENT if name == "comment" else STRING)
        for name, nodes in QueryCursor(query).captures(root).items()
        for node in nodes
    ]
    found.sort(key=lambda r: (r[0], -r[1]))
    kept: list[tuple[int, int, int]] = []
    for item in found:
        if not kept or item[0] >= kept[-1][1]:
            kept.append(item)
    return kept


def _literal_query(spec: LanguageSpec) -> Query | None:
    """A query capturing the comment and string nodes this grammar has (None if it has neither)."""
    if spec.name not in _QUERIES:
        language = spec.ts_language
        patterns = [f"({kind}) @comment" for kind in COMMENT_KINDS if language.id_for_node_kind(kind, True)]
        patterns += [f"({kind}) @string" for kind in STRING_KINDS if language.id_for_node_kind(kind, True)]
        _QUERIES[spec.name] = Query(language, "\n".join(patterns)) if patterns else None
    return _QUERIES[spec.name]
