"""Dynamic dispatch that static code shows: values handed over, registries, dotted paths in
strings, decorators, ``__init_subclass__`` and ``getattr`` by a name prefix."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from mnemo_core.index.extract import dispatched_name
from mnemo_core.index.languages.base import mark_name
from mnemo_core.index.resolve.records import (
    CONFIDENCE,
    FileScope,
    Lookup,
    RefRow,
    is_edge,
)
from mnemo_core.index.resolve.types import Types
from mnemo_core.index.world import Binding, World
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    Edge,
    EdgeType,
    RefKind,
    Resolution,
    SymbolKind,
)

DYNAMIC_REF_KINDS: frozenset[RefKind] = frozenset(
    {"value", "handed", "registered", "lookup", "store", "dispatch", "named"}
)
# what a name handed over may be: a function (to be called), a class or an object built from one (to
# be built or to have its methods called), or, stored in a registry, either
VALUE_KINDS: Mapping[RefKind, frozenset[SymbolKind]] = {
    "value": CALLABLE_KINDS,
    "handed": CLASS_KINDS,
    "registered": CALLABLE_KINDS | CLASS_KINDS,
}
SUBCLASS_HOOK = "__init_subclass__"


class Dynamic(Types):
    """Dynamic dispatch that static code shows."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self._subclasses: dict[int, list[int]] | None = None

    # -- dynamic dispatch -------------------------------------------------------------------
    def _dynamic_edges(self, file_id: int, refs: Sequence[RefRow], calls: Sequence[Edge]) -> list[Edge]:
        """Links that dynamic dispatch makes and static code shows: functions handed as values or
        stored in registries, registry readers and writers, ``getattr(self, "prefix" + ...)``,
        decorators in the repository, and ``__init_subclass__`` hooks of the file's classes' bases."""
        w = self.world
        best: dict[tuple[int, int], Edge] = {}

        def add(src: int, dst: int, edge_type: EdgeType, how: Resolution, line: int) -> None:
            old = best.get((src, dst))
            if src != dst and (old is None or old.confidence < CONFIDENCE[how]):
                best[(src, dst)] = Edge(src, dst, edge_type, how, CONFIDENCE[how], line)

        writers: dict[tuple[int, str], list[int]] = defaultdict(list)  # (class, attribute) -> writers
        readers: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
        typed_here: list[FileScope] = []

        def here() -> FileScope:  # the file's variable types, read once and only when needed
            if not typed_here:
                typed_here.append(self._file_scope(file_id, refs))
            return typed_here[0]

        for kind, name, receiver, scope, line in refs:
            if kind not in DYNAMIC_REF_KINDS:
                continue
            src = self._source(file_id, scope, line)
            if src is None:
                continue
            if kind in VALUE_KINDS:
                how: Resolution = "registry" if kind == "registered" else "value"
                for dst in self._values(here(), scope, name, receiver, VALUE_KINDS[kind]):
                    add(src, dst, "references", how, line)
            elif kind == "dispatch":
                for dst in self._dispatched(file_id, scope, name, receiver):
                    add(src, dst, "calls", "dispatch", line)
            elif kind == "named":
                how = "registry" if w.symbol(src).kind == "constant" else "value"
                for dst in self._named_by_path(file_id, name):
                    add(src, dst, "references", how, line)
            elif receiver:  # ``self.handlers[...]``: a registry held by the class
                for cls in w.enclosing_classes(file_id, scope):
                    if kind == "store":
                        writers[(cls, name)].append(self._outermost(src))
                    else:
                        readers[(cls, name)].append((src, line))
            else:
                found = self._resolve_dotted(file_id, scope, name)
                for registry in (i for i in found.ids if w.symbol(i).kind == "constant"):
                    if kind == "store":
                        add(registry, self._outermost(src), "references", "registry", line)
                    else:
                        add(src, registry, "references", "registry", line)
        for key, found_readers in readers.items():
            for reader, line in found_readers:
                for writer in writers.get(key, ()):
                    add(reader, writer, "references", "registry", line)
        for edge in self._decorator_edges(calls) + self._subclass_hook_edges(file_id):
            add(edge.src, edge.dst, edge.type, edge.resolution, edge.line)
        return list(best.values())

    def _constant_uses(
        self, file_id: int, refs: Sequence[RefRow], linked: set[tuple[int, int]]
    ) -> list[Edge]:
        """``references`` edges from each reader of a module constant to the constant, resolved as
        the name is (this file, an import); a reader a registry edge links already keeps that one."""
        found: dict[tuple[int, int], Edge] = {}
        members = self.world.hooks(file_id).member_constants
        for kind, name, _receiver, scope, line in refs:
            if kind != "uses":
                continue
            src = self._source(file_id, scope, line)
            target = self._constant(file_id, scope, name, members)
            how = target.how
            if src is None or not is_edge(how):
                continue
            for dst in target.ids:
                key = (src, dst)
                if key in linked or key in found or src == dst or self.world.symbol(dst).kind != "constant":
                    continue
                found[key] = Edge(src, dst, "references", how, CONFIDENCE[how], line)
        return list(found.values())

    def _constant(self, file_id: int, scope: str, name: str, members: bool) -> Lookup:
        """What a constant's name refers to: with ``members``, a bare name is first a field of the
        enclosing classes (a Java class's own ``MAX_SIZE`` shadows an import)."""
        if "." in name:
            return self._resolve_dotted(file_id, scope, name)
        if members:
            w = self.world
            own = w.find_member(w.enclosing_classes(file_id, scope), name)
            if own:
                return Lookup(own, "self")
        return self._resolve_bare(file_id, scope, name)

    def _values(
        self, here: FileScope, scope: str, name: str, receiver: str, kinds: frozenset[str]
    ) -> list[int]:
        """The symbols of ``kinds`` a name written as a value refers to (no name guessing)."""
        w = self.world
        if not receiver and kinds == CLASS_KINDS and name in here.declared:  # an object built earlier
            return self._typed_receiver(here, scope, name)
        if not receiver:
            found = self._resolve_bare(here.file_id, scope, name)
        elif receiver in here.hooks.self_names:
            found = Lookup(w.find_member(w.enclosing_classes(here.file_id, scope), name), "self")
        else:
            found = self._resolve_dotted(here.file_id, scope, f"{receiver}.{name}")
        return [i for i in found.ids if w.symbol(i).kind in kinds]

    def _named_by_path(self, file_id: int, dotted: str) -> list[int]:
        """The function or class a string names by its dotted path (``"pkg.plugins.table.table"``):
        the longest leading path that is a module of the repository, then its members. A string that
        names a module alone, or nothing here, links nothing."""
        w = self.world
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            modules = w.module_named(file_id, ".".join(parts[:i]))
            if modules:
                found = self._walk(self._bound(Binding(modules, parts[i])), parts[i + 1 :])
                return [t for t in found.ids if w.symbol(t).kind in VALUE_KINDS["registered"]]
        return []

    def _dispatched(self, file_id: int, scope: str, prefix: str, receiver: str) -> list[int]:
        """The methods ``getattr(self, prefix + ...)`` may find: those of the enclosing class, its
        bases and its subclasses whose names start with the prefix; with no receiver (a library
        collecting the calling module's functions, ``lex.lex()``), the file's top-level functions."""
        w = self.world
        if not receiver:
            return [
                i
                for short, ids in w.top(file_id).items()
                if dispatched_name(prefix, short) and "." not in short
                for i in ids
                if w.symbol(i).kind == "function"
            ]
        classes = w.enclosing_classes(file_id, scope)
        family = dict.fromkeys(self.world.lineage(classes))
        frontier = list(classes)
        while frontier:
            frontier = [s for c in frontier for s in self._subclass_map().get(c, ()) if s not in family]
            family.update(dict.fromkeys(frontier))
        return [
            m
            for cls in family
            for short, ids in w.members(cls).items()
            if dispatched_name(prefix, short)
            for m in ids
            if w.symbol(m).kind == "method"
        ]

    def _subclass_map(self) -> dict[int, list[int]]:
        """Each class's direct subclasses in the repository."""
        if self._subclasses is None:
            found: dict[int, list[int]] = defaultdict(list)
            for cls in self.world.classes_with_bases():
                for base in self.world.bases(cls):
                    found[base].append(cls)
            self._subclasses = dict(found)
        return self._subclasses

    def _outermost(self, symbol_id: int) -> int:
        """The function a nested function is defined in, outermost first (``register.deco`` ->
        ``register``): a decorator factory is written as the outer one."""
        current = symbol_id
        while True:
            parent = self.world.symbol(current).parent_id
            if parent is None or self.world.symbol(parent).kind not in CALLABLE_KINDS:
                return current
            current = parent

    def _decorator_edges(self, calls: Sequence[Edge]) -> list[Edge]:
        """From a decorator defined in the repository to each function it decorates (it may
        register it where a lookup finds it): the reverse of the call its decorator line makes."""
        w = self.world
        edges = []
        for e in calls:
            if e.resolution == "name" or e.type != "calls":
                continue
            if w.symbol(e.src).kind not in CALLABLE_KINDS or not w.decorators(e.src):
                continue
            decorator = w.symbol(e.dst)
            written = {mark_name(d) for d in w.decorators(e.src)}
            if decorator.kind in CALLABLE_KINDS and decorator.name.rsplit(".", 1)[-1] in written:
                edges.append(Edge(e.dst, e.src, "references", "decorator", CONFIDENCE["decorator"], e.line))
        return edges

    def _subclass_hook_edges(self, file_id: int) -> list[Edge]:
        """From a base's ``__init_subclass__`` in the repository to each subclass in the file and
        its methods: the hook registers the subclass where the base's lookup finds it. A subclass
        defined in a function (a test's local ``class Custom(Flask)``) also runs the hook each time
        the function runs: a call from the class to the hook (a module's classes run it at import,
        which no test's own run covers)."""
        w = self.world
        edges = []
        for ids in w.top(file_id).values():
            for cls in ids:
                if w.symbol(cls).kind not in CLASS_KINDS or not w.bases(cls):
                    continue
                hooks = [
                    m
                    for base in self.world.lineage(w.bases(cls))
                    for m in w.member_named(base, SUBCLASS_HOOK)
                    if w.symbol(m).kind == "method"
                ]
                if not hooks:
                    continue
                methods = [
                    m for found in w.members(cls).values() for m in found if w.symbol(m).kind == "method"
                ]
                edges += [
                    Edge(hook, target, "references", "subclass", CONFIDENCE["subclass"], 0)
                    for hook in hooks
                    for target in [cls, *methods]
                ]
                parent = w.symbol(cls).parent_id
                if parent is not None and w.symbol(parent).kind in CALLABLE_KINDS:
                    edges += [Edge(cls, h, "calls", "subclass", CONFIDENCE["subclass"], 0) for h in hooks]
        return edges
