"""References the change left pointing at symbols it deleted or renamed.

A reference counts when it uses the old name, sits in the defining file or in a file that imports
from it, could mean the old symbol (a member's name only in its class, its subclasses or on a
receiver named after its class: ``flush`` is a common word), and resolves to nothing now (a
same-named symbol elsewhere that it does resolve to is a different thing, and not a dangling
reference). A method its class still declares as an attribute is not gone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath

from mnemo_core.change.diffmap import ChangedSymbol
from mnemo_core.change.risk import Dangling
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import Store
from mnemo_core.index.world import World
from mnemo_core.model import CLASS_KINDS
from mnemo_core.retrieve.snippets import SourceCache

RESOLVED = frozenset({"calls", "references"})  # a call, or a function handed over as a value (``fetch: f``)


def dangling_references(store: Store, gone: list[ChangedSymbol]) -> list[Dangling]:
    """Places that still use a deleted or renamed symbol's old name."""
    if not gone:
        return []
    world = World(store, replaced_files=set())
    sources = SourceCache(store.root)
    names = {_short(s): s for s in gone if not _redeclared(world, sources, s)}
    found: list[Dangling] = []
    for file_id, refs in sorted(store.refs_of(store.files_referencing(set(names), exclude=set())).items()):
        path = world.files[file_id].path
        for _, name, receiver, scope, line in refs:
            symbol = names.get(name)
            if symbol is None or not _sees(world, file_id, path, symbol):
                continue
            if not _could_mean(world, file_id, symbol, receiver, scope):
                continue
            if not _resolves(store, world, file_id, scope, line, name):
                found.append(Dangling(symbol, path, int(line), scope or "<module>"))
    once = {(d.symbol.key, d.path, d.line): d for d in found}  # a call is a read of the name too
    return list(once.values())


def dropped_imports(store: Store, modules: list[ChangedSymbol]) -> list[Dangling]:
    """Imports from a module of a name it no longer imports (``from pkg import helper`` after
    ``pkg/__init__.py`` stopped importing ``helper``), each with the name as its dangling symbol."""
    if not modules:
        return []
    world = World(store, replaced_files=set())
    found: list[Dangling] = []
    for module in modules:
        home = world.by_path.get(module.path)
        if home is None:
            continue
        gone = {name: replace(module, name=name, status="dropped") for name in module.dropped}
        for file_id, info in sorted(world.files.items()):
            naming = [imp for imp in world.imports(file_id) if imp.name in gone] if file_id != home.id else []
            if not naming:
                continue
            bindings = world.bindings(file_id)  # resolved only where a dropped name is imported
            for imp in naming:
                bound = (bindings.scoped.get(imp.scope, {}) if imp.scope else bindings.names).get(imp.alias)
                if bound is not None and home.id in bound.modules:
                    found.append(Dangling(gone[imp.name], info.path, imp.line, imp.scope or "<module>"))
    return found


def _short(symbol: ChangedSymbol) -> str:
    return (symbol.old_name or symbol.name).rsplit(".", 1)[-1]


def _sees(world: World, file_id: int, path: str, symbol: ChangedSymbol) -> bool:
    """Whether the file could have meant the old symbol: it defined it, or imports its module."""
    home = symbol.old_path or symbol.path
    if path == home:
        return True
    home_file = world.by_path.get(home)
    bindings = world.bindings(file_id)
    if home_file is not None:
        home_id = home_file.id
        return any(home_id in b.modules for b in bindings.every()) or any(
            home_id in s for s in bindings.stars
        )
    spec = language_for_path(home)
    module = spec.hooks.module_name(home) if spec else PurePosixPath(home).stem
    return any(
        imp.module and (module.endswith(imp.module) or imp.module.endswith(module.rsplit(".", 1)[-1]))
        for imp in world.imports(file_id)
    )


def _could_mean(world: World, file_id: int, symbol: ChangedSymbol, receiver: str, scope: str) -> bool:
    """Whether a use of the old short name in ``scope`` (on ``receiver``) could be the old symbol. A
    top-level name: unless read from ``self`` (an attribute). A member: inside its class (or, for a
    nested function, its definer), through ``self`` in a subclass, or elsewhere through a receiver
    named after the class (``Cart.price``, ``cart.price``); a dunder method never by name (it runs
    through its class: ``super().__init__()`` in any class is no use of a moved one), nor ``lambda
    self: self.url`` outside the class, nor ``sys.stdout.flush()`` for a deleted ``Wrapper.flush``."""
    self_names = world.hooks(file_id).self_names
    old = symbol.old_name or symbol.name
    if "." not in old:
        return receiver not in self_names
    owner, short = old.rsplit(".", 1)
    if short.startswith("__") and short.endswith("__"):
        return False
    if scope == owner or scope.startswith(owner + "."):
        return True  # in its class or definer: ``self.flush()``, Go's ``c.Flush()`` in a method
    if receiver in self_names:
        return _in_subclass(world, file_id, scope, owner.rsplit(".", 1)[-1])
    return bool(receiver) and receiver.rsplit(".", 1)[-1].lower() == owner.rsplit(".", 1)[-1].lower()


def _redeclared(world: World, sources: SourceCache, symbol: ChangedSymbol) -> bool:
    """Whether the class a deleted method belonged to still declares its name in its body, as an
    attribute (``should_ignore_error: None = None``, a hook turned into a deprecated setting)."""
    if symbol.status != "deleted" or "." not in symbol.name:
        return False
    owner, short = symbol.name.rsplit(".", 1)
    home = world.by_path.get(symbol.path)
    if home is None:
        return False
    declared = re.compile(rf"\s+{re.escape(short)}\s*[:=]")
    for cls in world.top(home.id).get(owner, []):
        found = world.symbol(cls)
        if found.kind in CLASS_KINDS:
            body = sources.lines(symbol.path)[found.start_line : found.end_line]
            if any(declared.match(line) for line in body):
                return True
    return False


def _in_subclass(world: World, file_id: int, scope: str, owner: str) -> bool:
    """Whether ``scope`` is in a class that inherits, in the repository, from a class named ``owner``
    (a ``self.m()`` there meant the base's ``m``)."""
    classes = world.enclosing_classes(file_id, scope)
    bases = world.lineage(b for c in classes for b in world.bases(c))
    return any(world.symbol(b).name.rsplit(".", 1)[-1] == owner for b in bases)


def _resolves(store: Store, world: World, file_id: int, scope: str, line: int, name: str) -> bool:
    ids = world.top(file_id).get(scope) if scope else None
    src = ids[0] if ids else world.module_symbol(file_id)
    if src is None:
        return False
    targets = [e.dst for e in store.edges_touching([src], "out") if e.type in RESOLVED and e.line == line]
    return any(s.short_name == name for s in store.symbols_by_ids(targets).values())
