"""Scope lookup: a (dotted) name through the enclosing scopes, the file, its imports and
the members of what they bind; the repository-wide name match as the last resort."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo_core.index.resolve.records import (
    EXTERNAL,
    GETATTR,
    MISS,
    PARAMETER,
    Lookup,
    is_dotted_name,
)
from mnemo_core.index.world import Binding, World
from mnemo_core.model import (
    CLASS_KINDS,
)

AMBIGUOUS_LIMIT = 3  # a name defined more often than this is not linked by name alone


class Scope:
    """Scope lookup: a name through the enclosing scopes, imports and members."""

    def __init__(self, world: World) -> None:
        self.world = world

    def _source(self, file_id: int, scope: str, line: int = 0) -> int | None:
        """The definition a reference at ``line`` in ``scope`` is written in: where a name has
        several (a property's getter and setter), the one whose lines hold it."""
        if scope:
            ids = self.world.top_named(file_id, scope)
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

    def _module_getattr(self, modules: Sequence[int]) -> list[int]:
        """The module-level ``__getattr__`` of each module (file id) that defines one (PEP 562)."""
        w = self.world
        return [
            i
            for m in modules
            for i in w.top_named(m, GETATTR)
            if w.symbol(i).kind == "function" and w.hooks(m).module_getattr
        ]

    def _bound(self, binding: Binding) -> Lookup:
        """What an import binding stands for; a name its module does not define, the module's
        ``__getattr__`` (``from click import BaseCommand``)."""
        w = self.world
        ids = w.resolve_binding(binding)
        if ids or not binding.member:
            return Lookup(ids, "import")
        if any(w.submodule(m, binding.member) for m in binding.modules):
            return Lookup([], "import")
        return Lookup(self._module_getattr(binding.modules), "dispatch")

    def _is_self(self, file_id: int, scope: str, receiver: str) -> bool:
        hooks = self.world.hooks(file_id)
        if receiver in hooks.self_names:
            return True
        if not hooks.receiver_is_first_param:
            return False
        src = self._source(file_id, scope)
        if src is None or self.world.symbol(src).kind != "method":
            return False
        params = self.world.params(src)
        return bool(params and params[0] == receiver)

    def _member_of(self, target: Lookup, name: str) -> Lookup:
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
            return Lookup(hooks, "dispatch") if hooks else EXTERNAL
        return Lookup(found, target.how if found else "external")

    def _resolve_receiver(self, file_id: int, scope: str, receiver: str) -> Lookup:
        """What an object expression refers to, when it is a module or a class (or an instance made
        by calling a class); a miss when it is anything else."""
        if receiver.endswith(")"):
            callee = receiver[: receiver.find("(")]
            built = self.world.hooks(file_id).construct_method
            if built and callee.endswith(f".{built}"):  # Ruby: ``Foo.new(...)`` is a Foo
                callee = callee[: -len(built) - 1]
            if not callee or not is_dotted_name(callee):
                return MISS
            found = self._resolve_dotted(file_id, scope, callee)
            classes = [i for i in found.ids if self.world.symbol(i).kind in CLASS_KINDS]
            return Lookup(classes, found.how) if classes else MISS
        if not is_dotted_name(receiver):
            return MISS
        found = self._resolve_dotted(file_id, scope, receiver)
        kinds = CLASS_KINDS | {"module"}
        if found.how == "external":
            return found
        ids = [i for i in found.ids if self.world.symbol(i).kind in kinds]
        return Lookup(ids, found.how) if ids else MISS

    def _resolve_dotted(self, file_id: int, scope: str, dotted: str) -> Lookup:
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
                    return EXTERNAL
                return self._walk(self._bound(binding), parts[i:])
        head = self._resolve_bare(file_id, scope, parts[0])
        if not head.found:
            return head if head.final else MISS
        return self._walk(head, parts[1:])

    def _namespaced(self, file_id: int, scope: str, parts: list[str]) -> Lookup:
        """Ruby's ``A::B::C`` (or ``B`` written inside ``module A``): the longest leading class
        path, looked up from the innermost enclosing namespace out, then the rest as members."""
        w = self.world
        outer = scope.split(".") if scope else []
        for k in range(len(parts), 0, -1):
            for i in range(len(outer), -1, -1):
                ids = w.classes_named(file_id, ".".join([*outer[:i], *parts[:k]]))
                if ids:
                    here = all(w.symbol(c).file_id == file_id for c in ids)
                    return self._walk(Lookup(ids, "local" if here else "package"), parts[k:])
        return MISS

    def _walk(self, found: Lookup, rest: list[str]) -> Lookup:
        """Members of what was found, one name at a time. What a module's ``__getattr__`` serves is
        a value of unknown type: its members are unknown, not outside the repository (a later
        guess by name may still find them)."""
        for part in rest:
            if not found.ids:
                break
            if found.how == "dispatch":
                return Lookup([], "import")
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

    def _resolve_bare(self, file_id: int, scope: str, name: str) -> Lookup:
        w = self.world
        bindings = w.bindings(file_id)
        parts = scope.split(".") if scope else []
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            owner = w.top_named(file_id, prefix)  # name by name: another file's other names aside
            if owner and w.symbol(owner[0]).kind in CLASS_KINDS:
                continue
            if owner and name in w.params(owner[0]):
                return PARAMETER  # shadows every outer name
            inner = w.top_named(file_id, f"{prefix}.{name}")
            if inner:
                return Lookup(inner, "local")
            binding = bindings.scoped[prefix].get(name) if prefix in bindings.scoped else None
            if binding is not None:
                return self._bound(binding) if binding.modules else EXTERNAL
        local = w.top_named(file_id, name)
        if local:
            return Lookup(local, "local")
        binding = bindings.names.get(name)
        if binding is not None:
            return self._bound(binding) if binding.modules else EXTERNAL
        for star in bindings.stars:
            found = w.lookup_member(star, name)
            if found:
                return Lookup(found, "import")
        hooks = w.hooks(file_id)
        if hooks.shares_package_scope():
            for peer in w.package_peers(file_id):
                ids = w.top_named(peer, name) if peer != file_id else None
                if ids:
                    return Lookup(ids, "package")
        if name in hooks.builtin_names:
            return EXTERNAL
        return MISS

    def _by_name(self, file_id: int, name: str, methods: bool) -> Lookup:
        candidates = self.world.named(self.world.files[file_id].language, name, methods, AMBIGUOUS_LIMIT)
        if not candidates or self._definitions(candidates) > AMBIGUOUS_LIMIT:
            return EXTERNAL
        return Lookup(list(candidates), "name")

    def _definitions(self, ids: Sequence[int]) -> int:
        """How many different things the symbols are: in a language with overloading (Java, C#), a
        method's overloads are one."""
        w = self.world
        if not ids or not w.hooks(w.symbol(ids[0]).file_id).overloads:
            return len(ids)
        return len({(w.symbol(i).file_id, w.symbol(i).name) for i in ids})
