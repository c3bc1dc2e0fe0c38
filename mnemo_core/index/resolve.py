"""References -> typed edges, resolved through scopes and imports before names.

A reference is resolved in this order, and the edge records which step found it:

- ``self``: ``self.m()`` / ``this.m()`` / a Go receiver -> the method on the enclosing class or,
  failing that, on its bases (breadth first); ``super().m()`` looks at the bases only. Where a bare
  ``m()`` means ``this.m()`` (Java, C#, C++, Kotlin, Ruby), it is looked up the same way first.
- ``local``: an enclosing function's nested definition, then the file's top level.
- ``import``: a name bound by an import (following re-exports and wildcard imports), or a member
  of an imported module or class (``models.User.create()``).
- ``typed``: ``x.m()`` where ``x`` has a declared or constructed type in scope (``x = Client()``,
  ``x: Client``, a parameter annotation, ``self.x = Client()``, a pytest fixture returning ``Client``,
  ``for x in clients`` over a ``list[Client]``) -> the method on that class or its bases; an
  attribute chain (``pm.hook.ping()``) through the types a class's code gives its attributes
  (``self.hook = HookRelay()``, in any file of its lineage), its properties' declared types, and
  what its ``__getattr__`` declares it returns; calling an attribute that holds an object runs its
  ``__call__``.
- ``package``: a top-level name of another file in the same package (Go, Java).
- ``fixture``: a pytest test parameter -> the fixture function in its module or a ``conftest.py``
  above it, defined there or imported into it.
- ``callback``: a method a class inherits from outside the repository (``client.get()`` on a
  subclass of werkzeug's ``Client``) may call back into the class: it links to the class's methods
  that extend an external method through ``super()`` (``FlaskClient.open``) and to its protected
  hooks (``_wrap_chunks`` of a ``textwrap.TextWrapper``); and such a ``super()``
  call may run the ``__call__`` of objects the instance holds (``application: Flask``).
- ``name``: the last resort, a repository-wide match of the bare name, taken only when the name is
  defined at most ``AMBIGUOUS_LIMIT`` times (and never for built-ins), with lower confidence.

Dynamic dispatch that static code shows is linked too, each with a resolution of its own and a
lower confidence (the link is written in the code; whether it is taken depends on run-time data):

- ``value``: a function handed to code that may call it (``sorted(key=f)``, ``register(f)``,
  ``callbacks.append(self.on_close)``): ``references`` from the passing function; so is a class,
  or an object built where it is handed over (``md.register(Processor(md))``): the code it goes to
  may build it and call its methods (``change.impact`` reaches the methods that override a base's).
- ``registry``: a function stored in a registry (``FILTERS = {"upper": do_upper}``, ``R[k] = f``):
  ``references`` from the registry; a registry read (``FILTERS[name]``, ``FILTERS.get(name)``):
  from the reader to the registry constant; a registry written (``REGISTRY[name] = func`` in a
  decorator factory): from the registry to the writer; ``self.handlers[k]`` read and written in
  one class: from the reader to the writer.
  A function or class named by its dotted path in a string (``"pkg.plugins.table.table"``,
  ``"pkg.mod:Class"``, for code that imports it by name at run time) is referenced the same way:
  ``registry`` from a module constant that holds the string, ``value`` from anywhere else; not the
  target a test patches (``monkeypatch.setattr("pkg.mod.f", g)``), which is replaced, not run.
- ``decorator``: a decorator defined in the repository to each function it decorates.
- ``subclass``: a base's ``__init_subclass__`` to each subclass and its methods.
- ``dispatch``: ``getattr(self, "visit_" + ...)`` (f-strings, ``%``, a variable the function builds
  so): ``calls`` to every method of the class, its bases and its subclasses whose name starts with
  the literal prefix (with none, a name that is a class's own, ``type(node).__name__`` or
  ``node_class.__name__.upper()``: the methods named like classes, ``Name`` or ``CLASSDEF``); a
  method inherited from outside the repository that dispatches by a prefix
  (``ast.NodeVisitor.visit`` -> ``visit_*``, ``cmd.Cmd.onecmd`` -> ``do_*``); and a module's
  own ``__getattr__`` (PEP 562) for an attribute the module does not define (``click.BaseCommand``,
  ``from click import BaseCommand``, ``module.x`` or ``getattr(module, name)`` on a parametrised
  test's module parameter, ``getattr(module, name)`` with a name built at run time); and a library
  that collects functions by a name prefix (PLY: ``yacc.yacc(module=self)`` -> ``p_*``), from the
  collecting call and from the class's calls on the object it built.

A name bound by an import that leaves the repository (``from requests import get``) is never linked
by name. Derived edges: ``imports`` from the module to what it
imports, ``overrides`` from a method to the base-class method it redefines, and ``tests`` from a test
case to the non-test code it calls directly.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from mnemo_core.index.extract import ANY_ATTRIBUTE, RESULT_MARK, dispatched_name
from mnemo_core.index.languages.base import Hooks, mark_name
from mnemo_core.index.world import Binding, SymbolRow, World
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    IMPLICIT_CALL_KINDS,
    RESOLUTIONS,
    TYPED_REF_KINDS,
    Edge,
    EdgeType,
    Field,
    RawRef,
    RefKind,
    Resolution,
    SymbolKind,
)

AMBIGUOUS_LIMIT = 3  # a name defined more often than this is not linked by name alone
CONFIDENCE: dict[Resolution, float] = {
    "structure": 1.0,  # the symbol tree itself
    "local": 1.0,  # defined in the same file and scope
    "self": 0.95,  # a method of the enclosing class or its bases
    "import": 0.95,  # followed through an import statement
    "fixture": 0.9,  # a pytest fixture in scope
    "package": 0.85,  # another file of the same package
    "derived": 0.9,  # overrides and tests, derived from other edges
    "typed": 0.85,  # a method of the declared or constructed type of the receiver
    "callback": 0.6,  # reached through a base class outside the repository: likely, not certain
    "name": 0.5,  # a unique name match anywhere in the repository: plausible, not proven
    # dynamic dispatch: the link is in the code, whether it is taken depends on data at run time
    "registry": 0.6,  # stored in (or read from) a registry the reader looks up by a key
    "decorator": 0.6,  # a decorator in the repository registers the function it decorates
    "subclass": 0.6,  # a base's ``__init_subclass__`` registers the subclass
    "dispatch": 0.7,  # ``getattr(self, "visit_" + ...)`` may land in any method with the prefix
    "value": 0.8,  # a function handed to code that calls it (``sorted(key=f)``)
}
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
GETATTR = "__getattr__"  # runs for an attribute a module (PEP 562) or an instance does not have
_SELF_RETURN = re.compile(r"\bSelf\b")  # typing.Self: the receiver's class, not a library type
_Unresolved = Literal["", "external", "parameter"]  # nothing found: keep looking, outside, a local
_Target = tuple[tuple[int, ...], Resolution, float]  # target ids, how they were found, confidence
RefRow = Sequence[Any]  # (kind, name, receiver, scope, line), as RawRef or as decoded JSON


@dataclass
class _Resolution:
    ids: list[int]
    how: Resolution | _Unresolved
    final: bool = True  # False: nothing found yet, keep looking
    has_classes: bool = False  # some target is a class: its constructor is called too

    @property
    def found(self) -> bool:
        return bool(self.ids)


_MISS = _Resolution([], "", final=False)
VariableTypes = Mapping[str, Mapping[str, tuple[str, str]]]  # scope -> variable -> (ref kind, type text)


@dataclass(frozen=True, slots=True)
class _FileScope:
    """The file whose references are being resolved, with the variable types its scopes declare.
    A file reached from it (the callee of a returned call) has none: its variables are not loaded."""

    file_id: int
    hooks: Hooks
    types: VariableTypes
    declared: frozenset[str]  # every variable with a declared type, in any scope

    @classmethod
    def of(cls, file_id: int, hooks: Hooks, types: VariableTypes | None = None) -> _FileScope:
        """A file and its variable types (none given: unknown)."""
        types = types or {}
        return cls(file_id, hooks, types, frozenset(v for names in types.values() for v in names))


_TYPE_TOKEN = re.compile(r"[A-Za-z_][\w.]*|[\[\],|]")
_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor")
PROTOCOLS: dict[RefKind, tuple[str, ...]] = {
    "enter": ("__enter__", "__exit__"),
    "iterate": ("__iter__",),
    "length": ("__len__",),
    "advance": ("__next__",),
    "truth": ("__bool__", "__len__"),
    "text": ("__str__", "__repr__", "__format__"),
    "item": ("__getitem__", "__setitem__", "__delitem__"),
    "compare": ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__"),
    "operator": tuple(f"__{p}{op}__" for op in (*_ARITHMETIC, "lshift", "rshift") for p in ("", "r", "i")),
}
_EDGE_RESOLUTIONS: frozenset[str] = frozenset(RESOLUTIONS)
_HEAD = re.compile(r"[.(]")
_EXTERNAL = _Resolution([], "external")
_PARAMETER = _Resolution(
    [], "parameter", final=False
)  # a local of unknown type: its methods may still be guessed


class Resolver:
    """Resolves the references of some files against a :class:`World`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._typing: set[tuple[int, str, str]] = set()
        self._returning: set[int] = set()  # functions whose returned call is being resolved
        self._properties: frozenset[str] | None = None
        self._external: dict[int, bool] = {}
        self._subclasses: dict[int, list[int]] | None = None

    def resolve(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """All edges resolved from the given files' references, each with the file it came from.

        A reference is ``(kind, name, receiver, scope, line)``, the shape of :class:`RawRef`.
        """
        return self.resolve_bases(refs_by_file) + self.resolve_calls(refs_by_file)

    def resolve_bases(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """The ``inherits`` edges, added to the world's class hierarchy (first: calls need it)."""
        out: list[tuple[Edge, int]] = []
        for fid, refs in refs_by_file.items():
            out.extend((e, fid) for e in self._file_edges(fid, refs, "inherit"))
        self.world.add_bases((e.src, e.dst) for e, _ in out)
        return out

    def prepare(self) -> None:
        """Read everything the resolver will ask the index for, so it can run without the index
        (in forked workers, after :meth:`resolve_bases`)."""
        self._property_names()
        self._subclass_map()

    def resolve_calls(self, refs_by_file: Mapping[int, Sequence[RefRow]]) -> list[tuple[Edge, int]]:
        """Calls (with fixtures), and the tests, imports and overrides edges derived from them."""
        out: list[tuple[Edge, int]] = []
        for fid, refs in refs_by_file.items():
            calls = self._file_edges(fid, refs, "call") + self._fixture_edges(fid)
            out.extend((e, fid) for e in calls)
            dynamic = self._dynamic_edges(fid, refs, calls)
            out.extend((e, fid) for e in dynamic)
            out.extend((e, fid) for e in self._constant_uses(fid, refs, {(e.src, e.dst) for e in dynamic}))
            out.extend((e, fid) for e in self._tests_edges(calls))
            out.extend((e, fid) for e in self._import_edges(fid))
            out.extend((e, fid) for e in self._overrides(fid))
        return out

    # -- references -------------------------------------------------------------------------
    def _file_edges(self, file_id: int, refs: Sequence[RefRow], kind: RefKind) -> list[Edge]:
        """The edges of one file's references of one kind, one edge per (source, target)."""
        w = self.world
        hooks = w.hooks(file_id)
        calls = kind == "call"
        nested = self._nested_names(file_id) if calls else set()
        every_receiver_scoped = hooks.receiver_is_first_param
        every_bare_call_scoped = hooks.implicit_self
        edge_type: EdgeType = "calls" if kind == "call" else "inherits"
        here = _FileScope.of(file_id, hooks, _variable_types(refs, hooks) if calls else {})
        typed = here.declared | self._fixture_parameters(file_id) if calls else set()
        cache: dict[tuple[str, str, str, str], _Target | None] = {}
        sources: dict[str, int | None] = {}
        best: dict[tuple[int, int], Edge] = {}
        for ref_kind, name, receiver, scope, line in _implicit_calls(refs) if calls else refs:
            if ref_kind != kind and not (calls and ref_kind in IMPLICIT_CALL_KINDS):
                continue
            if (
                ref_kind in ("read", "write")
                and name not in self._property_names()
                and name != ANY_ATTRIBUTE
                and not self._may_hold_module(here, scope, receiver)
            ):
                continue
            src = sources.get(scope, -1)
            if src == -1:
                src = self._source(file_id, scope, line)
                if len(self.world.top(file_id).get(scope, ())) < 2:  # one definition: any line's source
                    sources[scope] = src
            if src is None:
                continue
            if not scope and receiver and calls:
                src = self._set_up_class(file_id, receiver) or src
            if receiver:
                scoped = (
                    every_receiver_scoped
                    or receiver in hooks.self_names
                    or hooks.is_super(receiver)
                    or _HEAD.split(receiver, 1)[0] in nested
                    or receiver in typed
                )
            else:
                scoped = (
                    every_bare_call_scoped
                    or name in nested
                    or name in typed
                    or name in hooks.self_names
                    or name in hooks.super_names
                )
            key = (scope if scoped else "", receiver, name, ref_kind)
            if key in cache:
                target = cache[key]
            else:
                target = cache[key] = self._target(here, RawRef(ref_kind, name, receiver, scope, line))
            if target is None:
                continue
            ids, how, confidence = target
            for dst in ids:
                if dst == src:
                    continue
                old = best.get((src, dst))
                if old is None or old.confidence < confidence:
                    best[(src, dst)] = Edge(src, dst, edge_type, how, confidence, line)
        return list(best.values())

    def _target(self, here: _FileScope, ref: RawRef) -> _Target | None:
        """What a reference resolves to: target ids (constructors included), how, and confidence;
        None when it resolves to nothing in the repository."""
        w = self.world
        if ref.kind == "inherit":
            found = self._resolve_type(here.file_id, ref)
        elif ref.kind in ("read", "write"):
            found = self._resolve_read(here, ref)
        elif ref.kind in PROTOCOLS:
            found = self._resolve_protocol(here, ref)
        else:
            found = self._resolve_call(here, ref)
        if not found.ids or not _is_edge(found.how):
            return None
        ids = list(found.ids)
        if ref.kind != "inherit":
            ids += w.constructors(i for i in found.ids if w.symbol(i).kind in CLASS_KINDS)
        confidence = round(
            CONFIDENCE[found.how] / (self._definitions(found.ids) if found.how == "name" else 1), 3
        )
        return tuple(ids), found.how, confidence

    def _source(self, file_id: int, scope: str, line: int = 0) -> int | None:
        """The definition a reference at ``line`` in ``scope`` is written in: where a name has
        several (a property's getter and setter), the one whose lines hold it."""
        if scope:
            ids = self.world.top(file_id).get(scope)
            if ids:
                if len(ids) > 1 and line:
                    symbols = self.world.symbols
                    return next(
                        (
                            i
                            for i in ids
                            if i in symbols and symbols[i].start_line <= line <= symbols[i].end_line
                        ),
                        ids[0],
                    )
                return ids[0]
        return self.world.module_symbol(file_id)

    def _set_up_class(self, file_id: int, receiver: str) -> int | None:
        """The test class a call in a test module's top-level code sets up (``TestCli.load_fixtures(
        "cli.txt")``, which attaches its tests at run time): the call is the class's, so what it
        attaches runs for that class's tests."""
        w = self.world
        return next(
            (
                i
                for i in w.top(file_id).get(receiver, ())
                if w.symbol(i).kind == "class" and w.symbol(i).is_test_case
            ),
            None,
        )

    def _nested_names(self, file_id: int) -> set[str]:
        """Short names defined or imported inside functions: only for these does a call's scope matter."""
        w = self.world
        nested = set()
        symbols = w.symbols
        for name, ids in w.top(file_id).items():
            if "." in name:
                parent = symbols[ids[0]].parent_id
                if parent is not None and parent in symbols and symbols[parent].kind in CALLABLE_KINDS:
                    nested.add(name.rsplit(".", 1)[1])
        return nested | {alias for names in w.bindings(file_id).scoped.values() for alias in names}

    def _resolve_type(self, file_id: int, ref: RawRef) -> _Resolution:
        found = self._resolve_dotted(
            file_id, ref.scope, f"{ref.receiver}.{ref.name}" if ref.receiver else ref.name
        )
        hooks = self.world.hooks(file_id)
        kinds = CLASS_KINDS | {"namespace"} if hooks.global_namespace else CLASS_KINDS  # Ruby's mixins
        found.ids = [i for i in found.ids if self.world.symbol(i).kind in kinds]
        if not found.ids and hooks.bases_by_name:
            guessed = self._by_name(file_id, ref.name, methods=False)
            return _Resolution([i for i in guessed.ids if self.world.symbol(i).kind in kinds], guessed.how)
        return found

    def _resolve_call(self, here: _FileScope, ref: RawRef) -> _Resolution:
        w = self.world
        hooks = here.hooks
        receiver = ref.receiver
        if not receiver:
            called = self._called_value(here, ref.scope, ref.name)
            if called.ids:
                return called
            if ref.name in hooks.self_names and not self._imported_here(here.file_id, ref.scope, ref.name):
                return _Resolution(
                    w.enclosing_classes(here.file_id, ref.scope), "self"
                )  # cls(...) builds the class
            if hooks.implicit_self:
                members = w.find_member(w.enclosing_classes(here.file_id, ref.scope), ref.name)
                if members:
                    return _Resolution(members, "self")
            found = self._resolve_bare(here.file_id, ref.scope, ref.name)
            if found is _PARAMETER:
                return _EXTERNAL
            if found.final:
                return found
            guessed = self._by_name(here.file_id, ref.name, methods=False)
            if not guessed.ids and hooks.global_namespace:  # Ruby: a block may run on any object
                return self._by_name(here.file_id, ref.name, methods=True)
            return guessed
        if hooks.is_super(receiver):
            classes = w.enclosing_classes(here.file_id, ref.scope)
            members = w.find_member(classes, ref.name, include_self=False)
            if not members and ref.name not in hooks.constructor_names and self._extends_external(classes):
                return _Resolution(self._held_callables(here, classes), "callback")
            return _Resolution(members, "self")
        called = self._called_value(here, ref.scope, f"{receiver}.{ref.name}")
        if called.ids:
            return called
        reassigned = (  # ``cls = template_class or ...``: a local named like self, typed otherwise
            receiver in hooks.self_names
            and receiver in here.declared
            and self._declared(here, ref.scope, receiver) is not None
        )
        if not reassigned and self._is_self(here.file_id, ref.scope, receiver):
            classes = w.enclosing_classes(here.file_id, ref.scope) or self._typed_receiver(
                here, ref.scope, receiver
            )
            if classes:
                members = w.find_member(classes, ref.name)
                if members:
                    return _Resolution(members, "self")
                built = self._held_classes(classes, ref.name)
                if built:  # a class held in an attribute is called: it is built
                    return _Resolution(built, "typed")
                held = w.find_member(self._attribute_classes(classes, ref.name), "__call__")
                if held:  # an object held in an attribute is called (``to_html = create_markdown()``)
                    return _Resolution(held, "typed")
                return self._callbacks(classes, ref.name)
        classes = self._typed_receiver(here, ref.scope, receiver)
        returned = self._call_result(here, ref.scope, receiver) if not classes else None
        if returned is _EXTERNAL:
            return _EXTERNAL
        classes = classes or (returned.ids if returned is not None else [])
        if classes:
            members = w.find_member(classes, ref.name)
            if members:
                return _Resolution(members, "typed")
            callbacks = self._callbacks(classes, ref.name)
            if callbacks.ids:
                return callbacks
            built = self._held_classes(classes, ref.name)
            if built:  # a class held in an attribute is called: it is built
                return _Resolution(built, "typed")
            held = w.find_member(self._attribute_classes(classes, ref.name), "__call__")
            if held:  # an object held in an attribute is called
                return _Resolution(held, "typed")
        target = self._resolve_receiver(here.file_id, ref.scope, receiver)
        if ref.name == hooks.construct_method and target.ids:
            classes = [i for i in target.ids if w.symbol(i).kind in CLASS_KINDS]
            if classes:  # ``Foo.new(...)``: the class is built, its constructor runs
                return _Resolution(classes, target.how)
        if target.final:
            return self._member_of(target, ref.name)
        if ref.name in hooks.builtin_methods or self._of_outside_class(here, ref.scope, receiver, ref.name):
            return _EXTERNAL
        return self._by_name(here.file_id, ref.name, methods=True)

    def _of_outside_class(self, here: _FileScope, scope: str, receiver: str, name: str) -> bool:
        """Whether the receiver is declared, or built, as a class from outside the repository
        (``self.gzip_file = gzip.GzipFile(...)``), or is what a built-in function hands back
        (``with open(path) as f``), and no class of the repository that extends an
        outside one defines the method (it could be such a subclass): the call runs outside, it is
        no guess at a namesake in the repository."""
        declared = self._declared(here, scope, receiver)
        if declared is None or declared[0] not in ("type", "result"):
            return False
        hooks = here.hooks
        if declared[0] == "result":  # ``with open(path) as f``: a built-in function's object
            callee = declared[1]
            if callee not in hooks.builtin_names or self._resolve_bare(here.file_id, scope, callee).ids:
                return False
        else:
            names = _type_names(declared[1], hooks)
            outside = (self._resolve_dotted(here.file_id, scope, n).how == "external" for n in names)
            if not names or not all(outside):
                return False
        namesakes = self.world.named(self.world.files[here.file_id].language, name, True)
        owners = {self.world.symbol(m).parent_id for m in namesakes} - {None}
        return not any(self._extends_external([c]) for c in owners if c is not None)

    def _call_result(self, here: _FileScope, scope: str, receiver: str) -> _Resolution | None:
        """What a call's result is, for a method called on it (``self.signer().dumps()``): the
        classes the callee declares it returns, or outside the repository when it declares a built-in
        type (``-> str``); None when the receiver is no single call of a named callee, or it declares
        nothing of either kind."""
        callee = _single_call(receiver)
        if callee is None:
            return None
        owner, _, name = callee.rpartition(".")
        found = self._resolve_call(here, RawRef("call", name, owner, scope, 0))
        if any(self.world.symbol(i).kind in CLASS_KINDS for i in found.ids):
            return None  # ``Client().get()``: the class built, as a receiver (``_resolve_receiver``)
        declared = [self.world.symbol(i) for i in found.ids]
        classes = self._declared_returns(here, found.ids)
        classes += [s.parent_id for s in declared if _returns_self(s) and s.parent_id is not None]
        if classes:
            return _Resolution(classes, "typed")
        if declared and all(s.kind in CALLABLE_KINDS and self._returns_builtin(s) for s in declared):
            return _EXTERNAL
        return None

    def _returns_builtin(self, function: SymbolRow) -> bool:
        """Whether a function's declared return type names only built-in types (``-> str``,
        ``-> list[str] | None``): their methods never run the repository's code. A library's type
        may (itsdangerous' ``dumps`` calls the serializer it was handed), so it does not count."""
        if not function.returns or function.returns.endswith(RESULT_MARK):
            return False
        hooks = self.world.hooks(function.file_id)
        names = _type_names(function.returns, hooks)
        return bool(names) and all(n in hooks.builtin_names for n in names)

    def _called_value(self, here: _FileScope, scope: str, variable: str) -> _Resolution:
        """Calling a variable: one bound to a class builds it (``self.context_class(...)``); one
        holding an instance runs its ``__call__`` (``self.type(value)``)."""
        if variable not in here.declared:
            return _MISS
        declared = self._declared(here, scope, variable)
        if declared is None:
            return _MISS
        kind, text = declared
        if kind == "alias":
            return _Resolution(self._classes_in(here.file_id, scope, text), "typed")
        classes = self._typed_receiver(here, scope, variable)
        return _Resolution(self.world.find_member(classes, "__call__"), "typed") if classes else _MISS

    def _declared(self, here: _FileScope, scope: str, variable: str) -> tuple[str, str] | None:
        parts = scope.split(".") if scope else []
        for i in range(len(parts), -1, -1):
            declared = here.types.get(".".join(parts[:i]), {}).get(variable)
            if declared:
                return declared
        return None

    def _resolve_read(self, here: _FileScope, ref: RawRef) -> _Resolution:
        """``self.name`` (or ``x.name``, ``x`` typed) read without a call: a property of the class
        (or a base) runs, its getter; assigned (a ``write``), its setter."""
        on_self = self._is_self(here.file_id, ref.scope, ref.receiver)
        if on_self:
            classes = self.world.enclosing_classes(here.file_id, ref.scope)
        else:
            modules = self._receiver_modules(here, ref.scope, ref.receiver)
            if modules:
                return self._module_attribute(modules, ref.name)
            classes = self._typed_receiver(here, ref.scope, ref.receiver)
        members = self.world.find_member(classes, ref.name)
        decorators = here.hooks.property_decorators
        props = [
            m
            for m in members
            if any(d.rsplit(".", 1)[-1] in decorators for d in self.world.symbol(m).decorators)
            and _is_setter(self.world.symbol(m)) == (ref.kind == "write")
        ]
        return _Resolution(props, "self" if on_self else "typed") if props else _EXTERNAL

    def _may_hold_module(self, here: _FileScope, scope: str, receiver: str) -> bool:
        """Whether a variable's declared values may be modules (a parametrised test's ``click.core``)."""
        declared = self._declared(here, scope, receiver) if receiver in here.declared else None
        return declared is not None and declared[0] == "type" and declared[1][:1].islower()

    def _receiver_modules(self, here: _FileScope, scope: str, receiver: str) -> list[int]:
        """The modules (file ids) a receiver stands for: an imported module, or the modules a
        variable's declared values name (``[click, click.core]`` of a parametrised test)."""
        w = self.world
        if receiver in here.declared:
            declared = self._declared(here, scope, receiver)
            if declared is None or declared[0] != "type":
                return []
            groups = _union_groups(declared[1], w.hooks(here.file_id).union_wrappers)
            found = [i for g in groups for n in g for i in self._resolve_dotted(here.file_id, scope, n).ids]
        else:
            found = self._resolve_receiver(here.file_id, scope, receiver).ids
        return [w.symbol(i).file_id for i in dict.fromkeys(found) if w.symbol(i).kind == "module"]

    def _module_attribute(self, modules: Sequence[int], name: str) -> _Resolution:
        """Reading ``name`` (:data:`ANY_ATTRIBUTE`: a name built at run time) on modules: the
        ``__getattr__`` of each module that may not define it; nothing runs for a defined name."""
        w = self.world
        undefined = [
            m
            for m in modules
            if name == ANY_ATTRIBUTE or not (w.lookup_member([m], name) or w.submodule(m, name))
        ]
        hooks = self._module_getattr(undefined)
        return _Resolution(hooks, "dispatch") if hooks else _EXTERNAL

    def _module_getattr(self, modules: Sequence[int]) -> list[int]:
        """The module-level ``__getattr__`` of each module (file id) that defines one (PEP 562)."""
        w = self.world
        return [
            i
            for m in modules
            for i in w.top(m).get(GETATTR, ())
            if w.symbol(i).kind == "function" and w.hooks(m).module_getattr
        ]

    def _bound(self, binding: Binding) -> _Resolution:
        """What an import binding stands for; a name its module does not define, the module's
        ``__getattr__`` (``from click import BaseCommand``)."""
        w = self.world
        ids = w.resolve_binding(binding)
        if ids or not binding.member:
            return _Resolution(ids, "import")
        if any(w.submodule(m, binding.member) for m in binding.modules):
            return _Resolution([], "import")
        return _Resolution(self._module_getattr(binding.modules), "dispatch")

    def _resolve_protocol(self, here: _FileScope, ref: RawRef) -> _Resolution:
        """``with expr:`` runs ``__enter__`` and ``__exit__`` of the value's class, ``for x in expr``
        its ``__iter__``, ``len(x)``, ``x[k]``, ``x == y``, ``x + y`` their dunder methods (no name
        guessing: only a value of a known class)."""
        value = ref.name
        if value in here.hooks.self_names:
            classes = self.world.enclosing_classes(here.file_id, ref.scope)
        elif value.endswith(")"):
            classes = list(self._resolve_receiver(here.file_id, ref.scope, value).ids)
            if not classes:
                classes = self._returned_classes(here, ref.scope, value[: value.find("(")])
        else:
            classes = self._typed_receiver(here, ref.scope, value)
        classes = [c for c in classes if self.world.symbol(c).kind in CLASS_KINDS]
        found = [m for name in PROTOCOLS[ref.kind] for m in self.world.find_member(classes, name)]
        return _Resolution(found, "typed") if found else _EXTERNAL

    def _extends_external(self, classes: Sequence[int]) -> bool:
        """Whether one of the classes, or a base of theirs in the repository, names a base class
        imported from outside it (``class FlaskClient(werkzeug.test.Client)``)."""
        return any(self._external_base(c) for c in self.world.lineage(classes))

    def _external_base(self, class_id: int) -> bool:
        known = self._external.get(class_id)
        if known is None:
            symbol = self.world.symbol(class_id)
            hooks = self.world.hooks(symbol.file_id)
            known = self._external[class_id] = any(
                self._resolve_dotted(symbol.file_id, symbol.name, base).how == "external"
                for base in symbol.supers
                if base.rsplit(".", 1)[-1] not in hooks.neutral_bases
                and base.split(".", 1)[0] not in hooks.builtin_names
            )
        return known

    def _callbacks(self, classes: Sequence[int], name: str) -> _Resolution:
        """A method ``name`` the classes inherit from outside the repository may call back the
        methods that extend an external one through ``super()`` (werkzeug's ``Client.get`` calls
        ``open``) and their protected hooks (``textwrap.TextWrapper.fill`` calls ``_wrap_chunks``);
        one that dispatches by a name prefix runs the classes' methods of that prefix
        (``ast.NodeVisitor.visit`` runs ``visit_Name``): a ``dispatch``."""
        if not self._extends_external(classes):
            return _EXTERNAL
        w = self.world
        found, dispatched = [], []
        for cls in self.world.lineage(classes):
            hooks = w.hooks(w.symbol(cls).file_id)
            prefixes = hooks.dispatch_entries.get(name, ())
            for short, ids in w.members(cls).items():
                methods = [m for m in ids if w.symbol(m).kind == "method"]
                if short.startswith(prefixes) and short not in prefixes:
                    dispatched += methods
                elif short not in hooks.constructor_names:
                    protected = short.startswith("_") and not short.startswith("__")
                    found += [m for m in methods if protected or short in w.symbol(m).supers]
        if dispatched:
            return _Resolution(list(dict.fromkeys(dispatched + found)), "dispatch")
        return _Resolution(found, "callback") if found else _EXTERNAL

    def _held_callables(self, here: _FileScope, classes: Sequence[int]) -> list[int]:
        """``__call__`` of the objects the classes declare or build as attributes (``application:
        Flask``): the base class they hand themselves to may call them."""
        w = self.world
        held = []
        for cls in classes:
            scope = w.symbol(cls).name
            for variable, (kind, text) in here.types.get(scope, {}).items():
                if kind == "type" and ("." not in variable or variable.startswith("self.")):
                    held += w.find_member(self._classes_in(here.file_id, scope, text), "__call__")
        return list(dict.fromkeys(held))

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

    def _property_names(self) -> frozenset[str]:
        """Short names of every property in the repository (a ``self.x`` read of anything else runs
        nothing)."""
        if self._properties is None:
            self._properties = self.world.property_names()
        return self._properties

    def _typed_receiver(self, here: _FileScope, scope: str, receiver: str) -> list[int]:
        """The classes a variable's declared or constructed type names: ``x = Client()``,
        ``x: Client``, ``def f(x: Client)``, ``self.x = Client()`` in any method of the class,
        ``x = make_client()`` where ``make_client`` declares ``-> Client``, or a pytest fixture
        parameter whose fixture returns a ``Client``."""
        if (here.file_id, scope, receiver) in self._typing:
            return []  # a type that depends on itself (x = x.next())
        self._typing.add((here.file_id, scope, receiver))
        try:
            return self._concrete(self._typed(here, scope, receiver))
        finally:
            self._typing.discard((here.file_id, scope, receiver))

    def _concrete(self, classes: list[int]) -> list[int]:
        """The classes, none if every one is an interface: a Go value of interface type runs the
        method of whichever type implements it, which the type does not say (a name match does)."""
        if all(self.world.symbol(c).kind == "interface" for c in classes):
            return []
        return classes

    def _typed(self, here: _FileScope, scope: str, receiver: str) -> list[int]:
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
        if fixture is None or not self.world.symbol(fixture).returns:
            return []
        return self._classes_returned_by(here, fixture)

    def _parameter_of(self, file_id: int, scope: str, name: str) -> int | None:
        """The function whose parameter ``name`` is, from ``scope`` outwards: a closure's free
        variable is its enclosing function's (a fixture's ``examine`` using the fixture's ``v``)."""
        parts = scope.split(".") if scope else []
        for i in range(len(parts), 0, -1):
            ids = self.world.top(file_id).get(".".join(parts[:i]))
            if ids and name in self.world.symbol(ids[0]).params:
                return ids[0]
        return None

    def _chained(self, here: _FileScope, scope: str, receiver: str) -> list[int]:
        """``a.b.c``: the classes of ``a.b`` (the enclosing class for ``self``), then what they make
        of their attribute ``c`` (:meth:`_attribute_classes`)."""
        owner, _, attribute = receiver.rpartition(".")
        if not attribute.isidentifier() or not _is_dotted_name(owner):
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
                declares = short == GETATTR or short in self._property_names()
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
            fields = [f for f in self.world.symbol(owner).fields if f.name == attribute]
            if fields:
                return owner, fields
        return None

    def _scope_of(self, file_id: int) -> _FileScope:
        """Another file, its variables unknown."""
        return _FileScope.of(file_id, self.world.hooks(file_id))

    def _field_classes(self, owner: int, field: Field) -> list[int]:
        """The classes a class's typed attribute names, resolved where the class types it."""
        file_id = self.world.symbol(owner).file_id
        if field.kind == "result":
            return self._returned_classes(self._scope_of(file_id), field.scope, field.text)
        return self._classes_in(file_id, field.scope, field.text)

    def _field_type(self, here: _FileScope, scope: str, receiver: str) -> tuple[str, str] | None:
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

    def _returned_classes(self, here: _FileScope, scope: str, callee: str) -> list[int]:
        """The classes a call returns: the class itself for a constructor, else the callee's
        declared (or constructed) return type."""
        receiver, _, name = callee.rpartition(".")
        found = self._resolve_call(here, RawRef("call", name, receiver, scope, 0))
        classes = [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
        return classes + self._declared_returns(here, found.ids)

    def _declared_returns(self, here: _FileScope, targets: Sequence[int]) -> list[int]:
        """The classes the callables among ``targets`` declare (or construct) as their result."""
        classes: list[int] = []
        for target in targets:
            symbol = self.world.symbol(target)
            if symbol.returns and symbol.kind in CALLABLE_KINDS:
                classes += self._classes_returned_by(here, target)
        return classes

    def _classes_returned_by(self, here: _FileScope, function: int) -> list[int]:
        """The classes a function's return type names, or those of the call whose result it returns
        (resolved in the function's file, whose variables are unknown unless it is ``here``)."""
        symbol = self.world.symbol(function)
        if not symbol.returns.endswith(RESULT_MARK):
            return self._classes_in(symbol.file_id, "", symbol.returns)
        if function in self._returning:
            return []  # a function returning its own result, directly or through others
        self._returning.add(function)
        try:
            there = (
                here
                if symbol.file_id == here.file_id
                else _FileScope.of(symbol.file_id, self.world.hooks(symbol.file_id))
            )
            return self._returned_classes(there, symbol.name, symbol.returns[: -len(RESULT_MARK)])
        finally:
            self._returning.discard(function)

    def _classes_in(self, file_id: int, scope: str, type_text: str) -> list[int]:
        """The first name in a type annotation that resolves to a class (``Optional[Foo]`` -> Foo),
        with its alternatives in a union (``Foo | Bar`` -> Foo, Bar)."""
        wrappers = self.world.hooks(file_id).type_wrappers
        for alternatives in _union_groups(type_text, self.world.hooks(file_id).union_wrappers):
            classes = []
            for name in alternatives:
                if name.rsplit(".", 1)[-1] in wrappers:
                    continue
                found = self._resolve_dotted(file_id, scope, name)
                classes += [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
            if classes:
                return classes
        return []

    def _is_self(self, file_id: int, scope: str, receiver: str) -> bool:
        hooks = self.world.hooks(file_id)
        if receiver in hooks.self_names:
            return True
        if not hooks.receiver_is_first_param:
            return False
        src = self._source(file_id, scope)
        symbol = self.world.symbol(src) if src is not None else None
        return bool(symbol and symbol.kind == "method" and symbol.params and symbol.params[0] == receiver)

    def _member_of(self, target: _Resolution, name: str) -> _Resolution:
        w = self.world
        modules = [w.symbol(i).file_id for i in target.ids if w.symbol(i).kind == "module"]
        classes = [i for i in target.ids if w.symbol(i).kind in CLASS_KINDS | {"namespace"}]
        found = w.lookup_member(modules, name) if modules else []
        if not found and modules:
            found = [m for module in modules for m in w.submodule(module, name)]
        if not found and classes:
            found = w.find_member(classes, name)
        if not found and modules:
            hooks = self._module_getattr(modules)
            return _Resolution(hooks, "dispatch") if hooks else _EXTERNAL
        return _Resolution(found, target.how if found else "external")

    def _resolve_receiver(self, file_id: int, scope: str, receiver: str) -> _Resolution:
        """What an object expression refers to, when it is a module or a class (or an instance made
        by calling a class); a miss when it is anything else."""
        if receiver.endswith(")"):
            callee = receiver[: receiver.find("(")]
            built = self.world.hooks(file_id).construct_method
            if built and callee.endswith(f".{built}"):  # Ruby: ``Foo.new(...)`` is a Foo
                callee = callee[: -len(built) - 1]
            if not callee or not _is_dotted_name(callee):
                return _MISS
            found = self._resolve_dotted(file_id, scope, callee)
            classes = [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
            return _Resolution(classes, found.how) if classes else _MISS
        if not _is_dotted_name(receiver):
            return _MISS
        found = self._resolve_dotted(file_id, scope, receiver)
        kinds = CLASS_KINDS | {"module"}
        if found.how == "external":
            return found
        ids = [i for i in found.ids if self.world.symbol(i).kind in kinds]
        return _Resolution(ids, found.how) if ids else _MISS

    def _resolve_dotted(self, file_id: int, scope: str, dotted: str) -> _Resolution:
        """``a.b.C`` through the file's import bindings (longest alias first), then its scopes."""
        parts = dotted.split(".")
        if self.world.hooks(file_id).global_namespace:
            found = self._namespaced(file_id, scope, parts)
            if found.found:
                return found
        for bindings in self._visible_bindings(file_id, scope):
            for i in range(len(parts), 0, -1):
                binding = bindings.get(".".join(parts[:i]))
                if binding is None:
                    continue
                if not binding.modules:
                    return _EXTERNAL
                return self._walk(self._bound(binding), parts[i:])
        head = self._resolve_bare(file_id, scope, parts[0])
        if not head.found:
            return head if head.final else _MISS
        return self._walk(head, parts[1:])

    def _namespaced(self, file_id: int, scope: str, parts: list[str]) -> _Resolution:
        """Ruby's ``A::B::C`` (or ``B`` written inside ``module A``): the longest leading class
        path, looked up from the innermost enclosing namespace out, then the rest as members."""
        w = self.world
        outer = scope.split(".") if scope else []
        for k in range(len(parts), 0, -1):
            for i in range(len(outer), -1, -1):
                ids = w.classes_named(file_id, ".".join([*outer[:i], *parts[:k]]))
                if ids:
                    here = all(w.symbol(c).file_id == file_id for c in ids)
                    return self._walk(_Resolution(ids, "local" if here else "package"), parts[k:])
        return _MISS

    def _walk(self, found: _Resolution, rest: list[str]) -> _Resolution:
        """Members of what was found, one name at a time. What a module's ``__getattr__`` serves is
        a value of unknown type: its members are unknown, not outside the repository (a later
        guess by name may still find them)."""
        for part in rest:
            if not found.ids:
                break
            if found.how == "dispatch":
                return _Resolution([], "import")
            found = self._member_of(found, part)
        return found

    def _visible_bindings(self, file_id: int, scope: str) -> list[dict[str, Binding]]:
        """The import bindings a scope sees, innermost first: its functions' imports, then the module's."""
        bindings = self.world.bindings(file_id)
        parts = scope.split(".") if scope and bindings.scoped else []
        inner = [
            bindings.scoped[p]
            for p in (".".join(parts[:i]) for i in range(len(parts), 0, -1))
            if p in bindings.scoped
        ]
        return [*inner, bindings.names]

    def _imported_here(self, file_id: int, scope: str, name: str) -> bool:
        return any(name in bindings for bindings in self._visible_bindings(file_id, scope))

    def _resolve_bare(self, file_id: int, scope: str, name: str) -> _Resolution:
        w = self.world
        top = w.top(file_id)
        bindings = w.bindings(file_id)
        parts = scope.split(".") if scope else []
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            owner = top.get(prefix)
            if owner and w.symbol(owner[0]).kind in CLASS_KINDS:
                continue
            if owner and name in w.symbol(owner[0]).params:
                return _PARAMETER  # shadows every outer name
            ids = top.get(f"{prefix}.{name}")
            if ids:
                return _Resolution(ids, "local")
            binding = bindings.scoped[prefix].get(name) if prefix in bindings.scoped else None
            if binding is not None:
                return self._bound(binding) if binding.modules else _EXTERNAL
        if name in top:
            return _Resolution(top[name], "local")
        binding = bindings.names.get(name)
        if binding is not None:
            return self._bound(binding) if binding.modules else _EXTERNAL
        for star in bindings.stars:
            found = w.lookup_member(star, name)
            if found:
                return _Resolution(found, "import")
        hooks = w.hooks(file_id)
        if hooks.shares_package_scope():
            f = w.files[file_id]
            for peer in w.package_files.get((f.language, hooks.package_of(f.path)), ()):
                ids = w.top(peer).get(name) if peer != file_id else None
                if ids:
                    return _Resolution(ids, "package")
        if name in hooks.builtin_names:
            return _EXTERNAL
        return _MISS

    def _by_name(self, file_id: int, name: str, methods: bool) -> _Resolution:
        candidates = self.world.named(self.world.files[file_id].language, name, methods)
        if not candidates or self._definitions(candidates) > AMBIGUOUS_LIMIT:
            return _EXTERNAL
        return _Resolution(list(candidates), "name")

    def _definitions(self, ids: Sequence[int]) -> int:
        """How many different things the symbols are: in a language with overloading (Java, C#), a
        method's overloads are one."""
        w = self.world
        if not ids or not w.hooks(w.symbol(ids[0]).file_id).overloads:
            return len(ids)
        return len({(w.symbol(i).file_id, w.symbol(i).name) for i in ids})

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
        typed_here: list[_FileScope] = []

        def here() -> _FileScope:  # the file's variable types, read once and only when needed
            if not typed_here:
                hooks = w.hooks(file_id)
                typed_here.append(_FileScope.of(file_id, hooks, _variable_types(refs, hooks)))
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
            if src is None or not _is_edge(how):
                continue
            for dst in target.ids:
                key = (src, dst)
                if key in linked or key in found or src == dst or self.world.symbol(dst).kind != "constant":
                    continue
                found[key] = Edge(src, dst, "references", how, CONFIDENCE[how], line)
        return list(found.values())

    def _constant(self, file_id: int, scope: str, name: str, members: bool) -> _Resolution:
        """What a constant's name refers to: with ``members``, a bare name is first a field of the
        enclosing classes (a Java class's own ``MAX_SIZE`` shadows an import)."""
        if "." in name:
            return self._resolve_dotted(file_id, scope, name)
        if members:
            w = self.world
            own = w.find_member(w.enclosing_classes(file_id, scope), name)
            if own:
                return _Resolution(own, "self")
        return self._resolve_bare(file_id, scope, name)

    def _values(
        self, here: _FileScope, scope: str, name: str, receiver: str, kinds: frozenset[str]
    ) -> list[int]:
        """The symbols of ``kinds`` a name written as a value refers to (no name guessing)."""
        w = self.world
        if not receiver and kinds == CLASS_KINDS and name in here.declared:  # an object built earlier
            return self._typed_receiver(here, scope, name)
        if not receiver:
            found = self._resolve_bare(here.file_id, scope, name)
        elif receiver in here.hooks.self_names:
            found = _Resolution(w.find_member(w.enclosing_classes(here.file_id, scope), name), "self")
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
            decorated = w.symbol(e.src)
            if not decorated.decorators or decorated.kind not in CALLABLE_KINDS:
                continue
            decorator = w.symbol(e.dst)
            written = {mark_name(d) for d in decorated.decorators}
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
                    for m in w.members(base).get(SUBCLASS_HOOK, ())
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
                s = w.symbol(sid)
                if not s.params or not (s.is_test_case or hooks.is_fixture(s.decorators)):
                    continue
                for param in s.params:
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
            found = w.by_path.get(path)
            if found is None:
                continue
            for sid in w.top(found.id).get(name) or self._imported(found.id, name):
                if hooks.is_fixture(w.symbol(sid).decorators):
                    return sid
        return None

    def _imported(self, file_id: int, name: str) -> list[int]:
        """What a module-level import binds ``name`` to in the repository (a wildcard import too)."""
        bindings = self.world.bindings(file_id)
        if name not in bindings.names and not bindings.stars:
            return []
        found = self._resolve_bare(file_id, "", name)
        return found.ids if found.how == "import" else []

    def _tests_edges(self, calls: list[Edge]) -> list[Edge]:
        """From each test case to the non-test code it calls directly (fixtures are reached by walking)."""
        w = self.world
        return [
            Edge(e.src, e.dst, "tests", "derived", e.confidence, e.line)
            for e in calls
            if w.symbol(e.src).is_test_case and not w.symbol(e.dst).is_test
        ]

    def _import_edges(self, file_id: int) -> list[Edge]:
        """From a module to the modules and names its imports bind."""
        w = self.world
        module = w.module_symbol(file_id)
        if module is None:
            return []
        bindings = w.bindings(file_id)
        targets = {t for b in bindings.every() for t in w.resolve_binding(b)}
        targets.update(m for star in bindings.stars for m in map(w.module_symbol, star) if m is not None)
        return [Edge(module, t, "imports", "import", 1.0, 0) for t in sorted(targets) if t != module]

    def _overrides(self, file_id: int) -> list[Edge]:
        """From each method of the file's classes to the base-class method it redefines."""
        w = self.world
        edges: list[Edge] = []
        for ids in w.top(file_id).values():
            for cls in ids:
                if w.symbol(cls).kind not in CLASS_KINDS or not w.bases(cls):
                    continue
                for short, methods in w.members(cls).items():
                    base_methods = [
                        b for b in w.find_member(w.bases(cls), short) if w.symbol(b).kind == "method"
                    ]
                    edges.extend(
                        Edge(m, b, "overrides", "derived", CONFIDENCE["derived"], 0)
                        for m in methods
                        if w.symbol(m).kind == "method"
                        for b in base_methods
                    )
        return edges


def _implicit_calls(refs: Sequence[RefRow]) -> list[RefRow]:
    """Calls, property reads and ``with`` statements, in source order."""
    return [r for r in refs if r[0] in ("call", *IMPLICIT_CALL_KINDS)]


def _variable_types(refs: Sequence[RefRow], hooks: Hooks) -> dict[str, dict[str, tuple[str, str]]]:
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
        plain = all(map(_is_dotted_name, [*built, receiver]))
        if kind == first[0] == "type" and receiver not in built and plain:
            types[owner][name] = ("type", f"{first[1]} | {receiver}")
        if kind == "alias" and "." not in name:  # a class attribute, read as self.name in methods
            types[owner].setdefault(f"self.{name}", (kind, receiver))
    return types


def _type_names(type_text: str, hooks: Hooks) -> list[str]:
    """The types an annotation names, without its wrappers and ``None`` (``Optional[A] | B`` -> A, B)."""
    return [
        n
        for group in _union_groups(type_text, hooks.union_wrappers)
        for n in group
        if n.rsplit(".", 1)[-1] not in hooks.type_wrappers and n != "None"
    ]


def _is_setter(symbol: SymbolRow) -> bool:
    """Whether a property member is its setter (``@name.setter``)."""
    return any(d.endswith(".setter") for d in symbol.decorators)


def _union_groups(type_text: str, unions: frozenset[str]) -> list[list[str]]:
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


def _is_edge(how: Resolution | _Unresolved) -> TypeGuard[Resolution]:
    return how in _EDGE_RESOLUTIONS


def _returns_self(function: SymbolRow) -> bool:
    """Whether a method declares it returns ``Self`` (its receiver's class)."""
    return bool(_SELF_RETURN.search(function.returns))


def _single_call(receiver: str) -> str | None:
    """The callee of a receiver that is one call of a dotted name (``self.signer(app)`` ->
    ``self.signer``), else None (``a(b).c(d)``, a subscript, a plain name)."""
    start = receiver.find("(")
    if start <= 0 or not receiver.endswith(")") or not _is_dotted_name(receiver[:start]):
        return None
    depth = 0
    for i, char in enumerate(receiver[start:], start):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and i != len(receiver) - 1:
            return None
    return receiver[:start]


def _is_dotted_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))
