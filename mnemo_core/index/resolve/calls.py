"""One file's references -> edges: calls, reads and protocol uses resolved through the self,
local, import, typed, package, callback and name steps, one edge per (source, target)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from mnemo_core.index.extract import ANY_ATTRIBUTE, RESULT_MARK
from mnemo_core.index.resolve.records import (
    CONFIDENCE,
    EXTERNAL,
    MISS,
    PARAMETER,
    FileScope,
    Lookup,
    RefRow,
    Target,
    is_dotted_name,
    is_edge,
)
from mnemo_core.index.resolve.types import Types, type_names, union_groups, variable_types
from mnemo_core.index.world import Reads, World
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    IMPLICIT_CALL_KINDS,
    Edge,
    EdgeType,
    RawRef,
    RefKind,
)

_SELF_RETURN = re.compile(r"\bSelf\b")  # typing.Self: the receiver's class, not a library type
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
_HEAD = re.compile(r"[.(]")


def _implicit_calls(refs: Sequence[RefRow]) -> list[RefRow]:
    """Calls, property reads and ``with`` statements, in source order."""
    return [r for r in refs if r[0] in ("call", *IMPLICIT_CALL_KINDS)]


def _is_setter(decorators: tuple[str, ...]) -> bool:
    """Whether a property member is its setter (``@name.setter``), by its decorators."""
    return any(d.endswith(".setter") for d in decorators)


def _returns_self(returns: str) -> bool:
    """Whether a method's declared return type is ``Self`` (its receiver's class)."""
    return bool(_SELF_RETURN.search(returns))


def _single_call(receiver: str) -> str | None:
    """The callee of a receiver that is one call of a dotted name (``self.signer(app)`` ->
    ``self.signer``), else None (``a(b).c(d)``, a subscript, a plain name)."""
    start = receiver.find("(")
    if start <= 0 or not receiver.endswith(")") or not is_dotted_name(receiver[:start]):
        return None
    depth = 0
    for i, char in enumerate(receiver[start:], start):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and i != len(receiver) - 1:
            return None
    return receiver[:start]


class Calls(Types):
    """Calls, reads and protocol uses of one file resolved to targets."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self._external: dict[int, tuple[bool, Reads]] = {}  # with what deciding it read

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
        here = FileScope.of(file_id, hooks, variable_types(refs, hooks) if calls else {})
        self._start_file(refs if calls else None, here)
        typed = here.declared | self._fixture_parameters(file_id) if calls else set()
        cache: dict[tuple[str, str, str, str], Target | None] = {}
        sources: dict[str, int | None] = {}
        best: dict[tuple[int, int], Edge] = {}
        for ref_kind, name, receiver, scope, line in _implicit_calls(refs) if calls else refs:
            if ref_kind != kind and not (calls and ref_kind in IMPLICIT_CALL_KINDS):
                continue
            if (
                ref_kind in ("read", "write")
                and not self._is_property(name)
                and name != ANY_ATTRIBUTE
                and not self._may_hold_module(here, scope, receiver)
            ):
                continue
            src = sources.get(scope, -1)
            if src == -1:
                src = self._source(file_id, scope, line)
                if len(self.world.top_named(file_id, scope)) < 2:  # one definition: any line's source
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

    def _target(self, here: FileScope, ref: RawRef) -> Target | None:
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
        if not found.ids or not is_edge(found.how):
            return None
        ids = list(found.ids)
        if ref.kind != "inherit":
            ids += w.constructors(i for i in found.ids if w.symbol(i).kind in CLASS_KINDS)
        confidence = round(
            CONFIDENCE[found.how] / (self._definitions(found.ids) if found.how == "name" else 1), 3
        )
        return tuple(ids), found.how, confidence

    def _set_up_class(self, file_id: int, receiver: str) -> int | None:
        """The test class a call in a test module's top-level code sets up (``TestCli.load_fixtures(
        "cli.txt")``, which attaches its tests at run time): the call is the class's, so what it
        attaches runs for that class's tests."""
        w = self.world
        return next(
            (
                i
                for i in w.top_named(file_id, receiver)
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

    def _resolve_type(self, file_id: int, ref: RawRef) -> Lookup:
        found = self._resolve_dotted(
            file_id, ref.scope, f"{ref.receiver}.{ref.name}" if ref.receiver else ref.name
        )
        hooks = self.world.hooks(file_id)
        kinds = CLASS_KINDS | {"namespace"} if hooks.global_namespace else CLASS_KINDS  # Ruby's mixins
        classes = [i for i in found.ids if self.world.symbol(i).kind in kinds]
        if not classes and hooks.bases_by_name:
            guessed = self._by_name(file_id, ref.name, methods=False)
            return Lookup([i for i in guessed.ids if self.world.symbol(i).kind in kinds], guessed.how)
        return replace(found, ids=classes)

    def _resolve_call(self, here: FileScope, ref: RawRef) -> Lookup:
        w = self.world
        hooks = here.hooks
        receiver = ref.receiver
        if not receiver:
            called = self._called_value(here, ref.scope, ref.name)
            if called.ids:
                return called
            if ref.name in hooks.self_names and not self._imported_here(here.file_id, ref.scope, ref.name):
                return Lookup(
                    w.enclosing_classes(here.file_id, ref.scope), "self"
                )  # cls(...) builds the class
            if hooks.implicit_self:
                members = w.find_member(w.enclosing_classes(here.file_id, ref.scope), ref.name)
                if members:
                    return Lookup(members, "self")
            found = self._resolve_bare(here.file_id, ref.scope, ref.name)
            if found is PARAMETER:
                return EXTERNAL
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
                return Lookup(self._held_callables(here, classes), "callback")
            return Lookup(members, "self")
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
                    return Lookup(members, "self")
                built = self._held_classes(classes, ref.name)
                if built:  # a class held in an attribute is called: it is built
                    return Lookup(built, "typed")
                held = w.find_member(self._attribute_classes(classes, ref.name), "__call__")
                if held:  # an object held in an attribute is called (``to_html = create_markdown()``)
                    return Lookup(held, "typed")
                return self._callbacks(classes, ref.name)
        classes = self._typed_receiver(here, ref.scope, receiver)
        returned = self._call_result(here, ref.scope, receiver) if not classes else None
        if returned is EXTERNAL:
            return EXTERNAL
        classes = classes or (returned.ids if returned is not None else [])
        if classes:
            members = w.find_member(classes, ref.name)
            if members:
                return Lookup(members, "typed")
            callbacks = self._callbacks(classes, ref.name)
            if callbacks.ids:
                return callbacks
            built = self._held_classes(classes, ref.name)
            if built:  # a class held in an attribute is called: it is built
                return Lookup(built, "typed")
            held = w.find_member(self._attribute_classes(classes, ref.name), "__call__")
            if held:  # an object held in an attribute is called
                return Lookup(held, "typed")
        target = self._resolve_receiver(here.file_id, ref.scope, receiver)
        if ref.name == hooks.construct_method and target.ids:
            classes = [i for i in target.ids if w.symbol(i).kind in CLASS_KINDS]
            if classes:  # ``Foo.new(...)``: the class is built, its constructor runs
                return Lookup(classes, target.how)
        if target.final:
            return self._member_of(target, ref.name)
        if ref.name in hooks.builtin_methods or self._of_outside_class(here, ref.scope, receiver, ref.name):
            return EXTERNAL
        return self._by_name(here.file_id, ref.name, methods=True)

    def _of_outside_class(self, here: FileScope, scope: str, receiver: str, name: str) -> bool:
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
            names = type_names(declared[1], hooks)
            outside = (self._resolve_dotted(here.file_id, scope, n).how == "external" for n in names)
            if not names or not all(outside):
                return False
        return not any(self._extends_external([c]) for c in self._derived_owners(here, name))

    def _derived_owners(self, here: FileScope, name: str) -> list[int]:
        """The classes that define a method ``name`` and name base classes: only these can extend
        one from outside (what this depends on is noted as one key, ``Reads.extending``)."""
        w = self.world
        language = w.files[here.file_id].language
        reads, w.reads = w.reads, None
        try:
            owners = {w.symbol(m).parent_id for m in w.named(language, name, True)} - {None}
            derived = [c for c in sorted(o for o in owners if o is not None) if w.supers(c)]
        finally:
            w.reads = reads
        if reads is not None:
            reads.extending.add((w.family(language), name))
        return derived

    def _call_result(self, here: FileScope, scope: str, receiver: str) -> Lookup | None:
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
        w = self.world
        classes = self._declared_returns(here, found.ids)
        classes += [
            parent
            for i in found.ids
            if _returns_self(w.returns(i)) and (parent := w.symbol(i).parent_id) is not None
        ]
        if classes:
            return Lookup(classes, "typed")
        callables = [i for i in found.ids if w.symbol(i).kind in CALLABLE_KINDS]
        if found.ids and len(callables) == len(found.ids) and all(map(self._returns_builtin, callables)):
            return EXTERNAL
        return None

    def _returns_builtin(self, function: int) -> bool:
        """Whether a function's declared return type names only built-in types (``-> str``,
        ``-> list[str] | None``): their methods never run the repository's code. A library's type
        may (itsdangerous' ``dumps`` calls the serializer it was handed), so it does not count."""
        returns = self.world.returns(function)
        if not returns or returns.endswith(RESULT_MARK):
            return False
        hooks = self.world.hooks(self.world.symbol(function).file_id)
        names = type_names(returns, hooks)
        return bool(names) and all(n in hooks.builtin_names for n in names)

    def _called_value(self, here: FileScope, scope: str, variable: str) -> Lookup:
        """Calling a variable: one bound to a class builds it (``self.context_class(...)``); one
        holding an instance runs its ``__call__`` (``self.type(value)``)."""
        if variable not in here.declared:
            return MISS
        declared = self._declared(here, scope, variable)
        if declared is None:
            return MISS
        kind, text = declared
        if kind == "alias":
            return Lookup(self._classes_in(here.file_id, scope, text), "typed")
        classes = self._typed_receiver(here, scope, variable)
        return Lookup(self.world.find_member(classes, "__call__"), "typed") if classes else MISS

    def _resolve_read(self, here: FileScope, ref: RawRef) -> Lookup:
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
            if any(d.rsplit(".", 1)[-1] in decorators for d in self.world.decorators(m))
            and _is_setter(self.world.decorators(m)) == (ref.kind == "write")
        ]
        return Lookup(props, "self" if on_self else "typed") if props else EXTERNAL

    def _may_hold_module(self, here: FileScope, scope: str, receiver: str) -> bool:
        """Whether a variable's declared values may be modules (a parametrised test's ``click.core``)."""
        declared = self._declared(here, scope, receiver) if receiver in here.declared else None
        return declared is not None and declared[0] == "type" and declared[1][:1].islower()

    def _receiver_modules(self, here: FileScope, scope: str, receiver: str) -> list[int]:
        """The modules (file ids) a receiver stands for: an imported module, or the modules a
        variable's declared values name (``[click, click.core]`` of a parametrised test)."""
        w = self.world
        if receiver in here.declared:
            declared = self._declared(here, scope, receiver)
            if declared is None or declared[0] != "type":
                return []
            groups = union_groups(declared[1], w.hooks(here.file_id).union_wrappers)
            found = [i for g in groups for n in g for i in self._resolve_dotted(here.file_id, scope, n).ids]
        else:
            found = self._resolve_receiver(here.file_id, scope, receiver).ids
        return [w.symbol(i).file_id for i in dict.fromkeys(found) if w.symbol(i).kind == "module"]

    def _module_attribute(self, modules: Sequence[int], name: str) -> Lookup:
        """Reading ``name`` (:data:`ANY_ATTRIBUTE`: a name built at run time) on modules: the
        ``__getattr__`` of each module that may not define it; nothing runs for a defined name."""
        w = self.world
        undefined = [
            m
            for m in modules
            if name == ANY_ATTRIBUTE or not (w.lookup_member([m], name) or w.submodule(m, name))
        ]
        hooks = self._module_getattr(undefined)
        return Lookup(hooks, "dispatch") if hooks else EXTERNAL

    def _resolve_protocol(self, here: FileScope, ref: RawRef) -> Lookup:
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
        return Lookup(found, "typed") if found else EXTERNAL

    def _extends_external(self, classes: Sequence[int]) -> bool:
        """Whether one of the classes, or a base of theirs in the repository, names a base class
        imported from outside it (``class FlaskClient(werkzeug.test.Client)``)."""
        return any(self._external_base(c) for c in self.world.lineage(classes))

    def _external_base(self, class_id: int) -> bool:
        w = self.world
        known = self._external.get(class_id)
        if known is None:
            outer, w.reads = w.reads, Reads()
            try:
                symbol = w.symbol(class_id)
                hooks = w.hooks(symbol.file_id)
                external = any(
                    self._resolve_dotted(symbol.file_id, symbol.name, base).how == "external"
                    for base in w.supers(class_id)
                    if base.rsplit(".", 1)[-1] not in hooks.neutral_bases
                    and base.split(".", 1)[0] not in hooks.builtin_names
                )
                known = self._external[class_id] = (external, w.reads)
            finally:
                w.reads = outer
        if w.reads is not None:  # a later file that asks depends on what deciding it read
            w.reads.merge(known[1])
        return known[0]

    def _callbacks(self, classes: Sequence[int], name: str) -> Lookup:
        """A method ``name`` the classes inherit from outside the repository may call back the
        methods that extend an external one through ``super()`` (werkzeug's ``Client.get`` calls
        ``open``) and their protected hooks (``textwrap.TextWrapper.fill`` calls ``_wrap_chunks``);
        one that dispatches by a name prefix runs the classes' methods of that prefix
        (``ast.NodeVisitor.visit`` runs ``visit_Name``): a ``dispatch``."""
        if not self._extends_external(classes):
            return EXTERNAL
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
                    found += [m for m in methods if protected or short in w.supers(m)]
        if dispatched:
            return Lookup(list(dict.fromkeys(dispatched + found)), "dispatch")
        return Lookup(found, "callback") if found else EXTERNAL

    def _held_callables(self, here: FileScope, classes: Sequence[int]) -> list[int]:
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
