"""pytest fixtures: a test's parameter -> the fixture function in its module or a ``conftest.py``
above it, defined there or imported into it."""

from __future__ import annotations

from mnemo_core.index.resolve.records import (
    CONFIDENCE,
)
from mnemo_core.index.resolve.scope import Scope
from mnemo_core.model import (
    Edge,
)


class Fixtures(Scope):
    """pytest fixtures: a test parameter -> the fixture function in scope."""

    def _fixture_parameters(self, file_id: int) -> set[str]:
        """Parameters of a file's tests and fixtures: pytest fills them, so each scope types them."""
        symbols = self.world.symbols
        hooks = self.world.hooks(file_id)
        return {
            p
            for ids in self.world.top(file_id).values()
            for p in symbols[ids[0]].params
            if symbols[ids[0]].is_test_case or hooks.is_fixture(symbols[ids[0]].decorators)
        }

    # -- derived edges ----------------------------------------------------------------------
    def _fixture_edges(self, file_id: int) -> list[Edge]:
        """From each test and fixture to the fixtures its parameters name (where the language has them)."""
        w = self.world
        hooks = w.hooks(file_id)
        if not hooks.fixture_files(w.files[file_id].path):
            return []
        edges = []
        for ids in w.top(file_id).values():
            for sid in ids:
                params = w.params(sid)
                if not params or not (w.symbol(sid).is_test_case or hooks.is_fixture(w.decorators(sid))):
                    continue
                for param in params:
                    fixture = self._find_fixture(file_id, param)
                    if fixture is not None and fixture != sid:
                        edges.append(Edge(sid, fixture, "calls", "fixture", CONFIDENCE["fixture"], 0))
        return edges

    def _find_fixture(self, file_id: int, name: str) -> int | None:
        """The fixture a test parameter ``name`` receives: in the test's file or those the language
        looks in next (pytest: each ``conftest.py`` above it), defined there or imported into it
        (``from . import v``: pytest finds fixtures among a module's names, wherever defined)."""
        w = self.world
        hooks = w.hooks(file_id)
        for path in hooks.fixture_files(w.files[file_id].path):
            found = w.fixture_file(path, name)
            if found is None:
                continue
            for sid in w.top_named(found.id, name) or self._imported(found.id, name):
                if hooks.is_fixture(w.decorators(sid)):
                    return sid
        return None

    def _imported(self, file_id: int, name: str) -> list[int]:
        """What a module-level import binds ``name`` to in the repository (a wildcard import too)."""
        bindings = self.world.bindings(file_id)
        if name not in bindings.names and not bindings.stars:
            return []
        found = self._resolve_bare(file_id, "", name)
        return found.ids if found.how == "import" else []
