"""The coordinator: bases first (calls need the class hierarchy), then each file's calls, dynamic
edges and the edges derived from them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from mnemo_core.index.resolve.calls import (
    Calls,
)
from mnemo_core.index.resolve.derived import import_edges, overrides, tests_edges
from mnemo_core.index.resolve.dynamic import Dynamic
from mnemo_core.index.resolve.records import (
    RefRow,
)
from mnemo_core.index.world import Reads, World
from mnemo_core.model import (
    Edge,
)


class Resolver(Calls, Dynamic):
    """Resolves the references of some files against a :class:`World`, noting per file what it
    read (``reads``: the keys its edges depend on)."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.reads: dict[int, Reads] = {}

    def resolve(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """All edges resolved from the given files' references, each with the file it came from.

        A reference is ``(kind, name, receiver, scope, line)``, the shape of :class:`RawRef`.
        """
        return self.resolve_bases(refs_by_file) + self.resolve_calls(refs_by_file)

    def resolve_bases(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """The ``inherits`` edges, added to the world's class hierarchy (first: calls need it). While
        they resolve, the world shows no base classes: each file's come out the same whichever
        files are resolved with it."""
        out: list[tuple[Edge, int]] = []
        self.world.bases_hidden = True
        try:
            for fid, refs in refs_by_file.items():
                with self._reading(fid):
                    out.extend((e, fid) for e in self._file_edges(fid, refs, "inherit"))
        finally:
            self.world.bases_hidden = False
        self.world.add_bases((e.src, e.dst) for e, _ in out)
        return out

    @contextmanager
    def _reading(self, file_id: int) -> Iterator[None]:
        """Note in ``reads`` what resolving the file reads of the world."""
        self.world.reads = self.reads.setdefault(file_id, Reads(owner=file_id))
        try:
            yield
        finally:
            self.world.reads = None

    def prepare(self) -> None:
        """Read everything the resolver will ask the index for, so it can run without the index
        (in forked workers, after :meth:`resolve_bases`)."""
        self._property_names()
        self._subclass_map()

    def resolve_calls(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """Calls (with fixtures), and the tests, imports and overrides edges derived from them."""
        out: list[tuple[Edge, int]] = []
        for fid, refs in refs_by_file.items():
            with self._reading(fid):
                out.extend(self._file_calls(fid, refs))
        return out

    def _file_calls(self, fid: int, refs: Sequence[RefRow]) -> list[tuple[Edge, int]]:
        calls = self._file_edges(fid, refs, "call") + self._fixture_edges(fid)
        dynamic = self._dynamic_edges(fid, refs, calls)
        edges = [
            *calls,
            *dynamic,
            *self._constant_uses(fid, refs, {(e.src, e.dst) for e in dynamic}),
            *tests_edges(self.world, calls),
            *import_edges(self.world, fid),
            *overrides(self.world, fid),
        ]
        return [(e, fid) for e in edges]
