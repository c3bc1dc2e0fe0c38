"""The subject component: BM25F over each definition's own words, queried with the task's first line.

A commit or pull-request message's first line is its summary; the rest adds symptoms, output and
lists of intermediate commits. So this view asks the short question (the subject's distinct terms,
tokenized as ``index/terms.py`` stores them: unstemmed, compounds kept whole) of a different view
of the code than the stemmed full-text channels: each definition's own text in five fields.
BM25F (Robertson, Zaragoza and Taylor 2004) adds a term's counts over the fields, each weighted
and normalised by that field's length against its mean, and saturates the sum once:

    tf~(t, d) = sum_f w_f * tf_f(t, d) / (1 - b + b * len_f(d) / mean len_f)
    score(d)  = sum_t idf(t) * tf~ / (k1 + tf~),   idf(t) = log(1 + (N - df + 0.5) / (df + 0.5))

over the N documents of the index (the definitions of non-test files), ``df`` counting documents
with the term in any field. Only the postings of the subject's terms are read. The component is
the score scaled to 1 for the best document of the index.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from mnemo_core.index.store import Store
from mnemo_core.index.terms import FIELDS, tokenize

# Field weights in FIELDS order (name = path and qualified name, docstring, comments, other strings,
# identifiers): a subject's word in the name says most (name x5 measured best on the tuning folds,
# against x3, x10 and every field alike; bench/RESULTS.md 2026-11-24 late).
FIELD_WEIGHTS = (5.0, 1.0, 1.0, 1.0, 1.0)
K1 = 1.2  # Okapi's usual saturation (2.0 measured no better)
B = 0.75  # Okapi's usual length normalisation, per field (0.5 measured no better)
MAX_TERMS = 40  # a first line longer than this in terms is not a summary; its first terms suffice
FIELD_NAMES = ("name", "docstring", "comments", "strings", "code")  # FIELDS in words, for reasons
MAX_TERMS_SHOWN = 5


@dataclass(frozen=True)
class SubjectMatch:
    """The subject's terms, each matching document's scaled score, and what it matched where."""

    terms: tuple[str, ...] = ()
    scores: dict[int, float] = field(default_factory=dict)
    matched: dict[int, dict[str, tuple[str, ...]]] = field(default_factory=dict)  # term -> fields

    def channel(self, limit: int) -> tuple[list[tuple[int, str]], dict[int, float]]:
        """The best ``limit`` documents as a seed channel (best first, ties by id) with their scores."""
        best = sorted(self.scores, key=lambda sid: (-self.scores[sid], sid))[:limit]
        return [(sid, self.reason(sid) or "") for sid in best], {sid: self.scores[sid] for sid in best}

    def reason(self, sid: int) -> str | None:
        """The matched terms of ``sid`` and the fields they are in, in words (None: no match)."""
        found = self.matched.get(sid)
        if not found:
            return None
        ordered = [t for t in self.terms if t in found][:MAX_TERMS_SHOWN]
        shown = [f"{term} ({', '.join(found[term])})" for term in ordered]
        return f"the task's first line matches {'; '.join(shown)}"


def subject_line(text: str) -> str:
    """The task's first non-blank line."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def subject_match(store: Store, text: str) -> SubjectMatch:
    """Score every definition holding a term of the task's first line (BM25F, best = 1)."""
    terms = tuple(dict.fromkeys(tokenize(subject_line(text))))[:MAX_TERMS]
    rows = store.term_postings(terms)
    if not rows:
        return SubjectMatch(terms)
    documents, means = store.term_stats()
    df: dict[str, int] = defaultdict(int)
    for row in rows:
        df[row[0]] += 1
    idf = {t: math.log(1 + (documents - n + 0.5) / (n + 0.5)) for t, n in df.items()}
    raw: dict[int, float] = defaultdict(float)
    matched: dict[int, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for term, sid, *values in rows:
        counts, lengths = values[: len(FIELDS)], values[len(FIELDS) :]
        tf = sum(
            weight * count / (1 - B + B * length / mean)
            for weight, count, length, mean in zip(FIELD_WEIGHTS, counts, lengths, means, strict=True)
            if count
        )
        raw[sid] += idf[term] * tf / (K1 + tf)
        matched[sid][term] = tuple(name for name, count in zip(FIELD_NAMES, counts, strict=True) if count)
    best = max(raw.values()) or 1.0
    return SubjectMatch(terms, {sid: score / best for sid, score in raw.items()}, dict(matched))
