"""The composite score: named components, each in [0, 1], times named weights.

``score = sum(weight_c * component_c)``, then multiplied by the test demotion when the symbol is
test code and the task is not about tests, by a prior for kinds that are rarely the target
(constants), and outside Python, without the semantic channel, by ``NAMED`` when the task names the
symbol as code is written (its name among the task's backtick terms and compounds). Every
component, weight and multiplier shows up in ``mnemo why``.

- lexical: the fused seed score (RRF), scaled so the best seed has 1.
- walk: the random-walk probability, scaled so the best candidate has 1.
- authority: HITS authority among the top walk nodes; counts fully for seeds (central seeds rise),
  half for the rest.
- proximity: ``1 / (1 + hops)`` from the nearest seed.
- recency: ``0.5 ** (age / RECENCY_HALF_LIFE_DAYS)``, age of the newest commit over the symbol's lines,
  measured back from the newest commit in the repository (so an old checkout is judged on its own time).
- generic: how much of a catch-all the symbol is (many callers, no lexical match).
- file: how strongly the task's matches concentrate in the symbol's file.
- text: the BM25 score of the full-text match, scaled so the best hit has 1.
- history: the votes of similar past commits for the symbol, scaled so the best has 1.
- body: the BM25 score of the match in the symbol's own body words, scaled so the best hit has 1.
- session: what this session just touched (returned, opened, hovered, edited), decayed and capped
  (``recall.py``); 0 when memory is off or the symbol was not touched lately.
- memory: how strongly similar past tasks recall the symbol as useful, scaled so the best has 1.
- semantic: how far the cosine between the task's and the symbol's vectors (the optional semantic
  channel, ``mnemo_core/semantic``) exceeds the floor of the symbol's language
  (``semantic_floor_for``), for the best ``SEMANTIC_POOL`` product candidates by the other
  components; 0 without the channel or the symbol's vector.

A symbol said useless for a similar past task is multiplied by the ``useless`` factor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.seeds import Seed

if TYPE_CHECKING:
    from mnemo_core.retrieve.vendored import Foreign
    from mnemo_core.retrieve.walk import WalkResult

# Learned by ``python -m bench.quality.learn fit`` on the tuning repositories (coordinate ascent on
# the mean of R@10 and MRR; leave-one-repository-out folds in bench/RESULTS.md), rounded; the comment
# on each says what the component means.
WEIGHTS = {
    "lexical": 0.15,  # the task names it (fused rank across the name, text, body, history and path channels)
    "walk": 0.0,  # it sits where the walk from the task's seeds spends its time (learned: adds nothing here)
    "authority": 0.0,  # code that the relevant code relies on (learned: adds nothing; at 0, no walk runs)
    "proximity": 0.0,  # close to a seed in the graph (learned: adds nothing here)
    "recency": 0.0,  # its file changed lately (learned: adds nothing beyond the history channel)
    "generic": 0.05,  # called from many places without a lexical match (learned: a slight plus, not a minus)
    "file": 0.04,  # its file is where the task's terms concentrate
    "text": -0.05,  # how well its name, signature, docstring and path match, beyond their share in lexical
    "body": 0.25,  # how well its own code matches (BM25): the strongest single signal
    "history": 0.10,  # similar past changes touched it
    # Not learned (the tuning tasks have no memory, so these are 0 there and change nothing): set so
    # that memory reorders the task's own matches rather than outvoting them.
    "session": 0.05,  # touched in this session: a nudge worth about a good file match, not a body match
    "memory": 0.20,  # useful for a similar past task: said by a person or a landed commit, so strong
    # Chosen with SEMANTIC_POOL and SEMANTIC_FLOOR on three tuning repositories (session 42: every
    # leave-one-out fold chose 0.75); 0 without the optional channel or a vector (no effect then).
    "semantic": 0.75,  # similar in meaning to the task: its vector's cosine with the task's, above a floor
}
# Where another language's code ranks better under other weights: the values that differ from the
# ones above, which were learned on Python. Outside Python the full-text match of a name, signature
# and docstring is no penalty, and a candidate near a seed in the graph steps ahead a little (every
# leave-one-out fold of the multi-language tuning repositories chose these; each gained on the
# held-out ones, bench/RESULTS.md, session 41).
LEARNED_ON = frozenset({"python"})  # the languages WEIGHTS were fitted on
OTHER_LANGUAGES = {"text": 0.0, "proximity": 0.02}
SEMANTIC_POOL = 100  # the best product candidates compared by meaning (every fold chose 100 over 30)
SEMANTIC_FLOOR = 0.2  # in Python a cosine counts by how far it exceeds this: below it, MiniLM's say little
# Outside Python the cosine counts whole: every leave-one-out fold of the multi-language tuning
# repositories chose no floor (with the pool and weight above; bench/RESULTS.md, session 42).
OTHER_SEMANTIC_FLOOR = 0.0
FILE_SEEDS = 5  # a file's relevance counts its best few matches, so big files do not win by size
TEST_DEMOTION = 0.2  # test code, unless the task is about tests, is context rather than target
NON_PRODUCT_DEMOTION = 0.2  # examples, docs, scripts and benchmarks, likewise, unless the task names them
MIN_NAMED_STEM = 4  # a shorter file name ("run", "cli") is too likely a word of the task
_FILE_NAME_PARTS = re.compile(r"[./:\\]")
NON_PRODUCT_DIRS = frozenset(
    {
        "example",
        "examples",
        "doc",
        "docs",
        "script",
        "scripts",
        "benchmark",
        "benchmarks",
        "bench",
        "demo",
        "demos",
        "tutorial",
        "tutorials",
    }
)
KIND_PRIOR = {
    "constant": 0.6,  # a named value is worth seeing, but a task is rarely done by editing one
    "type": 0.8,
    "class": 0.7,  # a class is context; the change usually lands in its methods
    "interface": 0.7,
}
DECLARATION_ONLY = 0.4  # typing overloads and stub files: the implementation is what changes
# A task that writes a symbol's name as code (`serializeDefault`, ``Context.Copy``, or two adjacent
# words joined: "content disposition" -> ContentDisposition) is usually about that symbol; the fused
# name match alone left such answers behind long body matches. Only without the semantic channel
# (its cosine already carries the name; the two together cost MRR on the tuning repositories) and
# outside Python (held out it cost Python's MRR and gained the other languages' R@10 and MRR;
# bench/RESULTS.md, session 43).
NAMED = 1.2
STUB_SUFFIXES = (".pyi", ".d.ts")
NON_SEED_AUTHORITY = 0.5
RECENCY_HALF_LIFE_DAYS = 90.0
GENERIC_FAN_IN = 30  # a symbol with this many distinct callers counts as fully generic
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Recency:
    """When a symbol's lines last changed, and by which commit."""

    timestamp: int
    sha: str
    author: str
    subject: str
    source: str  # "blame" (line level) or "log" (file level)


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate's score, its components (values before weighting) and the multipliers applied."""

    symbol_id: int
    score: float
    components: dict[str, float]
    multipliers: dict[str, float]

    @property
    def demoted(self) -> bool:
        """Whether the test demotion applies."""
        return "test" in self.multipliers


def recency_component(recency: Recency | None, reference: int | None) -> float:
    """``0.5 ** (age_days / half_life)``; neutral 0 when there is no history."""
    if recency is None or reference is None:
        return 0.0
    age_days = max(0.0, (reference - recency.timestamp) / SECONDS_PER_DAY)
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def generic_component(fan_in: int, lexical: float) -> float:
    """How generic a symbol is: grows with the log of its callers; zero when the task names it."""
    if lexical > 0 or fan_in <= 1:
        return 0.0
    return min(1.0, math.log1p(fan_in) / math.log1p(GENERIC_FAN_IN))


def multipliers_for(symbol: Symbol, keywords: Keywords, foreign: Foreign | None = None) -> dict[str, float]:
    """The factors applied after the weighted sum: test, code nobody here writes (``foreign``: its
    file's kind, ``vendored.py``: build output, vendored or minified) and non-product demotion, the
    kind prior, and declarations without a body (typing overloads, stub files)."""
    factors = {}
    if symbol.is_test and not keywords.about_tests:
        factors["test"] = TEST_DEMOTION
    elif foreign is not None:
        factors[foreign.multiplier] = foreign.factor
    elif non_product_dir(symbol.path, keywords):
        factors["non-product"] = NON_PRODUCT_DEMOTION
    if symbol.kind in KIND_PRIOR:
        factors["kind"] = KIND_PRIOR[symbol.kind]
    if is_declaration(symbol):
        factors["declaration"] = DECLARATION_ONLY
    if symbol.language not in LEARNED_ON and symbol.short_name.lower() in named_terms(keywords):
        factors["named"] = NAMED
    return factors


@lru_cache(maxsize=8)
def named_terms(keywords: Keywords) -> frozenset[str]:
    """The names the task writes as code, lower-case: the last part of each backtick term and
    compound (``pkg/mod.py:Session.get`` and ``Session.get`` name ``get``; a call's ``()`` dropped)."""
    terms = (
        t.split(":")[-1].removesuffix("()").rsplit(".", 1)[-1] for t in (*keywords.exact, *keywords.compounds)
    )
    return frozenset(t.lower() for t in terms if t)


def is_declaration(symbol: Symbol) -> bool:
    """A declaration without the implementation: a typing overload or a stub file's definition."""
    overload = any(d.rsplit(".", 1)[-1] == "overload" for d in symbol.decorators)
    return overload or symbol.path.endswith(STUB_SUFFIXES)


def non_product_dir(path: str, keywords: Keywords) -> str | None:
    """The examples/docs/scripts/benchmarks directory ``path`` lies in, unless the task names it or
    names the file itself as code is written (``generate_schema.py``, ``scripts.release``)."""
    parts = non_product_dirs(path)
    if not parts or names_file(path, keywords):
        return None
    named = {t.lower() for t in (*keywords.components, *keywords.compounds, *keywords.exact)}
    for part in parts:
        lower = part.lower()
        if lower not in named and lower.rstrip("s") not in named:
            return part
    return None


def non_product_dirs(path: str) -> list[str]:
    """The examples/docs/scripts/benchmarks directories ``path`` lies in: code that shows or
    measures the product, which no user calls and no test is expected to reach."""
    return [part for part in path.split("/")[:-1] if part.lower() in NON_PRODUCT_DIRS]


def names_file(path: str, keywords: Keywords) -> bool:
    """Whether the task writes the file's name as code is written: its stem as a whole identifier,
    module or file name among the task's compounds or backtick terms (a plain word does not count)."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if len(stem) < MIN_NAMED_STEM or stem.startswith("__"):
        return False
    return any(stem in _FILE_NAME_PARTS.split(t.lower()) for t in (*keywords.compounds, *keywords.exact))


def file_relevance(
    candidates: list[int], seeds: Mapping[int, Seed], symbols: Mapping[int, Symbol], top_seed: float
) -> dict[str, float]:
    """Per file, the summed lexical strength of its best ``FILE_SEEDS`` seeds, scaled to 1 for the
    best file: a function in the file the task is about outranks a stray match elsewhere."""
    by_file: dict[str, list[float]] = {}
    for sid in candidates:
        seed = seeds.get(sid)
        if seed is not None:
            by_file.setdefault(symbols[sid].path, []).append(seed.score / top_seed)
    sums = {path: sum(sorted(values, reverse=True)[:FILE_SEEDS]) for path, values in by_file.items()}
    best = max(sums.values(), default=0.0) or 1.0
    return {path: total / best for path, total in sums.items()}


_OTHER_WEIGHTS = {**WEIGHTS, **OTHER_LANGUAGES}


def weights_for(language: str) -> Mapping[str, float]:
    """The weights a symbol of ``language`` is scored by: ``WEIGHTS``, with ``OTHER_LANGUAGES``
    over them outside the languages they were learned on."""
    return WEIGHTS if language in LEARNED_ON else _OTHER_WEIGHTS


def semantic_floor_for(language: str) -> float:
    """The cosine a symbol of ``language`` must exceed for its semantic component to count:
    ``SEMANTIC_FLOOR`` in the languages the weights were learned on, ``OTHER_SEMANTIC_FLOOR`` elsewhere."""
    return SEMANTIC_FLOOR if language in LEARNED_ON else OTHER_SEMANTIC_FLOOR


@dataclass(frozen=True, slots=True)
class Parts:
    """A candidate's unweighted components but the semantic one, its multipliers, and the weights and
    semantic floor of its language: what the semantic channel's cosines are added to without
    computing the rest again."""

    symbol_id: int
    components: dict[str, float]
    multipliers: dict[str, float]
    weights: Mapping[str, float] = field(default_factory=lambda: WEIGHTS)
    floor: float = SEMANTIC_FLOOR


def candidate_parts(
    candidates: list[int],
    seeds: Mapping[int, Seed],
    walk: WalkResult,
    fan_in: Mapping[int, int],
    recency: Mapping[int, Recency],
    reference_time: int | None,
    symbols: Mapping[int, Symbol],
    keywords: Keywords,
    session: Mapping[int, float] | None = None,
    useless: Mapping[int, float] | None = None,
    foreign: Mapping[str, Foreign] | None = None,
) -> list[Parts]:
    """Every candidate's parts, in the candidates' order (:func:`ranked` scores them). ``session``
    holds the session component of the candidates touched lately, ``useless`` the factor of those
    said useless, ``foreign`` the files of build output, vendored or minified code and their kinds
    (``vendored.py``)."""
    session = session or {}
    useless = useless or {}
    top_seed = max((s.score for s in seeds.values()), default=0.0) or 1.0
    top_walk = max((walk.scores.get(c, 0.0) for c in candidates), default=0.0) or 1.0
    files = file_relevance(candidates, seeds, symbols, top_seed)
    out = []
    for sid in candidates:
        seed = seeds.get(sid)
        lexical = seed.score / top_seed if seed else 0.0
        hops = walk.hops.get(sid)
        components = {
            "lexical": lexical,
            "walk": walk.scores.get(sid, 0.0) / top_walk,
            "authority": walk.authority.get(sid, 0.0) * (1.0 if seed else NON_SEED_AUTHORITY),
            "proximity": 1.0 / (1 + hops) if hops is not None else 0.0,
            "recency": recency_component(recency.get(sid), reference_time),
            "generic": generic_component(fan_in.get(sid, 0), lexical),
            "file": files.get(symbols[sid].path, 0.0),
            "text": _strength(seed, "fts"),
            "body": _strength(seed, "body"),
            "history": _strength(seed, "history"),
            "session": session.get(sid, 0.0),
            "memory": _strength(seed, "memory"),
        }
        multipliers = multipliers_for(symbols[sid], keywords, (foreign or {}).get(symbols[sid].path))
        if sid in useless:
            multipliers["useless"] = useless[sid]
        language = symbols[sid].language
        out.append(Parts(sid, components, multipliers, weights_for(language), semantic_floor_for(language)))
    return out


def ranked(parts: list[Parts], semantic: Mapping[int, float] | None = None) -> list[Scored]:
    """The candidates scored, best first, ties broken by symbol id, with ``semantic`` the cosine of
    those compared by meaning (the same sums, term for term, as one pass of all components). With
    cosines, no candidate takes the ``named`` factor (``NAMED``: the meaning already says it)."""
    semantic = semantic or {}
    scored = []
    for part in parts:
        cosine = semantic.get(part.symbol_id)
        components = {**part.components, "semantic": semantic_component(cosine, part.floor)}
        total = sum(part.weights[name] * value for name, value in components.items())
        multipliers = {k: v for k, v in part.multipliers.items() if not (semantic and k == "named")}
        for factor in multipliers.values():
            total *= factor
        rounded = {k: round(v, 4) for k, v in components.items()}
        scored.append(Scored(part.symbol_id, total, rounded, multipliers))
    scored.sort(key=lambda s: (-s.score, s.symbol_id))
    return scored


def with_semantic(scored: list[Scored], parts: list[Parts], semantic: Mapping[int, float]) -> list[Scored]:
    """``scored`` (:func:`ranked` without cosines) again with the cosines of the candidates compared
    by meaning: only those and the ones the task names (whose ``named`` factor goes) are scored
    anew (the others' semantic term is 0 either way), then all are sorted as :func:`ranked` sorts them."""
    again = [p for p in parts if p.symbol_id in semantic or "named" in p.multipliers]
    fresh = {s.symbol_id: s for s in ranked(again, semantic)}
    out = [fresh.get(s.symbol_id, s) for s in scored]
    out.sort(key=lambda s: (-s.score, s.symbol_id))
    return out


def semantic_component(cosine: float | None, floor: float = SEMANTIC_FLOOR) -> float:
    """How much closer in meaning than ``floor`` a candidate is to the task (0 without a cosine)."""
    return max(0.0, cosine - floor) if cosine is not None else 0.0


def _strength(seed: Seed | None, channel: str) -> float:
    """A channel's own score for a seed (0 when the channel did not find it)."""
    return max((h.strength for h in seed.hits if h.channel == channel), default=0.0) if seed else 0.0
