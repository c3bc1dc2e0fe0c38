"""Type inference: the classes a receiver holds, from declared and constructed variable types,
attribute types a class's code gives, properties, fixtures and what a called function returns.

A returned call is resolved by the calls room (:meth:`Types._resolve_call`), so the two recurse."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Sequence

from mnemo_core.index.extract import RESULT_MARK
from mnemo_core.index.languages.base import Hooks
from mnemo_core.index.resolve.fixtures import Fixtures
from mnemo_core.index.resolve.records import (
    GETATTR,
    FileScope,
    Lookup,
    RefRow,
    is_dotted_name,
)
from mnemo_core.index.world import Reads, World
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    TYPED_REF_KINDS,
    Field,
    RawRef,
)

_TYPE_TOKEN = re.compile(r"[A-Za-z_][\w.]*|[\[\],|]")


def variable_types(refs: Sequence[RefRow], hooks: Hooks) -> dict[str, dict[str, tuple[str, str]]]:
    """Declared, constructed or returned variable types by scope, as (kind, text); ``self.x`` ones
    are filed under the class (the method's owner) so every method sees them. The first
    declaration in a scope wins, but a variable built as one class here and another there is
    either (``fltr = PhpFilter()`` in one branch, ``fltr = PythonFilter()`` in the other)."""
    types: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for kind, name, receiver, scope, _ in refs:
        if kind not in TYPED_REF_KINDS:
            continue
        if kind == "type" and hooks.holds_class(receiver):
            kind = "alias"  # ``cls: type[Option]`` holds a class: calling it builds one
        owner = scope.rsplit(".", 1)[0] if "." in name and "." in scope else scope
        held = types[scope].get(receiver) if kind == "result" and owner != scope else None
        if held is not None and held[0] == "alias":  # ``self.clex = lexer()``, ``lexer=CLexer``: every
            kind, receiver = "type", held[1]  # method sees the class the local held, not the local
        first = types[owner].setdefault(name, (kind, receiver))
        built = first[1].split(" | ")  # ``x = A()`` here, ``x = B()`` there: either
        plain = all(map(is_dotted_name, [*built, receiver]))
        if kind == first[0] == "type" and receiver not in built and plain:
            types[owner][name] = ("type", f"{first[1]} | {receiver}")
        if kind == "alias" and "." not in name:  # a class attribute, read as self.name in methods
            types[owner].setdefault(f"self.{name}", (kind, receiver))
    return types


def type_names(type_text: str, hooks: Hooks) -> list[str]:
    """The types an annotation names, without its wrappers and ``None`` (``Optional[A] | B`` -> A, B)."""
    return [
        n
        for group in union_groups(type_text, hooks.union_wrappers)
        for n in group
        if n.rsplit(".", 1)[-1] not in hooks.type_wrappers and n != "None"
    ]


def union_groups(type_text: str, unions: frozenset[str]) -> list[list[str]]:
    """The names of a type annotation in order, those joined by ``|`` (or listed in one of the
    language's ``unions``, ``Union[...]``) at one bracket depth as one group:
    ``tuple[A | B, C]`` -> [[tuple], [A, B], [C]]."""
    groups: list[list[str]] = []
    open_group: dict[int, list[str]] = {}  # depth -> the group a following "|" extends
    listing: list[bool] = []  # per open bracket: whether it lists a union's members
    previous = ""
    for token in _TYPE_TOKEN.findall(type_text):
        depth = len(listing)
        if token == "[":
            listing.append(previous.rsplit(".", 1)[-1] in unions)
        elif token == "]":
            open_group.pop(depth, None)
            if listing:
                listing.pop()
        elif token == ",":
            if not (listing and listing[-1]):
                open_group.pop(depth, None)
        elif token != "|":
            group = open_group.get(depth) if previous in ("|", ",") else None
            if group is None:
                group = open_group[depth] = []
                groups.append(group)
            group.append(token)
        previous = token
    return groups


class Types(Fixtures, ABC):
    """Type inference: the classes a receiver, attribute or returned call holds.

    Within one file's resolution the same variable is typed for many references (``x.a()``,
    ``x.b()``, ``len(x)``, ``if x``), and the same test parameter looked up as a fixture: the
    answers are kept for the file whose references are resolved (:meth:`_start_file`), and only
    those asked outside any other typing (an answer found while another is being worked out may
    be cut short by the guard against types that depend on themselves). What the world was read
    for them is noted once, in the same file's ``Reads``, as without the memo."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self._typing: set[tuple[int, str, str]] = set()
        self._returning: set[int] = set()  # functions whose returned call is being resolved
        self._properties: frozenset[str] | None = None
        self._here: tuple[Sequence[RefRow] | None, FileScope] | None = None  # the file resolved, its refs
        self._typed_memo: dict[tuple[str, str], tuple[int, ...]] = {}  # (scope, variable) -> classes
        self._fixture_memo: dict[str, int | None] = {}  # parameter -> its fixture, in that file
        self._lookups: dict[tuple[bool, int, str, str], Lookup] = {}  # a name looked up in a scope
        self._reads: Reads | None = None  # where the file's reads are noted (lookups kept only then)

    def _start_file(self, refs: Sequence[RefRow] | None, here: FileScope) -> None:
        """Resolve references of the file ``here`` next (its calls, ``refs``, whose variable
        types ``here`` holds; None for its base classes): what was kept for the previous file is
        dropped."""
        self._here = (refs, here)
        self._typed_memo.clear()
        self._fixture_memo.clear()
        self._lookups.clear()
        self._reads = self.world.reads

    def _file_scope(self, file_id: int, refs: Sequence[RefRow]) -> FileScope:
        """The file with the variable types ``refs`` declare: the one its calls were resolved
        with, when they were these references' (the same answers, and its memo)."""
        if self._here is not None and self._here[0] is refs and self._here[1].file_id == file_id:
            return self._here[1]
        hooks = self.world.hooks(file_id)
        return FileScope.of(file_id, hooks, variable_types(refs, hooks))

    def _resolve_dotted(self, file_id: int, scope: str, dotted: str) -> Lookup:
        """:meth:`Scope._resolve_dotted`, kept for the file resolved (while its reads are noted)."""
        return self._kept_lookup(True, file_id, scope, dotted)

    def _resolve_bare(self, file_id: int, scope: str, name: str) -> Lookup:
        """:meth:`Scope._resolve_bare`, kept likewise."""
        return self._kept_lookup(False, file_id, scope, name)

    def _kept_lookup(self, dotted: bool, file_id: int, scope: str, name: str) -> Lookup:
        """A lookup of ``name`` in ``scope``, asked once per file resolved (no caller changes what
        it gets: the same object serves every asker)."""
        lookup = super()._resolve_dotted if dotted else super()._resolve_bare
        if self._reads is None or self.world.reads is not self._reads:
            return lookup(file_id, scope, name)
        key = (dotted, file_id, scope, name)
        found = self._lookups.get(key)
        if found is None:
            found = self._lookups[key] = lookup(file_id, scope, name)
        return found

    def _find_fixture(self, file_id: int, name: str) -> int | None:
        """:meth:`Fixtures._find_fixture`, kept per parameter name for the file resolved."""
        here = self._here[1] if self._here is not None else None
        if here is None or here.file_id != file_id:
            return super()._find_fixture(file_id, name)
        if name not in self._fixture_memo:
            self._fixture_memo[name] = super()._find_fixture(file_id, name)
        return self._fixture_memo[name]

    @abstractmethod
    def _resolve_call(self, here: FileScope, ref: RawRef) -> Lookup:
        """What a call resolves to (a returned call's classes are its targets' returned classes)."""

    def _declared(self, here: FileScope, scope: str, variable: str) -> tuple[str, str] | None:
        if variable not in here.declared:  # no scope of the file types it
            return None
        parts = scope.split(".") if scope else []
        for i in range(len(parts), -1, -1):
            declared = here.types.get(".".join(parts[:i]), {}).get(variable)
            if declared:
                return declared
        return None

    def _property_names(self) -> frozenset[str]:
        """Short names of every property in the repository (a ``self.x`` read of anything else runs
        nothing)."""
        if self._properties is None:
            self._properties = self.world.property_names()
        return self._properties

    def _is_property(self, name: str) -> bool:
        """Whether some symbol of the repository called ``name`` is a property (noted as read)."""
        if self.world.reads is not None:
            self.world.reads.properties.add(name)
        return name in self._property_names()

    def _typed_receiver(self, here: FileScope, scope: str, receiver: str) -> list[int]:
        """The classes a variable's declared or constructed type names: ``x = Client()``,
        ``x: Client``, ``def f(x: Client)``, ``self.x = Client()`` in any method of the class,
        ``x = make_client()`` where ``make_client`` declares ``-> Client``, or a pytest fixture
        parameter whose fixture returns a ``Client``."""
        key = (here.file_id, scope, receiver)
        if key in self._typing:
            return []  # a type that depends on itself (x = x.next())
        kept = not self._typing and not self._returning and self._here is not None and self._here[1] is here
        if kept and (scope, receiver) in self._typed_memo:
            return list(self._typed_memo[(scope, receiver)])
        self._typing.add(key)
        try:
            found = self._concrete(self._typed(here, scope, receiver))
        finally:
            self._typing.discard(key)
        if kept:
            self._typed_memo[(scope, receiver)] = tuple(found)
        return found

    def _concrete(self, classes: list[int]) -> list[int]:
        """The classes, none if every one is an interface: a Go value of interface type runs the
        method of whichever type implements it, which the type does not say (a name match does)."""
        if all(self.world.symbol(c).kind == "interface" for c in classes):
            return []
        return classes

    def _typed(self, here: FileScope, scope: str, receiver: str) -> list[int]:
        declared = self._declared(here, scope, receiver) or self._field_type(here, scope, receiver)
        if declared is not None:  # of an alias too: a class object's methods are the class's
            kind, text = declared
            if kind == "result":
                return self._returned_classes(here, scope, text)
            if kind in ("element", "held"):  # typed as the collection or the attribute chain it comes from
                return self._typed_receiver(here, scope, text)
            return self._classes_in(here.file_id, scope, text)
        if "." in receiver:
            return self._chained(here, scope, receiver)
        if self._parameter_of(here.file_id, scope, receiver) is None:
            return []
        fixture = self._find_fixture(here.file_id, receiver)
        if fixture is None or not self.world.returns(fixture):
            return []
        return self._classes_returned_by(here, fixture)

    def _parameter_of(self, file_id: int, scope: str, name: str) -> int | None:
        """The function whose parameter ``name`` is, from ``scope`` outwards: a closure's free
        variable is its enclosing function's (a fixture's ``examine`` using the fixture's ``v``)."""
        parts = scope.split(".") if scope else []
        for i in range(len(parts), 0, -1):
            ids = self.world.top_named(file_id, ".".join(parts[:i]))
            if ids and name in self.world.params(ids[0]):
                return ids[0]
        return None

    def _chained(self, here: FileScope, scope: str, receiver: str) -> list[int]:
        """``a.b.c``: the classes of ``a.b`` (the enclosing class for ``self``), then what they make
        of their attribute ``c`` (:meth:`_attribute_classes`)."""
        owner, _, attribute = receiver.rpartition(".")
        if not attribute.isidentifier() or not is_dotted_name(owner):
            return []
        if self._is_self(here.file_id, scope, owner):
            classes = self.world.enclosing_classes(here.file_id, scope)
        else:
            classes = self._typed_receiver(here, scope, owner)
        return self._attribute_classes(classes, attribute) if classes else []

    def _attribute_classes(self, classes: Sequence[int], attribute: str) -> list[int]:
        """The classes of an attribute of instances of ``classes``: the type their code (or a base's)
        gives it, a property's declared return type, or, for an attribute none of them has, what
        their ``__getattr__`` declares it returns (``HookRelay.__getattr__ -> HookCaller``)."""
        w = self.world
        found: list[int] = []
        for cls in classes:
            typed = self._typed_field(cls, attribute)
            if typed is not None:
                owner, fields = typed
                found += next(filter(None, (self._field_classes(owner, f) for f in fields)), [])
                continue
            for member in w.find_member([cls], attribute) or w.find_member([cls], GETATTR):
                symbol = w.symbol(member)
                short = symbol.name.rsplit(".", 1)[-1]
                declares = short == GETATTR or self._is_property(short)
                if symbol.kind in CALLABLE_KINDS and declares:
                    found += self._classes_returned_by(self._scope_of(symbol.file_id), member)
        return list(dict.fromkeys(found))

    def _held_classes(self, classes: Sequence[int], attribute: str) -> list[int]:
        """The classes an attribute of ``classes`` (or of a base, in any file) holds as a class, not
        an instance (``jinja_environment = Environment``, ``x: type[Environment]``): calling it
        builds one."""
        found: list[int] = []
        for cls in classes:
            typed = self._typed_field(cls, attribute)
            if typed is None:
                continue
            owner, fields = typed
            hooks = self.world.hooks(self.world.symbol(owner).file_id)
            for held in fields:
                if held.kind == "alias" or (held.kind == "type" and hooks.holds_class(held.text)):
                    found += self._classes_in(self.world.symbol(owner).file_id, held.scope, held.text)
        return list(dict.fromkeys(found))

    def _typed_field(self, cls: int, attribute: str) -> tuple[int, list[Field]] | None:
        """The first class of a lineage whose code types the attribute, with its typings."""
        for owner in self.world.lineage([cls]):
            fields = self.world.fields_named(owner, attribute)
            if fields:
                return owner, fields
        return None

    def _scope_of(self, file_id: int) -> FileScope:
        """Another file, its variables unknown."""
        return FileScope.of(file_id, self.world.hooks(file_id))

    def _field_classes(self, owner: int, field: Field) -> list[int]:
        """The classes a class's typed attribute names, resolved where the class types it."""
        file_id = self.world.symbol(owner).file_id
        if field.kind == "result":
            return self._returned_classes(self._scope_of(file_id), field.scope, field.text)
        return self._classes_in(file_id, field.scope, field.text)

    def _field_type(self, here: FileScope, scope: str, receiver: str) -> tuple[str, str] | None:
        """The declared type of a field read on the method's receiver: Go's ``r.routes``, declared
        ``routes []*Route`` in a struct of the same file (another file's declarations are not loaded)."""
        head, _, field = receiver.partition(".")
        if not field or "." in field or head in here.hooks.self_names:
            return None
        if not self._is_self(here.file_id, scope, head):
            return None
        for cls in self.world.enclosing_classes(here.file_id, scope):
            owner = self.world.symbol(cls)
            declared = here.types.get(owner.name, {}).get(field) if owner.file_id == here.file_id else None
            if declared is not None:
                return declared
        return None

    def _returned_classes(self, here: FileScope, scope: str, callee: str) -> list[int]:
        """The classes a call returns: the class itself for a constructor, else the callee's
        declared (or constructed) return type."""
        receiver, _, name = callee.rpartition(".")
        found = self._resolve_call(here, RawRef("call", name, receiver, scope, 0))
        classes = [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
        return classes + self._declared_returns(here, found.ids)

    def _declared_returns(self, here: FileScope, targets: Sequence[int]) -> list[int]:
        """The classes the callables among ``targets`` declare (or construct) as their result."""
        classes: list[int] = []
        for target in targets:
            if self.world.symbol(target).kind in CALLABLE_KINDS and self.world.returns(target):
                classes += self._classes_returned_by(here, target)
        return classes

    def _classes_returned_by(self, here: FileScope, function: int) -> list[int]:
        """The classes a function's return type names, or those of the call whose result it returns
        (resolved in the function's file, whose variables are unknown unless it is ``here``)."""
        symbol = self.world.symbol(function)
        returns = self.world.returns(function)
        if not returns.endswith(RESULT_MARK):
            return self._classes_in(symbol.file_id, "", returns)
        if function in self._returning:
            return []  # a function returning its own result, directly or through others
        self._returning.add(function)
        try:
            there = (
                here
                if symbol.file_id == here.file_id
                else FileScope.of(symbol.file_id, self.world.hooks(symbol.file_id))
            )
            return self._returned_classes(there, symbol.name, returns[: -len(RESULT_MARK)])
        finally:
            self._returning.discard(function)

    def _classes_in(self, file_id: int, scope: str, type_text: str) -> list[int]:
        """The first name in a type annotation that resolves to a class (``Optional[Foo]`` -> Foo),
        with its alternatives in a union (``Foo | Bar`` -> Foo, Bar)."""
        wrappers = self.world.hooks(file_id).type_wrappers
        for alternatives in union_groups(type_text, self.world.hooks(file_id).union_wrappers):
            classes = []
            for name in alternatives:
                if name.rsplit(".", 1)[-1] in wrappers:
                    continue
                found = self._resolve_dotted(file_id, scope, name)
                classes += [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
            if classes:
                return classes
        return []
