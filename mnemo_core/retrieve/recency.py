"""Commit recency of symbols: when the newest commit touching any of their lines was made."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mnemo_core.model import Symbol
from mnemo_core.retrieve.score import Recency

RecencyLookup = Callable[[Mapping[int, Symbol]], tuple[dict[int, Recency], int | None, list[str]]]


def no_history(symbols: Mapping[int, Symbol]) -> tuple[dict[int, Recency], int | None, list[str]]:
    """The lookup for a directory without git history: recency is neutral, and the notes say why."""
    return {}, None, ["no git history: the recency component is neutral (0) for every symbol"]
