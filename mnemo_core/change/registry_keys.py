"""Registry keys: the strings a keyed registry stores a function under, as evidence for a test.

A function stored in a dict of functions (``FILTERS = {"upper": do_upper}``) runs when code looks it
up by a key that comes from data (a template's ``|upper``, a command line's ``greet``). Statically,
every test that builds the registry's reader reaches every function in it (each test of a template
engine builds an ``Environment``, which copies ``FILTERS``); only the tests that supply the key run
the function. So the key is evidence like a receiver class (``receivers``): a test whose path goes
through a keyed registry keeps that path only when its source names the key or the function, and
when no test does, all are kept. A name-built ``getattr(self, "visit_" + kind)`` is keyed the same
way only where the handler's name spells a keyword (``syntax_keys``): keying every handler would
split a visitor's paths by each of dozens (measured on jinja, queries became tens of times slower).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mnemo_core.index.store import Store
from mnemo_core.retrieve.snippets import SourceCache

WORD_KEY = re.compile(r"\w+")
KEY_MAX_CHARS = 64


class RegistryKeys:
    """The literal keys under which each function is stored in a module-level registry (a constant
    whose dict literal maps ``"key": function`` on the line the registry edge was drawn from)."""

    def __init__(self, store: Store, sources: SourceCache | None = None) -> None:
        self._store = store
        self._sources = sources or SourceCache(store.root)
        self._keys: dict[int, frozenset[str]] = {}

    def of(self, function: int) -> frozenset[str]:
        """The word-like keys ``function`` is stored under (empty: not in a keyed registry)."""
        if function not in self._keys:
            self._keys[function] = self._read(function)
        return self._keys[function]

    def named(self, functions: Iterable[int]) -> dict[str, set[int]]:
        """Each key (and each keyed function's own name) -> the functions it shows a use of."""
        symbols = self._store.symbols_by_ids(functions)
        names: dict[str, set[int]] = {}
        for sid, symbol in symbols.items():
            keys = self.of(sid)
            for name in {*keys, symbol.short_name} if keys else ():
                names.setdefault(name, set()).add(sid)
        return names

    def _read(self, function: int) -> frozenset[str]:
        store = self._store
        incoming = store.edges_touching([function], "in")
        edges = [e for e in incoming if e.type == "references" and e.resolution == "registry" and e.line > 0]
        if not edges:
            return frozenset()
        symbols = store.symbols_by_ids({function, *(e.src for e in edges)})
        target = symbols.get(function)
        if target is None:
            return frozenset()
        entry = _entry(target.short_name)
        keys: set[str] = set()
        for e in edges:
            registry = symbols.get(e.src)
            if registry is None or registry.kind != "constant":
                continue
            lines = self._sources.lines(registry.path)
            if e.line <= len(lines):
                keys.update(m.group(2) for m in entry.finditer(lines[e.line - 1]))
        return frozenset(k for k in keys if WORD_KEY.fullmatch(k))


def _entry(name: str) -> re.Pattern[str]:
    """``"key": name`` (or ``"key": module.name``) in a dict literal's line."""
    return re.compile(rf"""(["'])([^"'\\\n]{{1,{KEY_MAX_CHARS}}})\1\s*:\s*(?:[\w.]+\.)?{re.escape(name)}\b""")
