"""Reciprocal-rank fusion of seed channels."""

from __future__ import annotations

import pytest

from mnemo_core.retrieve.seeds import RRF_K, fuse


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    seeds = fuse({"name": [(7, "n")], "fts": [(9, "f"), (7, "f")]}, {"name": 1.0, "fts": 0.5})
    by_id = {s.symbol_id: s for s in seeds}
    assert by_id[7].score == pytest.approx(1 / (RRF_K + 1) + 0.5 / (RRF_K + 2))
    assert by_id[9].score == pytest.approx(0.5 / (RRF_K + 1))
    assert [s.symbol_id for s in seeds] == [7, 9]
    assert [h.channel for h in by_id[7].hits] == ["name", "fts"]


def test_ties_break_by_id() -> None:
    seeds = fuse({"a": [(5, "x")], "b": [(3, "y")]}, {"a": 1.0, "b": 1.0})
    assert [s.symbol_id for s in seeds] == [3, 5]
