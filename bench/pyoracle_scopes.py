"""The first pass of the ``ast`` call oracle (``pyoracle.py``): scopes, bindings, classes and raw call
sites of one module, and the records both passes share. No mnemo code."""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyoracle import Oracle

MAX_DEPTH = 25  # re-export and attribute chains longer than this are treated as cycles
BUILTIN_NAMES = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__path__",
    "__builtins__",
}
LITERALS = (
    ast.Constant,
    ast.JoinedStr,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
)  # receivers of built-in type: "".join(), [].append()
# Bases that define no public (non-dunder) methods: a lookup of ``self.m`` may look past them.
TRANSPARENT_BASES = frozenset(
    {
        "builtins.object",
        "typing.Generic",
        "typing.Protocol",
        "typing_extensions.Protocol",
        "abc.ABC",
    }
)
OBJECT_DUNDERS = frozenset(dir(object))
FUNCTION_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MODULE_CALLER = "<module>"
# Receivers typed by a constructor call or an annotation: beyond the forms the benchmark's brief lists,
# so reported separately (``Site.extension``).
EXTENSION_FORMS = frozenset({"param.m() annotated", "var.m() annotated", "var.m() constructed"})


# -- records ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """What an expression refers to: a repository definition, a repository module, or something outside."""

    kind: str  # "def", "module", "external"
    path: str = ""  # the file (def, module; "" for a namespace package)
    qualname: str = ""  # a def's qualified name in its file; a module's or an external's dotted name
    def_kind: str = ""  # "function" or "class" for a def


@dataclass(frozen=True)
class Unresolved:
    """Why the oracle will not say what an expression refers to."""

    reason: str


Result = Target | Unresolved


@dataclass(frozen=True)
class Binding:
    """How a scope binds a name."""

    kind: str  # "def", "module" (import a.b), "from" (from m import n), "other"
    qualname: str = ""  # def
    def_kind: str = ""  # def: function or class
    module: str = ""  # module, from: absolute dotted module name
    name: str = ""  # from: the member imported
    value: ast.expr | None = None  # other: the value of ``name = value``
    annotation: ast.expr | None = None  # other: the annotation of a parameter or of ``name: T = ...``


OTHER = Binding("other")


@dataclass(eq=False)
class Scope:
    """A module, class, function, lambda or comprehension scope and the names it binds."""

    kind: str  # module, class, function, lambda, comprehension
    qualname: str  # the definition's qualified name ("" for the module); lambdas inherit their owner's
    parent: Scope | None
    module: ModuleInfo
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    first_param: str | None = None  # functions: the first positional parameter
    decorators: tuple[str, ...] = ()  # functions: decorator names (last dotted component)

    def bind(self, name: str, binding: Binding) -> None:
        """Record one binding of ``name`` (respecting ``global`` / ``nonlocal`` declarations)."""
        target: Scope = self
        if name in self.globals:
            target = self.module.scope
        elif name in self.nonlocals:
            target = _enclosing_binder(self, name) or self
        target.bindings.setdefault(name, []).append(binding)


def _enclosing_binder(scope: Scope, name: str) -> Scope | None:
    s = scope.parent
    while s is not None and s.kind != "module":
        if s.kind in {"function", "lambda"} and name in s.bindings:
            return s
        s = s.parent
    return None


@dataclass(eq=False)
class ClassInfo:
    """A class: its body scope, the scope its bases are evaluated in, and its instance attributes."""

    key: tuple[str, str]  # (path, qualname)
    scope: Scope
    outer: Scope
    bases: list[ast.expr]
    instance_attrs: set[str] = field(default_factory=set)


@dataclass(eq=False)
class ModuleInfo:
    """One parsed ``.py`` file."""

    path: str
    dotted: str
    is_package: bool
    scope: Scope = field(init=False)
    stars: list[str] = field(default_factory=list)  # absolute modules imported with *
    all_names: tuple[str, ...] | None = None  # a literal __all__

    @property
    def root(self) -> str:
        """The directory the module is imported from (``src`` for ``src/flask/app.py``)."""
        return import_root(self)

    @property
    def package(self) -> str:
        """The package relative imports start from."""
        return self.dotted if self.is_package else self.dotted.rpartition(".")[0]


@dataclass(frozen=True)
class RawSite:
    """A call site before resolution."""

    func: ast.expr
    scope: Scope
    caller: str  # qualified name of the innermost def/class, MODULE_CALLER for module code
    decorator: bool  # a bare decorator, not an ast.Call


@dataclass(frozen=True)
class Site:
    """A resolved (or not) call site."""

    path: str
    caller: str
    line: int  # the line of the called name (the attribute's line for a.b.name)
    column: int  # 0-based character column of the called name
    name: str  # the called identifier ("" when the callee is not a name or attribute)
    form: str  # the call form, see CALL_FORMS
    status: str  # repo, external, unresolved
    target: Target | None
    reason: str = ""  # unresolved: why
    extension: bool = False  # a typed-receiver form (EXTENSION_FORMS), reported apart from the brief's forms


CALL_FORMS = (
    "f() local",
    "f() nested",
    "f() imported",
    "C() constructor",
    "mod.f()",
    "mod.C() constructor",
    "C.m()",
    "self.m()",
    "super().m()",
    "C().m()",
    "@decorator",
    "f() builtin/undefined",
    "f() variable",
    "literal.m()",
    "param.m() annotated",
    "var.m() annotated",
    "var.m() constructed",
    "other",
)


# -- pass 1: modules, scopes and bindings ----------------------------------------------------
def module_name(root: Path, rel: str) -> tuple[str, bool]:
    """The dotted module name of a repo-relative file and whether it is a package's ``__init__``.

    The import root is the nearest directory above the file that has no ``__init__.py`` and is not
    inside a package (a directory without ``__init__.py`` inside a package is a namespace portion)."""
    pure = PurePosixPath(rel)
    is_package = pure.stem == "__init__"
    parts = [] if is_package else [pure.stem]
    directory = pure.parent
    while directory.parts and (
        (root / directory / "__init__.py").is_file() or (root / directory.parent / "__init__.py").is_file()
    ):
        parts.insert(0, directory.name)  # a package, or a namespace portion inside one (flask/sansio)
        directory = directory.parent
    return ".".join(parts) or pure.stem, is_package


class ScopeBuilder:
    """Walks one module: scopes, bindings, classes and raw call sites."""

    def __init__(self, oracle: Oracle, module: ModuleInfo) -> None:
        self.oracle = oracle
        self.module = module

    def build(self, tree: ast.Module) -> None:
        scope = Scope("module", "", None, self.module)
        self.module.scope = scope
        for stmt in tree.body:
            self.visit(stmt, scope, MODULE_CALLER)
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
            ):
                self.module.all_names = _literal_names(stmt.value)

    def visit(self, node: ast.AST, scope: Scope, caller: str) -> None:
        """Record what ``node`` binds in ``scope`` and the call sites in it, attributed to ``caller``."""
        if isinstance(node, FUNCTION_KINDS):
            self._function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self._class(node, scope)
        elif isinstance(node, ast.Lambda):
            self._args_outer(node.args, scope, caller)
            inner = Scope("lambda", scope.qualname, scope, self.module)
            self._bind_params(node.args, inner)
            self.visit(node.body, inner, caller)
        elif isinstance(node, COMPREHENSIONS):
            self._comprehension(node, scope, caller)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    scope.bind(alias.asname, Binding("module", module=alias.name))
                else:
                    head = alias.name.split(".")[0]
                    scope.bind(head, Binding("module", module=head))
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node, scope)
        elif isinstance(node, ast.Assign) and [type(t) for t in node.targets] == [ast.Name]:
            scope.bind(node.targets[0].id, Binding("other", value=node.value))  # type: ignore[attr-defined]
            self.visit(node.value, scope, caller)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            scope.bind(node.target.id, Binding("other", value=node.value, annotation=node.annotation))
            for part in (node.annotation, node.value):
                if part is not None:
                    self.visit(part, scope, caller)
        elif isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        else:
            self._generic(node, scope, caller)

    def _generic(self, node: ast.AST, scope: Scope, caller: str) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            scope.bind(node.id, OTHER)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            scope.bind(node.name, OTHER)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            scope.bind(node.rest, OTHER)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            self._instance_attr(node, scope)
        elif isinstance(node, ast.Call):
            self.oracle.raw_sites.append(RawSite(node.func, scope, caller, decorator=False))
        for child in ast.iter_child_nodes(node):
            self.visit(child, scope, caller)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        qual = _qual(scope, node.name)
        scope.bind(node.name, Binding("def", qualname=qual, def_kind="function"))
        self.oracle.def_lines[(self.module.path, node.lineno)] = qual
        self._decorators(node.decorator_list, scope, qual)
        self._args_outer(node.args, scope, qual)
        if node.returns is not None:
            self.visit(node.returns, scope, qual)
        params = [*node.args.posonlyargs, *node.args.args]
        inner = Scope(
            "function",
            qual,
            scope,
            self.module,
            first_param=params[0].arg if params else None,
            decorators=tuple(_decorator_name(d) for d in node.decorator_list),
        )
        self._bind_params(node.args, inner)
        for stmt in node.body:
            self.visit(stmt, inner, qual)

    def _class(self, node: ast.ClassDef, scope: Scope) -> None:
        qual = _qual(scope, node.name)
        scope.bind(node.name, Binding("def", qualname=qual, def_kind="class"))
        self.oracle.def_lines[(self.module.path, node.lineno)] = qual
        self._decorators(node.decorator_list, scope, qual)
        for expr in [*node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr, scope, qual)
        inner = Scope("class", qual, scope, self.module)
        self.oracle.classes[(self.module.path, qual)] = ClassInfo(
            (self.module.path, qual), inner, scope, list(node.bases)
        )
        for stmt in node.body:
            self.visit(stmt, inner, qual)

    def _decorators(self, decorators: list[ast.expr], scope: Scope, owner: str) -> None:
        for d in decorators:
            if isinstance(d, (ast.Name, ast.Attribute)):
                self.oracle.raw_sites.append(RawSite(d, scope, owner, decorator=True))
            self.visit(d, scope, owner)

    def _args_outer(self, args: ast.arguments, scope: Scope, caller: str) -> None:
        """Defaults and annotations: evaluated in the scope around the definition."""
        for expr in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(expr, scope, caller)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation, scope, caller)

    @staticmethod
    def _bind_params(args: ast.arguments, scope: Scope) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                scope.bind(arg.arg, Binding("other", annotation=arg.annotation))

    def _comprehension(self, node: ast.expr, scope: Scope, caller: str) -> None:
        generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        self.visit(generators[0].iter, scope, caller)  # the first iterable is evaluated outside
        inner = Scope("comprehension", scope.qualname, scope, self.module)
        for i, gen in enumerate(generators):
            self.visit(gen.target, inner, caller)
            if i:
                self.visit(gen.iter, inner, caller)
            for cond in gen.ifs:
                self.visit(cond, inner, caller)
        for part in ("elt", "key", "value"):
            expr = getattr(node, part, None)
            if expr is not None:
                self.visit(expr, inner, caller)

    def _import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        module = node.module or ""
        if node.level:
            base = self.module.package.split(".") if self.module.package else []
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            module = ".".join([*base, *([module] if module else [])])
        for alias in node.names:
            if alias.name == "*":
                if scope.kind == "module":
                    self.module.stars.append(module)
                continue
            scope.bind(alias.asname or alias.name, Binding("from", module=module, name=alias.name))

    def _instance_attr(self, node: ast.Attribute, scope: Scope) -> None:
        """``self.x = ...`` inside a method: ``x`` may shadow a method of the same name."""
        if not isinstance(node.value, ast.Name):
            return
        s: Scope | None = scope
        while s is not None and s.kind in {"lambda", "comprehension"}:
            s = s.parent
        if s is None or s.kind != "function" or s.first_param != node.value.id or s.parent is None:
            return
        if s.parent.kind == "class":
            info = self.oracle.classes.get((self.module.path, s.parent.qualname))
            if info is not None:
                info.instance_attrs.add(node.attr)


def _qual(scope: Scope, name: str) -> str:
    return f"{scope.qualname}.{name}" if scope.qualname else name


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _literal_names(node: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    names = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return tuple(names) if len(names) == len(node.elts) else None


# -- pass 2: resolution ----------------------------------------------------------------------


def import_root(module: ModuleInfo) -> str:
    """The directory a module is imported from (``src`` for ``src/flask/app.py``)."""
    depth = module.dotted.count(".") + (1 if module.is_package else 0)  # package directories in its path
    parts = PurePosixPath(module.path).parent.parts
    return "/".join(parts[: len(parts) - depth])
