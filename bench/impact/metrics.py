"""Set metrics of the impact benchmark: one predicted test set against one oracle test set, and averages.

For one changed function, with ``P`` the predicted tests and ``O`` the oracle's tests:
``precision = |P & O| / |P|`` (0 when nothing is predicted: the oracle is never empty, so an empty
answer is simply wrong), ``recall = |P & O| / |O|``, ``F1`` their harmonic mean (0 when both are 0).
**Macro** averages are means of the per-function values (every change weighs the same); **micro**
values come from the summed counts (functions that many tests execute weigh more).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def harmonic(precision: float, recall: float) -> float:
    """F1 of a precision and a recall."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class Score:
    """One prediction against one oracle set."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """Share of the predicted tests that the oracle has."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        """Share of the oracle's tests that were predicted."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        return harmonic(self.precision, self.recall)


def score(predicted: Iterable[str], oracle: Iterable[str]) -> Score:
    """Counts of one predicted set against one oracle set."""
    p, o = set(predicted), set(oracle)
    return Score(len(p & o), len(p - o), len(o - p))


@dataclass(frozen=True)
class Summary:
    """Micro and macro precision, recall and F1 over functions."""

    functions: int
    micro_precision: float
    micro_recall: float
    micro_f1: float
    macro_precision: float
    macro_recall: float
    macro_f1: float
    predicted_mean: float  # tests predicted per function


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(scores: Sequence[Score]) -> Summary:
    """Micro and macro averages of per-function scores."""
    tp, fp, fn = (sum(getattr(s, f) for s in scores) for f in ("tp", "fp", "fn"))
    micro_p, micro_r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return Summary(
        functions=len(scores),
        micro_precision=micro_p,
        micro_recall=micro_r,
        micro_f1=harmonic(micro_p, micro_r),
        macro_precision=_mean([s.precision for s in scores]),
        macro_recall=_mean([s.recall for s in scores]),
        macro_f1=_mean([s.f1 for s in scores]),
        predicted_mean=_mean([s.tp + s.fp for s in scores]),
    )
