"""References -> typed edges, resolved through scopes and imports before names.

A reference is resolved in this order, and the edge records which step found it:

- ``self``: ``self.m()`` / ``this.m()`` / a Go receiver -> the method on the enclosing class or,
  failing that, on its bases (breadth first); ``super().m()`` looks at the bases only.
- ``local``: an enclosing function's nested definition, then the file's top level.
- ``import``: a name bound by an import (following re-exports and wildcard imports), or a member
  of an imported module or class (``models.User.create()``).
- ``package``: a top-level name of another file in the same package (Go, Java).
- ``fixture``: a pytest test parameter -> the fixture function in its module or a ``conftest.py``
  above it.
- ``name``: the last resort, a repository-wide match of the bare name, taken only when the name is
  defined at most ``AMBIGUOUS_LIMIT`` times (and never for built-ins), with lower confidence.

A name bound by an import that leaves the repository (``from requests import get``) is never linked
by name. Derived edges: ``contains`` from the symbol tree, ``imports`` from the module to what it
imports, ``overrides`` from a method to the base-class method it redefines, and ``tests`` from a test
case to the non-test code it calls directly or through its fixtures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from mnemo_core.index.languages import registry
from mnemo_core.index.languages.base import Hooks
from mnemo_core.index.store import SymbolRow
from mnemo_core.model import CLASS_KINDS, Edge, RawImport, RawRef

AMBIGUOUS_LIMIT = 3  # a name defined more often than this is not linked by name alone
REEXPORT_DEPTH = 4  # how many re-export hops an imported name is followed through
BASES_DEPTH = 6  # how far up the class hierarchy a method is looked for
CONFIDENCE = {
    "structure": 1.0,  # the symbol tree itself
    "local": 1.0,  # defined in the same file and scope
    "self": 0.95,  # a method of the enclosing class or its bases
    "import": 0.95,  # followed through an import statement
    "fixture": 0.9,  # a pytest fixture in scope
    "package": 0.85,  # another file of the same package
    "derived": 0.9,  # overrides and tests, derived from other edges
    "name": 0.5,  # a unique name match anywhere in the repository: plausible, not proven
}
CALLABLE_TARGETS = frozenset({"function", "method", "class", "struct", "interface", "trait", "enum", "type"})


@dataclass(frozen=True, slots=True)
class FileInfo:
    """A file as the resolver sees it."""

    id: int
    path: str
    language: str
    imports: tuple[RawImport, ...]
    exports: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Binding:
    """What an import binds a local name to: a module (``member`` empty) or a member of one."""

    modules: tuple[int, ...]  # file ids; empty when the import leaves the repository
    member: str = ""


@dataclass
class _FileBindings:
    names: dict[str, Binding] = field(default_factory=dict)
    stars: list[tuple[int, ...]] = field(default_factory=list)


class World:
    """A snapshot of the index for resolution: every symbol, file, import and base class."""

    def __init__(self, files: Iterable[FileInfo], symbols: Iterable[SymbolRow], inherits: Iterable[tuple[int, int]]):
        self.files = {f.id: f for f in files}
        self.by_path = {f.path: f for f in self.files.values()}
        self.symbols = {s.id: s for s in symbols}
        self.top: dict[int, dict[str, list[int]]] = defaultdict(dict)
        self.module_symbol: dict[int, int] = {}
        self.global_names: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.global_methods: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.members: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self.class_by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.package_files: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.bases: dict[int, list[int]] = defaultdict(list)
        self._bindings: dict[int, _FileBindings] = {}
        self._module_indexes: dict[str, object] = {}
        self._index_symbols()
        self.add_bases(inherits)

    def hooks(self, file_id: int) -> Hooks:
        """The language hooks of a file."""
        return registry()[self.files[file_id].language].hooks

    def _index_symbols(self) -> None:
        for f in self.files.values():
            hooks = registry()[f.language].hooks
            self.package_files[(f.language, hooks.package_of(f.path))].append(f.id)
        for s in sorted(self.symbols.values(), key=lambda s: s.id):
            f = self.files.get(s.file_id)
            if f is None:
                continue
            if s.kind == "module":
                self.module_symbol[f.id] = s.id
                continue
            self.top[f.id].setdefault(s.name, []).append(s.id)
            scope = registry()[f.language].hooks.member_scope(f.path)
            if s.kind in CLASS_KINDS:
                self.class_by_key[(scope, s.name)].append(s.id)
            if "." in s.name:
                owner, short = s.name.rsplit(".", 1)
                self.members[(scope, owner)][short].append(s.id)
                if s.kind == "method":
                    self.global_methods[(f.language, short)].append(s.id)
            elif s.kind in CALLABLE_TARGETS:
                self.global_names[(f.language, s.name)].append(s.id)

    def add_bases(self, inherits: Iterable[tuple[int, int]]) -> None:
        """Add ``(class, base)`` pairs to the class hierarchy."""
        for cls, base in inherits:
            if base not in self.bases[cls]:
                self.bases[cls].append(base)

    # -- modules and imports ----------------------------------------------------------------
    def _module_index(self, language: str) -> object:
        if language not in self._module_indexes:
            paths = [f.path for f in self.files.values() if f.language == language]
            self._module_indexes[language] = registry()[language].hooks.module_index(paths)
        return self._module_indexes[language]

    def _paths_to_ids(self, paths: list[str]) -> tuple[int, ...]:
        return tuple(self.by_path[p].id for p in paths if p in self.by_path)

    def bindings(self, file_id: int) -> _FileBindings:
        """The names a file's imports bind (computed once per file)."""
        cached = self._bindings.get(file_id)
        if cached is not None:
            return cached
        f = self.files[file_id]
        hooks = self.hooks(file_id)
        index = self._module_index(f.language)
        result = _FileBindings()
        for imp in f.imports:
            if imp.name == "*":
                result.stars.append(self._paths_to_ids(hooks.resolve_module(f.path, imp, index)))
                continue
            submodule = self._paths_to_ids(hooks.resolve_member_module(f.path, imp, index)) if imp.name else ()
            if submodule:
                result.names[imp.alias] = Binding(submodule)
            else:
                result.names[imp.alias] = Binding(self._paths_to_ids(hooks.resolve_module(f.path, imp, index)), imp.name)
        self._bindings[file_id] = result
        return result

    def resolve_binding(self, binding: Binding, depth: int = REEXPORT_DEPTH) -> list[int]:
        """The symbols an import binding stands for."""
        if not binding.member:
            return [self.module_symbol[m] for m in binding.modules if m in self.module_symbol]
        return self.lookup_member(binding.modules, binding.member, depth)

    def lookup_member(self, modules: Iterable[int], name: str, depth: int = REEXPORT_DEPTH) -> list[int]:
        """A top-level name of a module, following re-exports and wildcard imports."""
        for module in modules:
            ids = self.top[module].get(name)
            if ids:
                return ids
            if depth <= 0:
                continue
            bindings = self.bindings(module)
            binding = bindings.names.get(name)
            if binding is not None:
                found = self.resolve_binding(binding, depth - 1)
                if found:
                    return found
            for star in bindings.stars:
                exports = [self.files[m].exports for m in star]
                if any(e is not None and name not in e for e in exports) or name.startswith("_"):
                    continue
                found = self.lookup_member(star, name, depth - 1)
                if found:
                    return found
        return []

    # -- classes ----------------------------------------------------------------------------
    def class_key(self, class_id: int) -> tuple[str, str]:
        """The key under which a class's members are filed."""
        s = self.symbols[class_id]
        f = self.files[s.file_id]
        return (self.hooks(f.id).member_scope(f.path), s.name)

    def find_member(self, class_ids: Iterable[int], name: str, include_self: bool = True) -> list[int]:
        """A member by name on the classes or, breadth first, their bases."""
        frontier = list(class_ids)
        seen: set[int] = set()
        first = True
        for _ in range(BASES_DEPTH):
            next_frontier: list[int] = []
            for cls in frontier:
                if cls in seen:
                    continue
                seen.add(cls)
                if include_self or not first:
                    found = self.members.get(self.class_key(cls), {}).get(name)
                    if found:
                        return list(found)
                next_frontier.extend(self.bases.get(cls, ()))
            first = False
            frontier = next_frontier
            if not frontier:
                break
        return []

    def enclosing_classes(self, file_id: int, scope: str) -> list[int]:
        """The innermost class around a scope (``A.f.inner`` -> ``A``)."""
        f = self.files[file_id]
        member_scope = self.hooks(file_id).member_scope(f.path)
        parts = scope.split(".")
        for i in range(len(parts) - 1, 0, -1):
            found = self.class_by_key.get((member_scope, ".".join(parts[:i])))
            if found:
                return found
        return []

    def constructors(self, class_ids: Iterable[int]) -> list[int]:
        """The constructor methods of classes (``__init__``, ``constructor``...)."""
        found: list[int] = []
        for cls in class_ids:
            members = self.members.get(self.class_key(cls), {})
            for name in self.hooks(self.symbols[cls].file_id).constructor_names:
                found.extend(members.get(name, ()))
        return found


@dataclass
class _Resolution:
    ids: list[int]
    how: str
    final: bool = True  # False: nothing found yet, keep looking

    @property
    def found(self) -> bool:
        return bool(self.ids)


_MISS = _Resolution([], "", final=False)
_EXTERNAL = _Resolution([], "external")


class Resolver:
    """Resolves the references of some files against a :class:`World`."""

    def __init__(self, world: World) -> None:
        self.world = world

    def resolve(self, refs_by_file: dict[int, list[RawRef]]) -> list[tuple[Edge, int]]:
        """All edges resolved from the given files' references, each with the file it came from;
        plus the derived ``overrides`` edges of the whole repository."""
        w = self.world
        out: list[tuple[Edge, int]] = []
        inherits: list[tuple[Edge, int]] = []
        for fid, refs in refs_by_file.items():
            for ref in refs:
                if ref.kind == "inherit":
                    inherits.extend((e, fid) for e in self._resolve_ref(fid, ref, "inherits"))
        w.add_bases((e.src, e.dst) for e, _ in inherits)
        out.extend(inherits)
        for fid, refs in refs_by_file.items():
            calls = [(e, fid) for ref in refs if ref.kind == "call" for e in self._resolve_ref(fid, ref, "calls")]
            calls += [(e, fid) for e in self._fixture_edges(fid)]
            out.extend(_dedupe(calls))
            out.extend((e, fid) for e in self._tests_edges(fid, [e for e, _ in calls]))
            out.extend((e, fid) for e in self._structure_edges(fid))
        out.extend((e, 0) for e in self._overrides())
        return out

    # -- references -------------------------------------------------------------------------
    def _source(self, file_id: int, scope: str) -> int | None:
        if scope:
            ids = self.world.top[file_id].get(scope)
            if ids:
                return ids[0]
        return self.world.module_symbol.get(file_id)

    def _resolve_ref(self, file_id: int, ref: RawRef, edge_type: str) -> list[Edge]:
        src = self._source(file_id, ref.scope)
        if src is None:
            return []
        found = self._resolve_call(file_id, ref) if edge_type == "calls" else self._resolve_type(file_id, ref)
        if not found.ids:
            return []
        ids = [i for i in found.ids if i != src]
        if edge_type == "calls":
            ids += [c for c in self.world.constructors(i for i in ids if self.world.symbols[i].kind in CLASS_KINDS)]
        confidence = CONFIDENCE[found.how] / (len(found.ids) if found.how == "name" else 1)
        return [Edge(src, dst, edge_type, found.how, round(confidence, 3), ref.line) for dst in ids]

    def _resolve_type(self, file_id: int, ref: RawRef) -> _Resolution:
        found = self._resolve_dotted(file_id, ref.scope, f"{ref.receiver}.{ref.name}" if ref.receiver else ref.name)
        found.ids = [i for i in found.ids if self.world.symbols[i].kind in CLASS_KINDS]
        return found

    def _resolve_call(self, file_id: int, ref: RawRef) -> _Resolution:
        w = self.world
        hooks = w.hooks(file_id)
        receiver = ref.receiver
        if not receiver:
            found = self._resolve_bare(file_id, ref.scope, ref.name)
            return found if found.final else self._by_name(file_id, ref.name, methods=False)
        if receiver in hooks.super_names or receiver.startswith("super("):
            classes = w.enclosing_classes(file_id, ref.scope)
            return _Resolution(w.find_member(classes, ref.name, include_self=False), "self")
        if self._is_self(file_id, ref.scope, receiver):
            classes = w.enclosing_classes(file_id, ref.scope)
            return _Resolution(w.find_member(classes, ref.name), "self")
        target = self._resolve_receiver(file_id, ref.scope, receiver)
        if target.final:
            return self._member_of(target, ref.name)
        if ref.name in hooks.builtin_methods:
            return _EXTERNAL
        return self._by_name(file_id, ref.name, methods=True)

    def _is_self(self, file_id: int, scope: str, receiver: str) -> bool:
        hooks = self.world.hooks(file_id)
        if receiver in hooks.self_names:
            return True
        if not hooks.receiver_is_first_param:
            return False
        src = self._source(file_id, scope)
        symbol = self.world.symbols.get(src) if src is not None else None
        return bool(symbol and symbol.kind == "method" and symbol.params and symbol.params[0] == receiver)

    def _member_of(self, target: _Resolution, name: str) -> _Resolution:
        w = self.world
        modules = [w.symbols[i].file_id for i in target.ids if w.symbols[i].kind == "module"]
        classes = [i for i in target.ids if w.symbols[i].kind in CLASS_KINDS]
        found = w.lookup_member(modules, name) if modules else []
        if not found and classes:
            found = w.find_member(classes, name)
        return _Resolution(found, target.how if found else "external")

    def _resolve_receiver(self, file_id: int, scope: str, receiver: str) -> _Resolution:
        """What an object expression refers to, when it is a module or a class (or an instance made
        by calling a class); a miss when it is anything else."""
        if receiver.endswith(")"):
            callee = receiver[: receiver.find("(")]
            if not callee or not _is_dotted_name(callee):
                return _MISS
            found = self._resolve_dotted(file_id, scope, callee)
            classes = [i for i in found.ids if self.world.symbols[i].kind in CLASS_KINDS]
            return _Resolution(classes, found.how) if classes else _MISS
        if not _is_dotted_name(receiver):
            return _MISS
        found = self._resolve_dotted(file_id, scope, receiver)
        kinds = CLASS_KINDS | {"module"}
        if found.how == "external":
            return found
        ids = [i for i in found.ids if self.world.symbols[i].kind in kinds]
        return _Resolution(ids, found.how) if ids else _MISS

    def _resolve_dotted(self, file_id: int, scope: str, dotted: str) -> _Resolution:
        """``a.b.C`` through the file's import bindings (longest alias first), then its scopes."""
        w = self.world
        parts = dotted.split(".")
        bindings = w.bindings(file_id).names
        for i in range(len(parts), 0, -1):
            binding = bindings.get(".".join(parts[:i]))
            if binding is None:
                continue
            if not binding.modules:
                return _EXTERNAL
            ids = w.resolve_binding(binding)
            return self._walk(_Resolution(ids, "import"), parts[i:])
        head = self._resolve_bare(file_id, scope, parts[0])
        if not head.found:
            return head if head.final else _MISS
        return self._walk(head, parts[1:])

    def _walk(self, found: _Resolution, rest: list[str]) -> _Resolution:
        for part in rest:
            if not found.ids:
                break
            found = self._member_of(found, part)
        return found

    def _resolve_bare(self, file_id: int, scope: str, name: str) -> _Resolution:
        w = self.world
        top = w.top[file_id]
        parts = scope.split(".") if scope else []
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            owner = top.get(prefix)
            if owner and w.symbols[owner[0]].kind in CLASS_KINDS:
                continue
            ids = top.get(f"{prefix}.{name}")
            if ids:
                return _Resolution(ids, "local")
        if name in top:
            return _Resolution(top[name], "local")
        bindings = w.bindings(file_id)
        binding = bindings.names.get(name)
        if binding is not None:
            return _Resolution(w.resolve_binding(binding), "import") if binding.modules else _EXTERNAL
        for star in bindings.stars:
            found = w.lookup_member(star, name)
            if found:
                return _Resolution(found, "import")
        hooks = w.hooks(file_id)
        if hooks.shares_package_scope():
            f = w.files[file_id]
            for peer in w.package_files.get((f.language, hooks.package_of(f.path)), ()):
                ids = w.top[peer].get(name) if peer != file_id else None
                if ids:
                    return _Resolution(ids, "package")
        if name in hooks.builtin_names:
            return _EXTERNAL
        return _MISS

    def _by_name(self, file_id: int, name: str, methods: bool) -> _Resolution:
        w = self.world
        language = w.files[file_id].language
        table = w.global_methods if methods else w.global_names
        candidates = table.get((language, name), [])
        if not candidates or len(candidates) > AMBIGUOUS_LIMIT:
            return _EXTERNAL
        return _Resolution(list(candidates), "name")

    # -- derived edges ----------------------------------------------------------------------
    def _fixture_edges(self, file_id: int) -> list[Edge]:
        w = self.world
        f = w.files[file_id]
        if f.language != "python":
            return []
        edges = []
        for ids in w.top[file_id].values():
            for sid in ids:
                s = w.symbols[sid]
                if not s.params or not (s.is_test_case or _is_fixture(s)):
                    continue
                for param in s.params:
                    fixture = self._find_fixture(file_id, param)
                    if fixture is not None and fixture != sid:
                        edges.append(Edge(sid, fixture, "calls", "fixture", CONFIDENCE["fixture"], 0))
        return edges

    def _find_fixture(self, file_id: int, name: str) -> int | None:
        w = self.world
        candidates = [file_id]
        directory = w.files[file_id].path
        while "/" in directory:
            directory = directory.rsplit("/", 1)[0]
            conftest = w.by_path.get(f"{directory}/conftest.py")
            if conftest is not None:
                candidates.append(conftest.id)
        root_conftest = w.by_path.get("conftest.py")
        if root_conftest is not None:
            candidates.append(root_conftest.id)
        for fid in candidates:
            for sid in w.top[fid].get(name, ()):
                if _is_fixture(w.symbols[sid]):
                    return sid
        return None

    def _tests_edges(self, file_id: int, calls: list[Edge]) -> list[Edge]:
        w = self.world
        by_src: dict[int, list[Edge]] = defaultdict(list)
        for e in calls:
            by_src[e.src].append(e)
        edges: dict[tuple[int, int], Edge] = {}
        for src, out in by_src.items():
            if not w.symbols[src].is_test_case:
                continue
            reached = list(out)
            for e in out:
                if e.resolution == "fixture":
                    reached.extend(by_src.get(e.dst, ()))
            for e in reached:
                if not w.symbols[e.dst].is_test and e.dst != src:
                    edges.setdefault((src, e.dst), Edge(src, e.dst, "tests", "derived", e.confidence, e.line))
        return list(edges.values())

    def _structure_edges(self, file_id: int) -> list[Edge]:
        w = self.world
        edges = []
        for ids in w.top[file_id].values():
            for sid in ids:
                parent = w.symbols[sid].parent_id
                if parent is not None:
                    edges.append(Edge(parent, sid, "contains", "structure", 1.0, 0))
        module = w.module_symbol.get(file_id)
        if module is not None:
            targets = {t for b in w.bindings(file_id).names.values() for t in w.resolve_binding(b)}
            targets.update(w.module_symbol[m] for star in w.bindings(file_id).stars for m in star
                           if m in w.module_symbol)
            edges.extend(Edge(module, t, "imports", "import", 1.0, 0) for t in sorted(targets) if t != module)
        return edges

    def _overrides(self) -> list[Edge]:
        w = self.world
        edges = []
        for cls, bases in w.bases.items():
            if cls not in w.symbols:
                continue
            for short, methods in w.members.get(w.class_key(cls), {}).items():
                base_methods = w.find_member(bases, short)
                for method in methods:
                    if w.symbols[method].kind != "method":
                        continue
                    edges.extend(Edge(method, b, "overrides", "derived", CONFIDENCE["derived"], 0)
                                 for b in base_methods if w.symbols[b].kind == "method")
        return edges


def _is_fixture(symbol: SymbolRow) -> bool:
    return any("fixture" in d for d in symbol.decorators)


def _is_dotted_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _dedupe(edges: list[tuple[Edge, int]]) -> list[tuple[Edge, int]]:
    best: dict[tuple[int, int, str], tuple[Edge, int]] = {}
    for edge, fid in edges:
        key = (edge.src, edge.dst, edge.type)
        if key not in best or edge.confidence > best[key][0].confidence:
            best[key] = (edge, fid)
    return list(best.values())
