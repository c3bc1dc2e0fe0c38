"""The graph file's arrays, built with numpy: from every edge of the index, or derived from an
earlier generation's arrays and the current edges of the symbols changed since.

The arrays (``GraphArrays``) are the graph's symbol ids (ascending), the walk's sparse matrix and
the directed call/inheritance matrix in compressed-row form over the ids' positions, and each
called symbol's fan-in. Both ways give the same arrays, byte for byte, as ``walk.build_graph`` gives
the same matrices: an entry sums its edges' weights in the order a build from every edge meets
them (the index's edges in rowid order, then the ``contains`` edges in child order; an edge's
forward weight before every backward one), and ``numpy.bincount`` adds in that order.

A derivation rests on one fact: a row of the walk (a symbol's edges either way), of the directed
matrix or a symbol's fan-in changes only when an edge at that symbol changes, and then the symbol
is among the changed ones. So the rows of unchanged symbols are copied from the earlier arrays
(their column positions renumbered for the symbols that came or went), a block of neighbouring
rows at a time, and only the changed symbols' rows are computed from their current edges. The cost
is a copy of the arrays plus the changed symbols' edges, not a read of every edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from mnemo_core.blas import one_blas_thread
from mnemo_core.retrieve.walk import BACKWARD, EDGE_WEIGHTS, HITS_EDGE_TYPES, summed_entries

if TYPE_CHECKING:
    import numpy as np

TYPES = tuple(dict.fromkeys([*EDGE_WEIGHTS, *sorted(HITS_EDGE_TYPES), "calls"]))  # an edge's type code
CONTAINS = TYPES.index("contains")
FLOAT_ARRAYS = frozenset({3, 6})  # the arrays of 64-bit floats: the matrices' values; the rest integers
PIECE = 1 << 20  # entries renumbered at a time while a derived file is written: 8 MB in flight
BUILD_PARTS = 8  # row ranges a build from every edge sorts one at a time: its peak memory falls with it


class GraphArrays(NamedTuple):
    """A graph file's arrays (numpy arrays of 64-bit items, in the file's order)."""

    ids: np.ndarray
    walk_indptr: np.ndarray
    walk_indices: np.ndarray
    walk_data: np.ndarray
    directed_indptr: np.ndarray
    directed_indices: np.ndarray
    directed_data: np.ndarray
    called: np.ndarray  # the symbols something calls, ascending ...
    fan_in: np.ndarray  # ... and how many distinct symbols call each


@dataclass(frozen=True)
class EdgeColumns:
    """Edges as columns, in the order a build from every edge meets them."""

    src: np.ndarray  # symbol ids
    dst: np.ndarray
    weight: np.ndarray  # ``EDGE_WEIGHTS`` of the type times the confidence
    typed: np.ndarray  # a ``HITS_EDGE_TYPES`` edge
    called: np.ndarray  # a ``calls`` edge


def edge_columns(batches: Iterable[Sequence[tuple[int, int, int, float]]]) -> EdgeColumns:
    """Columns from batches of (src, dst, type code in ``TYPES`` or -1, confidence) rows: no
    Python object per edge outlives its batch."""
    one_blas_thread()
    import numpy as np

    weights = np.array([EDGE_WEIGHTS.get(t, 0.0) for t in TYPES] + [0.0])  # code -1: another type
    hits = np.array([t in HITS_EDGE_TYPES for t in TYPES] + [False])
    calls = TYPES.index("calls")
    columns: list[list[np.ndarray]] = [[], [], [], [], []]
    for batch in batches:
        if not batch:
            continue
        rows = np.array(batch, dtype=np.float64)  # symbol ids are far below 2**53: exact
        codes = rows[:, 2].astype(np.int64)
        columns[0].append(rows[:, 0].astype(np.int64))
        columns[1].append(rows[:, 1].astype(np.int64))
        columns[2].append(weights[codes] * rows[:, 3])
        columns[3].append(hits[codes])
        columns[4].append(codes == calls)
        del rows, codes
    kinds = (np.int64, np.int64, np.float64, bool, bool)
    src, dst, weight, typed, called = (
        np.concatenate(c) if c else np.zeros(0, dtype=k) for c, k in zip(columns, kinds, strict=True)
    )
    return EdgeColumns(src, dst, weight, typed, called)


def build(edges: EdgeColumns) -> Plan:
    """The arrays of every edge (``walk.graph_arrays`` and a fan-in count, in numpy), the walk's
    columns and values in pieces (a range of rows each: never copied into one array)."""
    one_blas_thread()
    import numpy as np

    called, fan_in = _fan_in(edges.src[edges.called], edges.dst[edges.called])
    src, dst, weight, typed = _apart(edges)
    del edges  # the symbol ids go once they are numbered
    ids = np.unique(np.concatenate([src, dst]))
    n = len(ids)
    src, dst = np.searchsorted(ids, src), np.searchsorted(ids, dst)
    rows, cols, _ = summed_entries(src[typed], dst[typed], np.ones(int(typed.sum())), n)
    directed = (_indptr(rows, n), cols, np.ones(len(cols)))
    del rows, typed
    indptr, columns, values = _walk(src, dst, weight, n)
    entries = int(indptr[-1])
    lengths = (n, n + 1, entries, entries, n + 1, len(cols), len(cols), len(called), len(fan_in))
    return Plan(lengths, lambda: iter([ids, indptr, *columns, *values, *directed, called, fan_in]))


def _walk(
    src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n: int
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """The walk's matrix (row pointers; columns and values, a piece per range of rows) of edges
    between dense ``src`` and ``dst``:
    each edge forward, and backward at ``BACKWARD`` of its weight. Made a range of rows at a time
    (``BUILD_PARTS`` ranges of about as many entries), so the sorting of the entries never holds
    all of them: within a range an entry's terms still add up forward first, each in edge order."""
    import numpy as np

    back = weight * BACKWARD
    per_row = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    bounds = np.searchsorted(np.cumsum(per_row), np.linspace(0, int(per_row.sum()), BUILD_PARTS + 1)[1:-1])
    counts = np.zeros(n, dtype=np.int64)
    columns, values = [], []
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), n], strict=True):
        forward, backward = (src >= lo) & (src < hi), (dst >= lo) & (dst < hi)
        rows, cols, data = summed_entries(
            np.concatenate([src[forward], dst[backward]]) - lo,
            np.concatenate([dst[forward], src[backward]]),
            np.concatenate([weight[forward], back[backward]]),
            n,
        )
        counts[lo:hi] = np.bincount(rows, minlength=hi - lo)
        columns.append(cols)
        values.append(data)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, columns, values


@dataclass(frozen=True)
class Plan:
    """A graph file's arrays as their lengths and their pieces in file order (each call of
    ``pieces`` makes them again; no piece spans two arrays)."""

    lengths: tuple[int, ...]
    pieces: Callable[[], Iterator[np.ndarray]]


def collect(plan: Plan) -> GraphArrays:
    """A plan's arrays, each whole (for a process that cannot write the file)."""
    one_blas_thread()
    import numpy as np

    pieces = plan.pieces()
    arrays = []
    for position, length in enumerate(plan.lengths):
        parts, got = [], 0
        while got < length:
            parts.append(next(pieces))
            got += len(parts[-1])
        kind = np.float64 if position in FLOAT_ARRAYS else np.int64
        arrays.append(np.concatenate(parts).astype(kind, copy=False) if parts else np.zeros(0, dtype=kind))
    return GraphArrays(*arrays)


def derive(base: GraphArrays, changed: np.ndarray, edges: EdgeColumns) -> Plan | None:
    """The arrays of the current edges from ``base`` (an earlier generation's), ``changed`` (the
    symbols at either end of every edge added or removed since, ascending) and ``edges`` (every
    current edge at a changed symbol), as pieces: the unchanged rows' blocks are read from ``base``
    as the file is written, so nothing the size of the graph is held. None when an edge ends at a
    symbol the base never had and the change record does not name: the record is incomplete,
    build from every edge instead."""
    one_blas_thread()
    import numpy as np

    src, dst, weight, typed = _apart(edges)
    ends = np.unique(np.concatenate([src, dst]))
    alive = ends[np.isin(ends, changed)]  # changed symbols that still have an edge
    kept = ~np.isin(base.ids, changed)
    ids = base.ids[kept]
    ids = np.insert(ids, np.searchsorted(ids, alive), alive)  # both ascending, none in common
    n = len(ids)
    at_src, at_dst = np.searchsorted(ids, src), np.searchsorted(ids, dst)
    if len(src) and not (_found(ids, at_src, src) and _found(ids, at_dst, dst)):
        return None
    remap = np.searchsorted(ids, base.ids)
    old_rows = np.flatnonzero(kept)
    out, back = np.isin(src, alive), np.isin(dst, alive)  # entries of the changed rows, each way
    walk = _Merge(
        (base.walk_indptr, base.walk_indices, base.walk_data),
        old_rows,
        remap,
        summed_entries(
            np.concatenate([at_src[out], at_dst[back]]),
            np.concatenate([at_dst[out], at_src[back]]),
            np.concatenate([weight[out], weight[back] * BACKWARD]),
            n,
        ),
        n,
    )
    typed_out = typed & out
    directed = _Merge(
        (base.directed_indptr, base.directed_indices, base.directed_data),
        old_rows,
        remap,
        summed_entries(at_src[typed_out], at_dst[typed_out], np.ones(int(typed_out.sum())), n),
        n,
    )
    into = edges.called & np.isin(edges.dst, changed)
    called, fan_in = _fan_in(edges.src[into], edges.dst[into])
    stays = ~np.isin(base.called, changed)
    every = np.concatenate([base.called[stays], called])
    order = np.argsort(every, kind="stable")
    called, fan_in = every[order], np.concatenate([base.fan_in[stays], fan_in])[order]

    def pieces() -> Iterator[np.ndarray]:
        yield ids
        yield from walk.pieces()
        yield from directed.pieces(ones=True)
        yield called
        yield fan_in

    walked, pointed = walk.entries, directed.entries
    return Plan((n, n + 1, walked, walked, n + 1, pointed, pointed, len(called), len(fan_in)), pieces)


class _Merge:
    """A sparse matrix over the new ids: the kept old rows' entries as they were (columns
    renumbered), a block of neighbouring rows at a time, and the new rows' entries where they
    belong, as pieces of its row pointers, column indices and values."""

    def __init__(
        self,
        old: tuple[np.ndarray, np.ndarray, np.ndarray],
        old_rows: np.ndarray,
        remap: np.ndarray,
        new: tuple[np.ndarray, ...],
        size: int,
    ) -> None:
        import numpy as np

        indptr, self.indices_old, self.data_old = old
        self.remap = remap
        rows, self.indices_new, self.data_new = new
        lengths = np.zeros(size, dtype=np.int64)
        lengths[remap[old_rows]] = np.diff(indptr)[old_rows]
        lengths += np.bincount(rows, minlength=size)
        self.indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.indptr[1:])
        self.entries = int(self.indptr[-1])
        # in row order: the new rows' entries before each run of kept rows, then the run's entries
        runs = _runs(old_rows, remap[old_rows])
        firsts = np.array([first for first, _ in runs], dtype=np.int64)
        cuts = np.searchsorted(rows, remap[old_rows[firsts]]).tolist() if runs else []
        self.segments: list[tuple[bool, int, int]] = []  # (from the old rows?, start, end)
        done = 0
        for (first, last), cut in zip(runs, cuts, strict=True):
            self.segments.append((False, done, cut))
            self.segments.append((True, int(indptr[old_rows[first]]), int(indptr[old_rows[last] + 1])))
            done = cut
        self.segments.append((False, done, len(rows)))

    def pieces(self, ones: bool = False) -> Iterator[np.ndarray]:
        """The row pointers, then the column indices, then the values (all ones: ``ones``)."""
        import numpy as np

        yield self.indptr
        for old, start, end in self.segments:
            for at in range(start, end, PIECE):
                stop = min(at + PIECE, end)
                yield self.remap[self.indices_old[at:stop]] if old else self.indices_new[at:stop]
        if ones:
            total = self.entries
            unit = np.ones(min(PIECE, total))
            for at in range(0, total, PIECE):
                yield unit[: min(PIECE, total - at)]
            return
        for old, start, end in self.segments:
            if end > start:
                yield self.data_old[start:end] if old else self.data_new[start:end]


def _found(ids: np.ndarray, at: np.ndarray, wanted: np.ndarray) -> bool:
    """Whether every one of ``wanted`` is in ``ids`` at the positions ``searchsorted`` gave."""
    import numpy as np

    inside = at < len(ids)
    return bool(inside.all() and np.array_equal(ids[at], wanted))


def _apart(edges: EdgeColumns) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edges between two symbols (an edge from a symbol to itself is left out of the walk)."""
    apart = edges.src != edges.dst
    if apart.all():  # the resolver keeps none: no copy of every edge for nothing
        return edges.src, edges.dst, edges.weight, edges.typed
    return edges.src[apart], edges.dst[apart], edges.weight[apart], edges.typed[apart]


def _indptr(rows: np.ndarray, size: int) -> np.ndarray:
    import numpy as np

    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=size), out=indptr[1:])
    return indptr


def _runs(old: np.ndarray, new: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) positions of the longest stretches of ``old`` rows that are consecutive both
    before and after (``new``): each is copied as one block."""
    import numpy as np

    if not len(old):
        return []
    breaks = np.flatnonzero((np.diff(old) != 1) | (np.diff(new) != 1)) + 1
    firsts = np.concatenate([[0], breaks])
    lasts = np.concatenate([breaks - 1, [len(old) - 1]])
    return list(zip(firsts.tolist(), lasts.tolist(), strict=True))


def _fan_in(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct callers per called symbol, from the ``calls`` edges' ends (an edge from a symbol to
    itself counted too, as ``count(DISTINCT src)`` in the index counts it)."""
    import numpy as np

    order = np.lexsort((src, dst))
    src, dst = src[order], dst[order]
    distinct = np.ones(len(dst), dtype=bool)
    distinct[1:] = (dst[1:] != dst[:-1]) | (src[1:] != src[:-1])
    called, counts = np.unique(dst[distinct], return_counts=True)
    return called.astype(np.int64, copy=False), counts.astype(np.int64, copy=False)
