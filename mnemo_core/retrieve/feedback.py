"""Experimental components (weight 0): pseudo-relevance feedback and neighbour-name expansion.

- ``prf{k}_{n}``: the task's first-pass top ``k`` symbols with a body document give the ``n`` words
  most characteristic of them (Rocchio / RM3: each word's share of each document, weighted by the
  document's first-pass score, times its idf in the body index), the task's own terms excluded;
  the body index is searched again with those words alone (BM25, scaled to 1 for the best hit).
- ``prfall{k}_{n}``: the same, the task's terms and the expansion words together.
- ``prft{k}_{n}``: the expansion words searched in the names, signatures and docstrings index.
- ``nbw`` / ``nbw_in`` / ``nbw_out``: the task's terms matched (BM25 over the candidates) against the
  name words of a candidate's one-hop call neighbours (both directions / callers / callees).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from mnemo_core.index.store import Store
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.score import Scored
from mnemo_core.retrieve.seeds import task_terms

PRF_DOCS = (3, 5, 10)
PRF_WORDS = (5, 10, 20)
PRF_ALL = ((5, 10), (10, 20))
PRF_TEXT = ((5, 10), (10, 20))
PRF_LIMIT = 400
DF_CANDIDATES = 60
K1 = 1.2


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def feedback_components(
    store: Store, keywords: Keywords, scored: Sequence[Scored]
) -> dict[int, dict[str, float]]:
    """Every experimental component of every candidate (absent: 0)."""
    out: dict[int, dict[str, float]] = {s.symbol_id: {} for s in scored}
    terms = task_terms(keywords)
    own = {_fold(t.lower()) for t in terms}
    order = [s.symbol_id for s in scored[:40]]
    bodies = dict(
        store.conn.execute(
            f"SELECT rowid, body FROM bodies_fts WHERE rowid IN ({','.join('?' * len(order))})", order
        ).fetchall()
    )
    top = [(sid, s.score) for sid, s in zip(order, scored[:40], strict=True) if sid in bodies]
    total_docs = int(store.conn.execute("SELECT count(*) FROM bodies_fts").fetchone()[0]) or 1
    df_cache: dict[str, int] = {}

    def df(word: str) -> int:
        if word not in df_cache:
            row = store.conn.execute(
                "SELECT count(*) FROM bodies_fts WHERE bodies_fts MATCH ?", (f'"{word}"',)
            ).fetchone()
            df_cache[word] = int(row[0])
        return df_cache[word]

    for k in PRF_DOCS:
        docs = top[:k]
        best = max((score for _, score in docs), default=0.0) or 1.0
        raw: dict[str, float] = {}
        for sid, score in docs:
            words = [w for w in str(bodies[sid]).split() if len(w) > 2 and not w.isdigit()]
            counts = Counter(words)
            for word, tf in counts.items():
                if _fold(word) not in own:
                    raw[word] = raw.get(word, 0.0) + tf / len(words) * (score / best)
        picked = sorted(raw, key=lambda w: -raw[w])[:DF_CANDIDATES]  # ties: first seen
        weighted = sorted(picked, key=lambda w: (-raw[w] * math.log(total_docs / (1 + df(w))), w))
        for n in PRF_WORDS:
            expansion = weighted[:n]
            _put(out, f"prf{k}_{n}", store.body_search(_match(expansion), PRF_LIMIT))
            if (k, n) in PRF_ALL:
                _put(out, f"prfall{k}_{n}", store.body_search(_match([*terms, *expansion]), PRF_LIMIT))
            if (k, n) in PRF_TEXT:
                _put(out, f"prft{k}_{n}", store.fts_search(_match(expansion), PRF_LIMIT))
    _neighbour_words(store, out, own)
    _priors(store, out)
    return out


def _priors(store: Store, out: dict[int, dict[str, float]]) -> None:
    """``size``: the symbol's length in lines (log, 1 at 200 lines); ``churn``: how many remembered
    commits changed its file (log, scaled to 1 for the most changed candidate file)."""
    symbols = store.symbols_by_ids(out)
    paths = {s.path for s in symbols.values()}
    marks = ",".join("?" * len(paths))
    counts = dict(
        store.conn.execute(
            f"SELECT path, count(*) FROM commit_files WHERE path IN ({marks}) GROUP BY path", list(paths)
        ).fetchall()
    )
    top = max((math.log1p(c) for c in counts.values()), default=0.0) or 1.0
    for sid, sym in symbols.items():
        lines = sym.end_line - sym.start_line + 1
        out[sid]["size"] = round(min(1.0, math.log1p(lines) / math.log1p(200)), 4)
        out[sid]["churn"] = round(math.log1p(counts.get(sym.path, 0)) / top, 4)


def _match(words: Sequence[str]) -> str:
    return " OR ".join(f'"{w}"' for w in words if w.replace('"', ""))


def _put(out: dict[int, dict[str, float]], name: str, hits: list[tuple[int, float]]) -> None:
    best = max((score for _, score in hits), default=0.0) or 1.0
    for sid, score in hits:
        if sid in out:
            out[sid][name] = round(max(score, 0.0) / best, 4)


def _neighbour_words(store: Store, out: dict[int, dict[str, float]], own: set[str]) -> None:
    ids = list(out)
    marks = ",".join("?" * len(ids))
    edges = store.conn.execute(
        f"SELECT src, dst FROM edges WHERE type = 'calls' AND (src IN ({marks}) OR dst IN ({marks}))",
        (*ids, *ids),
    ).fetchall()
    others = {n for e in edges for n in e}
    names = {
        sid: [_fold(w) for w in identifier_words(s.short_name)]
        for sid, s in store.symbols_by_ids(others).items()
    }
    bags: dict[str, dict[int, Counter[str]]] = {"nbw": {}, "nbw_in": {}, "nbw_out": {}}
    for src, dst in set(edges):
        if src == dst:
            continue
        if src in out:  # src calls dst: dst is a callee of src
            for name in ("nbw", "nbw_out"):
                bags[name].setdefault(src, Counter()).update(names.get(dst, []))
        if dst in out:
            for name in ("nbw", "nbw_in"):
                bags[name].setdefault(dst, Counter()).update(names.get(src, []))
    for name, bag in bags.items():
        n_docs = len(out)
        df = Counter(w for counts in bag.values() for w in counts if w in own)
        scores = {
            sid: sum(
                math.log(1 + (n_docs - df[w] + 0.5) / (df[w] + 0.5)) * counts[w] / (counts[w] + K1)
                for w in own
                if w in counts
            )
            for sid, counts in bag.items()
        }
        best = max(scores.values(), default=0.0) or 1.0
        for sid, value in scores.items():
            if value > 0:
                out[sid][name] = round(value / best, 4)
