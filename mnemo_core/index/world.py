"""What the resolver knows of the repository: files, symbols, imports and base classes.

The world loads lazily from the index: re-resolving one saved file reads that file's symbols,
the files its imports reach, and the few names it falls back on, not the whole repository.
A cold build preloads everything in a handful of bulk queries instead.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from mnemo_core.index.languages import registry
from mnemo_core.index.languages.base import Hooks
from mnemo_core.model import CLASS_KINDS, Field, RawImport, SymbolKind

REEXPORT_DEPTH = 4  # how many re-export hops an imported name is followed through
BASES_DEPTH = 6  # how far up the class hierarchy a member is looked for
NAME_TARGET_KINDS: frozenset[SymbolKind] = frozenset(
    {"function", "class", "struct", "interface", "trait", "enum", "type"}
)


@dataclass(frozen=True, slots=True)
class SymbolRow:
    """A symbol as the resolver needs it."""

    id: int
    file_id: int
    name: str
    kind: SymbolKind
    parent_id: int | None
    is_test: bool
    is_test_case: bool
    params: tuple[str, ...]
    decorators: tuple[str, ...]
    returns: str = ""
    supers: tuple[
        str, ...
    ] = ()  # a class: its bases as written; a method: the base methods it calls via super()
    fields: tuple[Field, ...] = ()  # a class: its instances' typed attributes
    start_line: int = 0
    end_line: int = 0


class SymbolCore(Protocol):
    """What ``World.symbol`` gives of a symbol and notes as read (key ``y``). Its parameters,
    decorators, return type, bases as written and typed attributes are read through
    ``World.params``, ``decorators``, ``returns``, ``supers`` and ``fields_named``, each noted
    apart: a class that gains a typed attribute changes nothing for the readers of its name."""

    @property
    def id(self) -> int: ...
    @property
    def file_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> SymbolKind: ...
    @property
    def parent_id(self) -> int | None: ...
    @property
    def is_test(self) -> bool: ...
    @property
    def is_test_case(self) -> bool: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


class WorldSource(Protocol):
    """Where the world reads from (the index store)."""

    def resolver_files(self) -> list[tuple[int, str, str]]: ...
    def imports_of(
        self, file_ids: Iterable[int] | None
    ) -> dict[int, tuple[list[RawImport], tuple[str, ...] | None]]: ...
    def resolver_symbols(self, file_ids: Iterable[int] | None) -> list[SymbolRow]: ...
    def symbol_files(self, symbol_ids: Iterable[int]) -> dict[int, int]: ...
    def property_names(self) -> set[str]: ...
    def symbols_with_short_name(self, name: str) -> list[SymbolRow]: ...
    def bases_of(self, class_ids: Iterable[int] | None, exclude_files: set[int]) -> list[tuple[int, int]]: ...


SEP = "\t"  # between the parts of a stored key
# the symbol columns read (and noted) one by one, by their key letter: ``World.params`` etc.
DETAILS = {"p": "params", "d": "decorators", "r": "returns", "s": "supers"}
SUBCLASSES_KEY = "sub"  # every class's subclasses: changes with any resolved base


def name_key(family: str, name: str, methods: bool) -> str:
    return f"n{SEP}{family}{SEP}{name}{SEP}{int(methods)}"


def counted_as(family: str, name: str, kind: str) -> tuple[str, str, bool] | None:
    """The ``named`` key a symbol is counted under: a method by its short name, a top-level
    function or type by its name; None for anything else."""
    if kind == "method":
        return (family, name.rsplit(".", 1)[-1], True)
    if "." not in name and kind in NAME_TARGET_KINDS:
        return (family, name, False)
    return None


def name_keys(family: str, name: str, kind: str) -> set[tuple[str, str, bool]]:
    """The ``named`` keys a symbol's appearing, going or changing changes."""
    key = counted_as(family, name, kind)
    return {key} if key is not None else set()


SHARED_MODULE_INDEXES = 2  # import lookups kept for the next world: a move builds the old and new paths'
_module_indexes: dict[tuple[str, tuple[str, ...]], object] = {}


def module_index(hooks: Hooks, family: str, paths: Iterable[str]) -> object:
    """The import lookup over some paths of a module family, built once per list of paths: a
    move's worlds and its comparison of imports under the old and new paths share them."""
    key = (family, tuple(sorted(paths)))
    found = _module_indexes.get(key)
    if found is None:
        while len(_module_indexes) >= SHARED_MODULE_INDEXES:
            del _module_indexes[next(iter(_module_indexes))]
        found = _module_indexes[key] = hooks.module_index(key[1])
    return found


@dataclass
class Reads:
    """What resolving one file (``owner``) read of the world: the keys its edges depend on (see
    ``depends``). A file is resolved again when one of them changes, and only then. What it reads
    of itself is not noted: a file whose content changed is resolved again anyway."""

    owner: int = -1
    files: set[int] = field(default_factory=set)  # every top-level name of a file (its symbols, walked)
    top: set[tuple[int, str]] = field(default_factory=set)  # a file's symbols of a name ("": its module's)
    symbols: set[int] = field(default_factory=set)  # a symbol's name, kind, parent and test flags
    details: set[tuple[str, int]] = field(default_factory=set)  # (DETAILS letter, symbol): one column
    attributes: set[tuple[int, str]] = field(default_factory=set)  # a class's typings of one attribute
    members: set[tuple[str, str, str]] = field(default_factory=set)  # (language, scope, class): members
    classes: set[tuple[str, str, str]] = field(default_factory=set)  # (language, scope, name): classes
    names: set[tuple[str, str, bool]] = field(default_factory=set)  # ``named`` keys, the whole list
    counted: set[tuple[str, str, bool]] = field(default_factory=set)  # the list only if at most ``limit``
    extending: set[tuple[str, str]] = field(default_factory=set)  # methods of a name in derived classes
    member: set[tuple[str, str, str, str]] = field(default_factory=set)  # a class's members of one name
    bound: set[tuple[int, str]] = field(default_factory=set)  # what a module's import binds one name to
    starred: set[int] = field(default_factory=set)  # what a module imports ``*`` from
    exports: set[int] = field(default_factory=set)  # a module's declared public names
    imports: set[int] = field(default_factory=set)  # a file's imports and exports as written
    bindings: set[int] = field(default_factory=set)  # what a file's imports resolve to
    bases: set[int] = field(default_factory=set)  # the classes whose resolved base classes it read
    properties: set[str] = field(default_factory=set)  # whether a short name is a property
    packages: set[tuple[str, str]] = field(default_factory=set)  # a package's files
    fixtures: set[tuple[str, str]] = field(default_factory=set)  # (path, name) looked for where no file is
    modules: set[tuple[str, str, str]] = field(default_factory=set)  # (query, file path, name): a path lookup
    subclasses: bool = False  # every class's subclasses
    deltas: dict[tuple[str, str, bool], int] = field(default_factory=dict)  # a change: definitions gained

    def merge(self, other: Reads) -> None:
        """Add what another reading read."""
        for name in _READ_SETS:
            getattr(self, name).update(getattr(other, name))
        self.subclasses = self.subclasses or other.subclasses

    def keys(self) -> set[str]:
        """The stored form: one text key per thing read (``depends`` makes the same keys of a change)."""
        keys = {f"f{SEP}{f}" for f in self.files}
        keys.update(f"t{SEP}{f}{SEP}{name}" for f, name in self.top)
        keys.update(f"y{SEP}{s}" for s in self.symbols)
        keys.update(f"y{letter}{SEP}{s}" for letter, s in self.details)
        keys.update(f"yf{SEP}{s}{SEP}{name}" for s, name in self.attributes)
        keys.update(SEP.join(("m", *member)) for member in self.members)
        keys.update(SEP.join(("c", *cls)) for cls in self.classes)
        keys.update(name_key(*name) for name in self.names)
        keys.update("a" + name_key(*name)[1:] for name in self.counted)
        keys.update(f"ne{SEP}{family}{SEP}{name}" for family, name in self.extending)
        keys.update(SEP.join(("o", *member)) for member in self.member)
        keys.update(f"bn{SEP}{f}{SEP}{name}" for f, name in self.bound)
        keys.update(f"bs{SEP}{f}" for f in self.starred)
        keys.update(f"e{SEP}{f}" for f in self.exports)
        keys.update(f"x{SEP}{f}" for f in self.imports)
        keys.update(f"b{SEP}{f}" for f in self.bindings)
        keys.update(f"i{SEP}{c}" for c in self.bases)
        keys.update(f"p{SEP}{name}" for name in self.properties)
        keys.update(f"k{SEP}{lang}{SEP}{package}" for lang, package in self.packages)
        keys.update(SEP.join(("fx", *fixture)) for fixture in self.fixtures)
        keys.update(SEP.join(("q", *query)) for query in self.modules)
        if self.subclasses:
            keys.add(SUBCLASSES_KEY)
        return keys


_READ_SETS = (
    "files",
    "top",
    "symbols",
    "details",
    "attributes",
    "members",
    "classes",
    "names",
    "counted",
    "extending",
    "member",
    "bound",
    "starred",
    "exports",
    "imports",
    "bindings",
    "bases",
    "properties",
    "packages",
    "fixtures",
    "modules",
)


@dataclass(frozen=True, slots=True)
class FileInfo:
    """A file as the resolver sees it."""

    id: int
    path: str
    language: str


@dataclass(frozen=True, slots=True)
class Binding:
    """What an import binds a local name to: a module (``member`` empty) or a member of one."""

    modules: tuple[int, ...]  # file ids; empty when the import leaves the repository
    member: str = ""


STARRED = "*"  # the name a module's wildcard imports are noted under
SCOPED = " scoped"  # the name a module's imports inside functions are noted under (no identifier)


class _NotedNames(dict[str, Binding]):
    """A module's bindings by name, noting each name asked for (and, walked, every name)."""

    note: Callable[[str], None] | None = None

    def get(self, name: str, default: Any = None) -> Any:
        if self.note is not None:
            self.note(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        if self.note is not None and isinstance(name, str):
            self.note(name)
        return super().__contains__(name)

    def __getitem__(self, name: str) -> Binding:
        if self.note is not None:
            self.note(name)
        return super().__getitem__(name)

    def values(self) -> Any:
        if self.note is not None:
            self.note("")
        return super().values()

    def items(self) -> Any:
        if self.note is not None:
            self.note("")
        return super().items()

    def __iter__(self) -> Iterator[str]:
        if self.note is not None:
            self.note("")
        return super().__iter__()


class FileBindings:
    """The names a file's imports bind (at module level, and per function that imports), and the
    modules it imports ``*`` from. Once ``noted``, what another file's resolution reads of them is
    noted name by name (``""``: all of them)."""

    def __init__(self) -> None:
        self.names: dict[str, Binding] = _NotedNames()
        self._stars: list[tuple[int, ...]] = []
        self._scoped: dict[str, dict[str, Binding]] = defaultdict(dict)
        self._note: Callable[[str], None] | None = None

    def noted(self, note: Callable[[str], None]) -> None:
        """Note reads through ``note`` from now on."""
        self._note = note
        assert isinstance(self.names, _NotedNames)
        self.names.note = note

    @property
    def stars(self) -> list[tuple[int, ...]]:
        if self._note is not None:
            self._note(STARRED)
        return self._stars

    @property
    def scoped(self) -> dict[str, dict[str, Binding]]:
        if self._note is not None:
            self._note(SCOPED)
        return self._scoped

    def every(self) -> Iterator[Binding]:
        """Every binding, module level and in functions."""
        yield from self.names.values()
        for names in self.scoped.values():
            yield from names.values()


class World:
    """A lazily loaded view of the index for resolution."""

    def __init__(
        self,
        source: WorldSource,
        replaced_files: set[int],
        preload: bool = False,
        files: list[tuple[int, str, str]] | None = None,
    ) -> None:
        """``files``: every file's (id, path, language) in id order, when the caller has them."""
        self.source = source
        self.replaced_files = replaced_files  # files being re-resolved: their stored edges do not count
        self._hooks: dict[str, Hooks] = {name: spec.hooks for name, spec in registry().items()}
        self.files: dict[int, FileInfo] = {}
        self.by_path: dict[str, FileInfo] = {}
        self.scope_files: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.package_files: dict[tuple[str, str], list[int]] = defaultdict(list)
        for fid, path, language in source.resolver_files() if files is None else files:
            info = FileInfo(fid, path, language)
            self.files[fid] = info
            self.by_path[path] = info
            hooks = self._hooks[language]
            self.scope_files[(language, hooks.member_scope(path))].append(fid)
            self.package_files[(language, hooks.package_of(path))].append(fid)
        self.symbols: dict[int, SymbolRow] = {}
        self._top: dict[int, dict[str, list[int]]] = {}
        self._module_symbol: dict[int, int] = {}
        self._members: dict[tuple[str, str, str], dict[str, list[int]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self._classes: dict[tuple[str, str, str], list[int]] = defaultdict(list)
        self._loaded_scopes: set[tuple[str, str]] = set()
        self._imports: dict[int, tuple[list[RawImport], tuple[str, ...] | None]] = {}
        self._bindings: dict[int, FileBindings] = {}
        self._names: dict[tuple[str, str, bool], list[int]] = {}
        self._bases: dict[int, list[int]] = {}
        self._added_bases: dict[int, list[int]] = defaultdict(list)
        self._module_indexes: dict[str, object] = {}
        self._preloaded = preload
        self.reads: Reads | None = None  # while set, every lookup notes what it read
        self.bases_hidden = False
        self._all_bases = False  # every stored base read (a lazy world reads them when it needs all)
        if preload:
            self._preload()

    def hooks(self, file_id: int) -> Hooks:
        """The language hooks of a file."""
        return self._hooks[self.files[file_id].language]

    # -- loading ----------------------------------------------------------------------------
    def _preload(self) -> None:
        self._index(self.source.resolver_symbols(None))
        for fid in self.files:
            self._top.setdefault(fid, {})
        self._loaded_scopes.update(self.scope_files)
        self._imports = self.source.imports_of(None)
        bases: dict[int, list[int]] = defaultdict(list)
        for cls, base in self.source.bases_of(None, self.replaced_files):
            bases[cls].append(base)
        self._bases = bases
        methods: dict[tuple[str, str, bool], list[int]] = defaultdict(list)
        for s in self.symbols.values():
            key = self._name_key(s)
            if key is not None:
                methods[key].append(s.id)
        self._names = methods

    def _name_key(self, s: SymbolRow) -> tuple[str, str, bool] | None:
        return counted_as(self._family(self.files[s.file_id].language), s.name, s.kind)

    def _load(self, file_ids: Iterable[int]) -> None:
        missing = [fid for fid in file_ids if fid not in self._top and fid in self.files]
        if not missing:
            return
        for fid in missing:
            self._top[fid] = {}
        self._index(self.source.resolver_symbols(missing))

    def _index(self, rows: Iterable[SymbolRow]) -> None:
        for s in sorted(rows, key=lambda r: r.id):
            f = self.files.get(s.file_id)
            if f is None:  # (each file is indexed once: ``_load`` takes those not in ``_top``)
                continue
            self.symbols[s.id] = s
            if s.kind == "module":
                self._module_symbol[f.id] = s.id
                continue
            self._top.setdefault(f.id, {}).setdefault(s.name, []).append(s.id)
            scope = (f.language, self._hooks[f.language].member_scope(f.path))
            if s.kind in CLASS_KINDS or (s.kind == "namespace" and self._hooks[f.language].global_namespace):
                self._classes[(*scope, s.name)].append(s.id)  # a Ruby module is also a mixin
            if "." in s.name:
                owner, short = map(sys.intern, s.name.rsplit(".", 1))  # kept once: a name repeats
                self._members[(*scope, owner)][short].append(s.id)

    def _ensure_scope(self, scope: tuple[str, str]) -> None:
        if scope not in self._loaded_scopes:
            self._loaded_scopes.add(scope)
            self._load(self.scope_files.get(scope, ()))

    def symbol(self, symbol_id: int) -> SymbolCore:
        """A symbol by id, loading its file when needed (its other columns: ``params`` etc.)."""
        found = self.symbols.get(symbol_id)
        if found is None:
            self._load(self.source.symbol_files([symbol_id]).values())
            found = self.symbols[symbol_id]
        reads = self.reads
        if reads is not None and found.file_id != reads.owner:
            reads.symbols.add(symbol_id)
        return found

    def _detail(self, symbol_id: int, letter: str) -> SymbolRow:
        row = self.symbols.get(symbol_id)
        if row is None:
            self.symbol(symbol_id)
            row = self.symbols[symbol_id]
        reads = self.reads
        if reads is not None and row.file_id != reads.owner:
            reads.symbols.add(symbol_id)  # a symbol that goes changes its ``y`` key: its readers see it
            reads.details.add((letter, symbol_id))
        return row

    def params(self, symbol_id: int) -> tuple[str, ...]:
        """A symbol's parameters."""
        return self._detail(symbol_id, "p").params

    def decorators(self, symbol_id: int) -> tuple[str, ...]:
        """A symbol's decorators as written."""
        return self._detail(symbol_id, "d").decorators

    def returns(self, symbol_id: int) -> str:
        """A callable's declared (or constructed) return type."""
        return self._detail(symbol_id, "r").returns

    def supers(self, symbol_id: int) -> tuple[str, ...]:
        """A class's bases as written; a method's base methods it calls via ``super()``."""
        return self._detail(symbol_id, "s").supers

    def fields_named(self, symbol_id: int, attribute: str) -> list[Field]:
        """A class's typings of one attribute of its instances."""
        row = self.symbols.get(symbol_id)
        if row is None:
            self.symbol(symbol_id)
            row = self.symbols[symbol_id]
        reads = self.reads
        if reads is not None and row.file_id != reads.owner:
            reads.symbols.add(symbol_id)
            reads.attributes.add((symbol_id, attribute))
        return [f for f in row.fields if f.name == attribute]

    def top(self, file_id: int) -> dict[str, list[int]]:
        """A file's symbols by qualified name (all of them are read: see ``top_named``)."""
        reads = self.reads
        if reads is not None and file_id != reads.owner:
            reads.files.add(file_id)
        return self._top_of(file_id)

    def _top_of(self, file_id: int) -> dict[str, list[int]]:
        if file_id not in self._top:
            self._load([file_id])
        return self._top.get(file_id, {})

    def top_named(self, file_id: int, name: str) -> list[int]:
        """A file's symbols of one qualified name."""
        reads = self.reads
        if reads is not None and file_id != reads.owner:
            reads.top.add((file_id, name))
        return self._top_of(file_id).get(name, [])

    def module_symbol(self, file_id: int) -> int | None:
        """The module symbol of a file."""
        reads = self.reads
        if reads is not None and file_id != reads.owner:
            reads.top.add((file_id, ""))
        self._top_of(file_id)
        return self._module_symbol.get(file_id)

    def named(self, language: str, name: str, methods: bool, limit: int | None = None) -> list[int]:
        """Every method (``methods``) or top-level function/type called ``name`` in a language (or in
        its module family); with a ``limit``, the caller reads the list only when it holds at most
        that many (in a language without overloads: one with them counts definitions otherwise)."""
        key = (self._family(language), name, methods)
        if self.reads is not None:
            counted = limit is not None and not self._hooks[language].overloads
            (self.reads.counted if counted else self.reads.names).add(key)
        found = self._names.get(key)
        if found is None:
            found = [] if self._preloaded else self._query_names(key)
            self._names[key] = found
        return found

    def _query_names(self, key: tuple[str, str, bool]) -> list[int]:
        """Matching symbols from one indexed query; their files are not loaded (only the rows kept)."""
        rows = [r for r in self.source.symbols_with_short_name(key[1]) if r.file_id in self.files]
        for r in rows:
            self.symbols.setdefault(r.id, r)
        return [r.id for r in rows if self._name_key(r) == key]

    def property_names(self) -> frozenset[str]:
        """Short names of the symbols decorated as properties, repository-wide (read them through
        ``is_property``, which notes the name asked about)."""
        return frozenset(self.source.property_names())

    def fixture_file(self, path: str, name: str) -> FileInfo | None:
        """The indexed file at a path a fixture ``name`` is looked for in, if any (where there is
        none, the (path, name) pair is noted: a file added there may define it)."""
        found = self.by_path.get(path)
        if found is None and self.reads is not None:
            self.reads.fixtures.add((path, name))
        return found

    def package_peers(self, file_id: int) -> list[int]:
        """The files of a file's package (itself included)."""
        f = self.files[file_id]
        key = (f.language, self._hooks[f.language].package_of(f.path))
        if self.reads is not None:
            self.reads.packages.add(key)
        return self.package_files.get(key, [])

    # -- modules and imports ----------------------------------------------------------------
    def _family(self, language: str) -> str:
        return self._hooks[language].module_family or language

    def family(self, language: str) -> str:
        """The module family a language's names are counted in."""
        return self._family(language)

    def _module_index(self, language: str) -> object:
        """The import lookup over the files of a language and of those in its module family."""
        family = self._family(language)
        if family not in self._module_indexes:
            paths = [f.path for f in self.files.values() if self._family(f.language) == family]
            self._module_indexes[family] = module_index(self._hooks[language], family, paths)
        return self._module_indexes[family]

    def _paths_to_ids(self, paths: list[str]) -> tuple[int, ...]:
        return tuple(self.by_path[p].id for p in paths if p in self.by_path)

    def _imports_of(self, file_id: int) -> tuple[list[RawImport], tuple[str, ...] | None]:
        if file_id not in self._imports:
            self._imports.update(self.source.imports_of([file_id]))
        return self._imports.get(file_id, ([], None))

    def imports(self, file_id: int) -> list[RawImport]:
        """The imports a file declares, as written."""
        reads = self.reads
        if reads is not None and file_id != reads.owner:
            reads.imports.add(file_id)
        return self._imports_of(file_id)[0]

    def exports(self, file_id: int) -> tuple[str, ...] | None:
        """A module's declared public names (Python ``__all__``), when it declares them."""
        reads = self.reads
        if reads is not None and file_id != reads.owner:
            reads.exports.add(file_id)
        return self._imports_of(file_id)[1]

    def bindings(self, file_id: int) -> FileBindings:
        """The names a file's imports bind (computed once per file; what is read of them is noted)."""
        cached = self._bindings.get(file_id)
        if cached is not None:
            return cached
        f = self.files[file_id]
        hooks = self.hooks(file_id)
        index = self._module_index(f.language)
        result = FileBindings()
        for imp in self._imports_of(file_id)[0]:
            if imp.name == "*":
                result._stars.append(self._paths_to_ids(hooks.resolve_module(f.path, imp, index)))
                continue
            names = result._scoped[imp.scope] if imp.scope else result.names
            submodule = (
                self._paths_to_ids(hooks.resolve_member_module(f.path, imp, index)) if imp.name else ()
            )
            if submodule:
                names[imp.alias] = Binding(submodule)
            else:
                modules = self._paths_to_ids(hooks.resolve_module(f.path, imp, index))
                names[imp.alias] = Binding(modules, imp.name)
        result.noted(lambda name: self._note_bound(file_id, name))
        self._bindings[file_id] = result
        return result

    def _note_bound(self, file_id: int, name: str) -> None:
        reads = self.reads
        if reads is None or file_id == reads.owner:
            return
        if name == "":
            reads.bindings.add(file_id)
        elif name == STARRED:
            reads.starred.add(file_id)
        else:
            reads.bound.add((file_id, name))

    def submodule(self, module_file: int, name: str) -> list[int]:
        """The module symbol of submodule ``name`` of a package module (empty when there is none)."""
        f = self.files[module_file]
        if self.reads is not None:
            self.reads.modules.add(("submodule", f.path, name))
        paths = self._hooks[f.language].submodule_paths(f.path, name, self._module_index(f.language))
        return [m for m in map(self.module_symbol, self._paths_to_ids(paths)) if m is not None]

    def module_named(self, file_id: int, dotted: str) -> tuple[int, ...]:
        """The files of the module an absolute import of ``dotted`` from ``file_id`` would load."""
        f = self.files[file_id]
        if self.reads is not None:
            self.reads.modules.add(("module", f.path, dotted))
        imported = RawImport(dotted, "", "", 0)
        return self._paths_to_ids(
            self._hooks[f.language].resolve_module(f.path, imported, self._module_index(f.language))
        )

    def resolve_binding(self, binding: Binding, depth: int = REEXPORT_DEPTH) -> list[int]:
        """The symbols an import binding stands for."""
        if not binding.member:
            return [m for m in (self.module_symbol(f) for f in binding.modules) if m is not None]
        return self.lookup_member(binding.modules, binding.member, depth)

    def lookup_member(self, modules: Iterable[int], name: str, depth: int = REEXPORT_DEPTH) -> list[int]:
        """A top-level name of a module, following re-exports and wildcard imports."""
        for module in modules:
            ids = self.top_named(module, name)
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
                if name.startswith("_") or any(name not in (self.exports(m) or (name,)) for m in star):
                    continue
                found = self.lookup_member(star, name, depth - 1)
                if found:
                    return found
        return []

    # -- classes ----------------------------------------------------------------------------
    def _scope_of(self, file_id: int) -> tuple[str, str]:
        f = self.files[file_id]
        return (f.language, self._hooks[f.language].member_scope(f.path))

    def members(self, class_id: int) -> dict[str, list[int]]:
        """The members of a class, by short name (across files where the language allows it)."""
        s = self.symbol(class_id)
        scope = self._scope_of(s.file_id)
        self._ensure_scope(scope)
        if self.reads is not None and self._beyond_owner(scope):
            self.reads.members.add((*scope, s.name))
        return self._members.get((*scope, s.name), {})

    def member_named(self, class_id: int, name: str) -> list[int]:
        """A class's members of one short name."""
        s = self.symbol(class_id)
        scope = self._scope_of(s.file_id)
        self._ensure_scope(scope)
        if self.reads is not None and self._beyond_owner(scope):
            self.reads.member.add((*scope, s.name, name))
        return self._members.get((*scope, s.name), {}).get(name, [])

    def _beyond_owner(self, scope: tuple[str, str]) -> bool:
        """Whether a member scope holds other files than the one being resolved."""
        assert self.reads is not None
        return self.scope_files.get(scope) != [self.reads.owner]

    def bases(self, class_id: int) -> list[int]:
        """The resolved base classes of a class (none while base classes are being resolved: they
        come out the same whichever files are resolved together)."""
        if self.bases_hidden:
            return []
        if self.reads is not None and self._file_of(class_id) != self.reads.owner:
            self.reads.bases.add(class_id)
        found = self._bases.get(class_id)
        if found is None:
            found = (
                []
                if self._preloaded
                else [b for _, b in self.source.bases_of([class_id], self.replaced_files)]
            )
            self._bases[class_id] = found
        return found + self._added_bases.get(class_id, [])

    def lineage(self, classes: Iterable[int]) -> list[int]:
        """The classes and, breadth first, their bases in the repository."""
        seen = dict.fromkeys(classes)
        frontier = list(seen)
        while frontier:
            frontier = [b for c in frontier for b in self.bases(c) if b not in seen]
            seen.update(dict.fromkeys(frontier))
        return list(seen)

    def add_bases(self, inherits: Iterable[tuple[int, int]]) -> None:
        """Add freshly resolved ``(class, base)`` pairs."""
        for cls, base in inherits:
            if base not in self._added_bases[cls]:
                self._added_bases[cls].append(base)

    def _file_of(self, symbol_id: int) -> int:
        found = self.symbols.get(symbol_id)
        if found is not None:
            return found.file_id
        reads, self.reads = self.reads, None
        try:
            return self.symbol(symbol_id).file_id
        finally:
            self.reads = reads

    def classes_with_bases(self) -> list[int]:
        """Every class known to have a base (all of them after a preload)."""
        if self.reads is not None:
            self.reads.subclasses = True
        if not self._preloaded and not self._all_bases:  # every class, not those met so far
            self._all_bases = True
            for cls, base in self.source.bases_of(None, self.replaced_files):
                self._bases.setdefault(cls, [])
                if base not in self._bases[cls]:
                    self._bases[cls].append(base)
        return sorted(
            {c for c, b in self._bases.items() if b} | {c for c, b in self._added_bases.items() if b}
        )

    def find_member(self, class_ids: Iterable[int], name: str, include_self: bool = True) -> list[int]:
        """A member by name on each of the classes or, breadth first, its bases."""
        found: dict[int, None] = {}
        for cls in class_ids:
            found.update(dict.fromkeys(self._member_of_class(cls, name, include_self)))
        return list(found)

    def _member_of_class(self, start: int, name: str, include_self: bool) -> list[int]:
        frontier = [start]
        seen: set[int] = set()
        first = True
        for _ in range(BASES_DEPTH):
            next_frontier: list[int] = []
            for cls in frontier:
                if cls in seen:
                    continue
                seen.add(cls)
                if include_self or not first:
                    found = self.member_named(cls, name)
                    if found:
                        return list(found)
                next_frontier.extend(self.bases(cls))
            first = False
            frontier = next_frontier
            if not frontier:
                break
        return []

    def classes_named(self, file_id: int, qualified: str) -> list[int]:
        """The classes of this qualified name in the file's member scope (one file by default; a Go
        package; every Ruby file)."""
        member_scope = self._scope_of(file_id)
        self._ensure_scope(member_scope)
        if self.reads is not None and self._beyond_owner(member_scope):
            self.reads.classes.add((*member_scope, qualified))
        return self._classes.get((*member_scope, qualified), [])

    def enclosing_classes(self, file_id: int, scope: str) -> list[int]:
        """The innermost class around a scope (``A.f.inner`` -> ``A``)."""
        member_scope = self._scope_of(file_id)
        self._ensure_scope(member_scope)
        noted = self.reads is not None and self._beyond_owner(member_scope)
        parts = scope.split(".")
        for i in range(len(parts) - 1, 0, -1):
            found = self._classes.get((*member_scope, ".".join(parts[:i])))
            if noted and self.reads is not None:
                self.reads.classes.add((*member_scope, ".".join(parts[:i])))
            if found:
                return found
        return []

    def constructors(self, class_ids: Iterable[int]) -> list[int]:
        """The constructor methods of classes (``__init__``, ``constructor``...), inherited ones
        included (a constructor named after its class is not inherited)."""
        found: list[int] = []
        for cls in class_ids:
            symbol = self.symbol(cls)
            hooks = self.hooks(symbol.file_id)
            for name in hooks.constructors_of(symbol.name):
                found.extend(
                    self.find_member([cls], name)
                    if name in hooks.constructor_names
                    else self.member_named(cls, name)
                )
        return found
