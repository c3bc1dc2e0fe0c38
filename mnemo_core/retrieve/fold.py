"""One answer per definition a reader would name: overloads and constructors folded, types stepped back,
longer functions ahead of one-liners.

Applied to a task's scored candidates (best first), in this order; the first three outside Python
only (its classes keep the score's kind prior, its one-liners are not told apart by size, and it
has no constructor named after its class):

1. **Types step back** (a class, struct, interface, trait, enum or type alias) by ``TYPE_DEMOTION``,
   on top of the score's kind prior: a task's change lands in a type's methods far more often than
   in the type itself, and the type spends a slot of the first ten on a name the task repeats
   (held out: R@10 and MRR up on all four repositories, bench/RESULTS.md, session 39).
2. **Size**: a function or method is multiplied by ``(lines / SIZE_REFERENCE_LINES) ** SIZE_EXPONENT``,
   kept within ``SIZE_BOUNDS`` (x0.8 at 3 lines or fewer, x1.2 at 25 or more): changes land in long
   functions more often than in one-line getters, while the body match (BM25, normalized by length)
   and the name match favour short ones (bench/RESULTS.md, session 40).
3. **Constructors fold into their class**: a constructor (``Foo.Foo`` in Java, C#, C++;
   ``constructor``, ``initialize``, ``__construct``) whose class is a candidate is dropped, and the
   class takes the better of the two scores.
4. **Overloads fold**, in every language: of the candidates sharing a file, a qualified name and a
   kind (Java's five ``Response.header``; in Python a property's getter, setter and deleter, an
   ``@overload`` stub and its implementation, a function defined under ``if``/``else`` or
   ``try``/``except``), the best stays and the others go, unless one of them holds in its
   signature a term of the task the kept one lacks (the task named that overload).

Build output, vendored and minified files are demoted before this, in every language, by one table
(:mod:`mnemo_core.retrieve.vendored`).

The type's and the size's factors are named multipliers of the ``Scored`` record, so ``mnemo why``
shows them, and ``why`` on a folded candidate names the one that answers for it. Demoting a file's
same-named definitions past the second (ripgrep's ``defs.rs``, a ``doc_long`` per flag) was measured
and left out: it lost R@10 on ripgrep, where those definitions are what commits change
(bench/RESULTS.md, session 38).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from mnemo_core.index.languages import language_for_path
from mnemo_core.model import CLASS_KINDS, Symbol
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.score import Scored

UNFOLDED_LANGUAGES = frozenset({"python"})  # no type step back, size or constructor folding (overloads fold)
TYPE_DEMOTION = 0.8  # a type (beside its kind prior) is context; its methods are where changes land
# fitted on the four tuning repositories (every leave-one-out fold chose these; session 40)
SIZE_REFERENCE_LINES = 10  # a function of this many lines keeps its score
SIZE_EXPONENT = 0.2  # how fast the factor grows with the length
SIZE_BOUNDS = (0.8, 1.2)  # never more than a type's step back, nor more ahead
SIZED_KINDS = frozenset({"function", "method"})


@dataclass(frozen=True)
class Folded:
    """The folded ranking, and for each candidate folded away the one that now answers for it."""

    scored: list[Scored]
    into: dict[int, int]


def fold(scored: list[Scored], symbols: Mapping[int, Symbol], keywords: Keywords) -> Folded:
    """The candidates with types stepped back and constructors and overloads folded, best first."""
    named = _task_terms(keywords)
    into: dict[int, int] = {}
    out = [_times(s, "type", TYPE_DEMOTION) if _is_type(symbols[s.symbol_id]) else s for s in scored]
    out = [_sized(s, symbols[s.symbol_id]) for s in out]
    out = _fold_constructors(out, symbols, into)
    out = _fold_overloads(out, symbols, named, into)
    return Folded(sorted(out, key=lambda s: (-s.score, s.symbol_id)), into)


def is_constructor(symbol: Symbol, owner: Symbol) -> bool:
    """Whether ``symbol`` is a constructor of the class ``owner`` in its language."""
    spec = language_for_path(symbol.path)
    return spec is not None and symbol.short_name in spec.hooks.constructors_of(owner.name)


def size_factor(symbol: Symbol) -> float:
    """The size multiplier of a function or method of ``symbol``'s length in lines."""
    low, high = SIZE_BOUNDS
    lines = max(1, symbol.end_line - symbol.start_line + 1)
    grown: float = (lines / SIZE_REFERENCE_LINES) ** SIZE_EXPONENT
    return min(high, max(low, grown))


def _sized(scored: Scored, symbol: Symbol) -> Scored:
    if symbol.kind not in SIZED_KINDS or not _folds(symbol):
        return scored
    factor = round(size_factor(symbol), 3)
    return scored if factor == 1.0 else _times(scored, "size", factor)


def _is_type(symbol: Symbol) -> bool:
    return symbol.kind in CLASS_KINDS and _folds(symbol)


def _folds(symbol: Symbol) -> bool:
    return symbol.language not in UNFOLDED_LANGUAGES


def _task_terms(keywords: Keywords) -> frozenset[str]:
    return frozenset(
        t.lower() for t in (*keywords.exact, *keywords.compounds, *keywords.components, *keywords.words)
    )


def _fold_constructors(
    scored: list[Scored], symbols: Mapping[int, Symbol], into: dict[int, int]
) -> list[Scored]:
    position = {s.symbol_id: i for i, s in enumerate(scored)}
    best = {s.symbol_id: s for s in scored}
    dropped = set()
    for s in scored:
        symbol = symbols[s.symbol_id]
        owner_id = symbol.parent_id
        if not _folds(symbol) or owner_id is None or owner_id not in position:
            continue
        if symbol.kind == "method" and is_constructor(symbol, symbols[owner_id]):
            dropped.add(s.symbol_id)
            into[s.symbol_id] = owner_id
            if s.score > best[owner_id].score:
                best[owner_id] = replace(best[owner_id], score=s.score)
    return [best[s.symbol_id] for s in scored if s.symbol_id not in dropped]


def _fold_overloads(
    scored: list[Scored], symbols: Mapping[int, Symbol], named: frozenset[str], into: dict[int, int]
) -> list[Scored]:
    kept: dict[tuple[str, str, str], Symbol] = {}
    out = []
    for s in sorted(scored, key=lambda s: (-s.score, s.symbol_id)):
        symbol = symbols[s.symbol_id]
        key = (symbol.path, symbol.name, symbol.kind)
        first = kept.get(key)
        if first is None or _names_overload(symbol, first, named):
            kept.setdefault(key, symbol)
            out.append(s)
        else:
            into[s.symbol_id] = first.id
    return out


def _names_overload(symbol: Symbol, first: Symbol, named: frozenset[str]) -> bool:
    """Whether the task names a term of this overload's signature that the kept one lacks."""
    mine, theirs = _words(symbol.signature), _words(first.signature)
    return bool((mine - theirs) & named)


def _words(signature: str) -> set[str]:
    return {w.lower() for w in "".join(c if c.isalnum() or c == "_" else " " for c in signature).split()}


def _times(scored: Scored, name: str, factor: float) -> Scored:
    return replace(scored, score=scored.score * factor, multipliers={**scored.multipliers, name: factor})
