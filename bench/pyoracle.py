"""An independent oracle for intra-repository Python calls, built on the ``ast`` module.

It shares no code with mnemo. Two passes over every ``.py`` file of a repository:

1. **Scopes and bindings.** Each module, class, function, lambda and comprehension is a scope; every
   name a scope binds is recorded with how it is bound: a ``def``/``class`` (with its qualified name,
   ``Class.method``, ``outer.inner``), ``import a.b [as c]``, ``from .x import y [as z]`` (relative
   imports made absolute), ``from x import *``, or anything else (parameter, assignment, loop target,
   ``with``/``except``/``match`` target, ``del``, ``global`` rebinding): "other". Per class: its base
   expressions and the attributes its methods assign on their first parameter (``self.x = ...``).
   Module names come from the file system: a file's import root is the nearest directory above it
   without an ``__init__.py`` that is not itself inside a package (so ``src/flask/app.py`` is
   ``flask.app``, ``src/flask/sansio/app.py`` is ``flask.sansio.app``, ``tests/test_x.py`` is ``test_x``);
   an absolute import found nowhere else is looked up beside the importing file (``sys.path[0]`` of a script).
2. **Call sites.** Every ``ast.Call`` and every bare decorator (``@name``, ``@a.b``: the decorator is
   called with the function) is attributed to its *caller*, the innermost ``def``/``class`` around it
   with decorators, defaults, annotations and bases counted as part of the definition, or the module.
   Its callee is then resolved with Python's scoping rules (LEGB, class scopes invisible to nested
   functions, ``global``/``nonlocal``):

   - ``f()``: a name bound by exactly one ``def``/``class`` in the nearest scope binding it, or by an
     import that leads (through re-exports, any depth, cycles guarded) to one; ``C()`` is a
     constructor call and resolves to the class;
   - ``mod.f()``, ``pkg.sub.C()``, ``C.m()``, ``mod.C.m()``: attribute chains through modules
     (module bindings, then submodules, then ``*`` imports) and classes (members along the C3 MRO);
   - ``self.m()`` / ``cls.m()``: the receiver is the first parameter of the method that binds it (not a
     ``staticmethod``, never rebound), the member is looked up along the class's MRO;
   - ``super().m()`` / ``super(C, self).m()``: the MRO after the enclosing class;
   - ``C().m()``: a method on a freshly constructed instance;
   - extension forms (``Site.extension``, reported apart): ``v.m()`` where ``v`` is bound exactly once,
     by ``v = C(...)`` or with an annotation naming a repository class (``p: C``, ``C | None``,
     ``Optional[C]``, ``"C"``), looked up along C's MRO like ``self``.

   A site is **repo** (resolved to a repository ``def``/``class``), **external** (a builtin not shadowed,
   a member of a module outside the repository, or an ``object`` dunder), or **unresolved** with a reason:
   a name bound several ways (``try: from a import f / except: def f``), a variable or parameter, an
   unknown receiver type, a member that an instance attribute may shadow, an MRO that reaches a
   base outside the repository before the member is found, a dynamic module attribute.

Anything uncertain is unresolved rather than guessed: the oracle trades coverage for certainty.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pyoracle_scopes import (
    BUILTIN_NAMES,
    EXTENSION_FORMS,
    LITERALS,
    MAX_DEPTH,
    OBJECT_DUNDERS,
    TRANSPARENT_BASES,
    Binding,
    ClassInfo,
    ModuleInfo,
    RawSite,
    Result,
    Scope,
    ScopeBuilder,
    Site,
    Target,
    Unresolved,
    module_name,
)


class Oracle:
    """The oracle over one repository: build it, then iterate :meth:`sites`."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.root = root
        self.modules: dict[str, ModuleInfo] = {}
        self.by_dotted: dict[str, list[ModuleInfo]] = {}
        self.classes: dict[tuple[str, str], ClassInfo] = {}
        self.raw_sites: list[RawSite] = []
        self.def_lines: dict[tuple[str, int], str] = {}  # (path, line of `def`/`class`) -> qualified name
        self.failed: dict[str, str] = {}  # path -> why it was not analysed
        self._mro: dict[tuple[str, str], list[object]] = {}
        trees = {}
        for rel in paths:
            try:
                source = (root / rel).read_bytes()
                trees[rel] = ast.parse(source, filename=rel)
            except (SyntaxError, ValueError, OSError) as exc:
                self.failed[rel] = type(exc).__name__
                continue
            dotted, is_package = module_name(root, rel)
            info = ModuleInfo(rel, dotted, is_package)
            self.modules[rel] = info
            self.by_dotted.setdefault(dotted, []).append(info)
        self.package_roots = {m.root for m in self.modules.values() if m.is_package or "." in m.dotted}
        self.package_modules = {m.dotted for m in self.modules.values() if m.root in self.package_roots}
        self.top_packages = {d.split(".")[0] for d in self.package_modules}
        for rel, tree in trees.items():
            ScopeBuilder(self, self.modules[rel]).build(tree)

    # -- modules --
    def find_module(self, dotted: str, importer: ModuleInfo | None) -> Result:
        """A module by absolute dotted name, as ``importer`` sees it (a namespace package has no path)."""
        found = [m for m in self.by_dotted.get(dotted, []) if self._importable(m, importer)]
        if len(found) > 1 and importer is not None:
            found = [m for m in found if m.root == importer.root] or found
        if len(found) == 1:
            return Target("module", found[0].path, dotted)
        if found:
            return Unresolved("module name defined by several files")
        if any(d.startswith(dotted + ".") for d in self.package_modules):
            return Target("module", "", dotted)
        top = dotted.split(".")[0]
        if top in self.top_packages and top not in sys.stdlib_module_names:
            return Unresolved("repo module not found")
        beside = self._beside(dotted, importer)
        return beside if beside is not None else Target("external", qualname=dotted)

    def _importable(self, module: ModuleInfo, importer: ModuleInfo | None) -> bool:
        """Whether ``import module`` from ``importer`` finds this file: its import root is the importer's
        own (``sys.path[0]``, pytest's rootdir insertion), or a root holding packages (the repository or
        ``src/``), unless a standard-library module of that name wins (site roots come after the stdlib)."""
        if importer is None or module.root == importer.root:
            return True
        if module.dotted.split(".")[0] in sys.stdlib_module_names:
            return False
        return module.root in self.package_roots

    def _beside(self, dotted: str, importer: ModuleInfo | None) -> Target | None:
        """A module next to the importing file: a script's directory is ``sys.path[0]``."""
        if importer is None:
            return None
        directory = PurePosixPath(importer.path).parent
        stem = directory.joinpath(*dotted.split("."))
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if candidate in self.modules:
                return Target("module", candidate, dotted)
        return None

    def module_member(self, module: Target, name: str, importer: ModuleInfo | None, depth: int) -> Result:
        """``module.name``: a binding of the module, a submodule, or a name from a * import."""
        if module.kind == "external":
            return Target("external", qualname=f"{module.qualname}.{name}")
        info = self.modules.get(module.path) if module.path else None
        sub = self.find_module(f"{module.qualname}.{name}", importer)
        if info is not None:
            bound = info.scope.bindings.get(name)
            if bound:
                found = self.resolve_bindings(info, bound, depth + 1)
                if (
                    isinstance(found, Unresolved)
                    and found.reason == "import cycle"
                    and isinstance(sub, Target)
                    and sub.kind == "module"
                ):
                    return sub  # a package re-exporting its own submodule through a cycle
                return found
        if isinstance(sub, Target) and sub.kind == "module":
            return sub
        if info is not None:
            for star in info.stars:
                from_star = self._star_member(star, name, info, depth)
                if from_star is not None:
                    return from_star
            if "__getattr__" in info.scope.bindings:
                return Unresolved("module __getattr__")
        return Unresolved("no such module attribute")

    def _star_member(self, star: str, name: str, importer: ModuleInfo, depth: int) -> Result | None:
        module = self.find_module(star, importer)
        if not isinstance(module, Target):
            return Unresolved("star import of an unknown module")
        if module.kind == "external":
            return None  # cannot know what an external * brings: the caller treats the name as unknown
        info = self.modules.get(module.path)
        if info is None or depth > MAX_DEPTH:
            return None
        exported = (
            info.all_names
            if info.all_names is not None
            else [n for n in info.scope.bindings if not n.startswith("_")]
        )
        if name not in exported:
            return None
        return self.module_member(module, name, importer, depth + 1)

    # -- names --
    def resolve_bindings(self, module: ModuleInfo, bindings: list[Binding], depth: int) -> Result:
        """What a list of bindings of one name leads to: one answer, or unresolved when they disagree."""
        if depth > MAX_DEPTH:
            return Unresolved("import cycle")
        results = {self._resolve_binding(module, b, depth) for b in bindings}
        if len(results) == 1:
            return results.pop()
        unresolved = [r for r in results if isinstance(r, Unresolved)]
        if any(r.reason == "variable" for r in unresolved):
            return Unresolved("variable")
        return Unresolved("name bound several ways")

    def _resolve_binding(self, module: ModuleInfo, b: Binding, depth: int) -> Result:
        if b.kind == "def":
            return Target("def", module.path, b.qualname, b.def_kind)
        if b.kind == "module":
            return self.find_module(b.module, module)
        if b.kind == "from":
            source = self.find_module(b.module, module)
            if not isinstance(source, Target):
                return source
            if source.path and source.path == module.path:  # `from . import sub` in pkg/__init__.py
                return self.find_module(f"{b.module}.{b.name}", module)
            return self.module_member(source, b.name, module, depth)
        return Unresolved("variable")

    def lookup(self, scope: Scope, name: str) -> tuple[Scope | None, list[Binding]]:
        """The scope that binds ``name`` as seen from ``scope`` (LEGB; enclosing class scopes are skipped)."""
        s: Scope | None = scope
        first = True
        while s is not None:
            if name in s.globals:
                s = s.module.scope
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if name in s.bindings:
                return s, s.bindings[name]
            first = False
            s = s.parent
        return None, []

    def resolve_name(self, scope: Scope, name: str, depth: int = 0) -> tuple[Result, Scope | None]:
        """A bare name: the binding scope's answer, a * import, a builtin, or unresolved."""
        binder, bindings = self.lookup(scope, name)
        if binder is not None:
            return self.resolve_bindings(scope.module, bindings, depth), binder
        module = scope.module
        for star in module.stars:
            found = self._star_member(star, name, module, depth)
            if found is not None:
                return found, module.scope
        star_modules = [self.find_module(s, module) for s in module.stars]
        if any(isinstance(m, Target) and m.kind == "external" for m in star_modules):
            return Unresolved("maybe from an external * import"), None
        if name in BUILTIN_NAMES:
            return Target("external", qualname=f"builtins.{name}"), None
        return Unresolved("undefined name"), None

    def resolve_expr(self, scope: Scope, expr: ast.expr, depth: int = 0) -> Result:
        """A name or attribute chain made of modules and classes."""
        if depth > MAX_DEPTH:
            return Unresolved("chain too long")
        if isinstance(expr, ast.Name):
            return self.resolve_name(scope, expr.id, depth)[0]
        if isinstance(expr, ast.Attribute):
            base = self.resolve_expr(scope, expr.value, depth + 1)
            return self.member(base, expr.attr, scope.module, depth)
        if isinstance(expr, ast.Subscript):  # Generic[T], Base[int]: the subscripted class
            return self.resolve_expr(scope, expr.value, depth + 1)
        if isinstance(expr, LITERALS):
            return Target("external", qualname=f"builtins.{type(expr).__name__.lower()}")
        return Unresolved("complex expression")

    def member(self, base: Result, name: str, importer: ModuleInfo, depth: int) -> Result:
        """``base.name`` for a module, a class (class-level lookup) or something outside."""
        if isinstance(base, Unresolved):
            return base
        if base.kind in {"module", "external"}:
            return self.module_member(base, name, importer, depth)
        if base.def_kind == "class":
            return self.class_member((base.path, base.qualname), name, depth=depth)
        return Unresolved("attribute of a function")

    # -- classes --
    def mro(self, key: tuple[str, str], active: frozenset[tuple[str, str]] = frozenset()) -> list[object]:
        """The C3 linearisation; a base outside the repository is an opaque string entry."""
        if key in self._mro:
            return self._mro[key]
        info = self.classes[key]
        if key in active:
            return [key]
        heads: list[list[object]] = []
        for expr in info.bases:
            base = self.resolve_expr(info.outer, expr)
            if isinstance(base, Target) and base.kind == "def" and base.def_kind == "class":
                base_key = (base.path, base.qualname)
                if base_key in self.classes:
                    heads.append(self.mro(base_key, active | {key}))
                    continue
            if isinstance(base, Target) and base.kind == "external":
                heads.append([base.qualname])
            else:
                heads.append([f"?{ast.unparse(expr)}"])
        heads.append(["builtins.object"])
        result = [key, *_c3_merge([*heads, [h[0] for h in heads]])]
        self._mro[key] = result
        return result

    def class_member(
        self, key: tuple[str, str], name: str, skip_self: bool = False, instance: bool = False, depth: int = 0
    ) -> Result:
        """A member along the MRO; unresolved when an opaque base or an instance attribute could supply it."""
        order = self.mro(key)
        if instance and any(name in self.classes[k].instance_attrs for k in order if isinstance(k, tuple)):
            return Unresolved("instance attribute of the same name")
        for entry in order[1:] if skip_self else order:
            if isinstance(entry, str):
                if entry in TRANSPARENT_BASES and not name.startswith("__"):
                    continue
                if entry == "builtins.object" and name in OBJECT_DUNDERS:
                    return Target("external", qualname=f"object.{name}")
                if entry == "builtins.object":
                    continue
                return Unresolved("base outside the repository")
            assert isinstance(entry, tuple)
            info = self.classes[entry]
            bound = info.scope.bindings.get(name)
            if bound:
                return self.resolve_bindings(info.scope.module, bound, depth + 1)
        return Unresolved("no such member")

    # -- sites --
    def sites(self) -> Iterator[Site]:
        """Every call site, resolved or with the reason it is not."""
        for raw in self.raw_sites:
            yield self._site(raw)

    def _site(self, raw: RawSite) -> Site:
        func = raw.func
        if isinstance(func, ast.Name):
            name, line, col = func.id, func.lineno, func.col_offset
        elif isinstance(func, ast.Attribute):
            name, line = func.attr, func.end_lineno or func.lineno
            col = (func.end_col_offset or 0) - len(func.attr.encode())
        else:
            name, line, col = "", func.lineno, func.col_offset
        form, result = self._resolve_callee(raw)
        extension = form in EXTENSION_FORMS
        if raw.decorator and not extension:  # a typed receiver keeps its (extension) form
            form = "@decorator"
        module = raw.scope.module
        col = _char_column(self.root / module.path, line, col)
        if isinstance(result, Unresolved):
            return Site(module.path, raw.caller, line, col, name, form, "unresolved", None, result.reason)
        if result.kind == "def":
            return Site(module.path, raw.caller, line, col, name, form, "repo", result, extension=extension)
        if result.kind == "external":
            return Site(module.path, raw.caller, line, col, name, form, "external", result)
        return Site(module.path, raw.caller, line, col, name, form, "unresolved", None, "calls a module")

    def _resolve_callee(self, raw: RawSite) -> tuple[str, Result]:
        func, scope = raw.func, raw.scope
        if isinstance(func, ast.Name):
            result, binder = self.resolve_name(scope, func.id)
            return _name_form(result, binder, func.id), result
        if not isinstance(func, ast.Attribute):
            return "other", Unresolved("callee is not a name")
        receiver = func.value
        if _is_super(receiver):
            return "super().m()", self._super_member(scope, func.attr)
        if isinstance(receiver, ast.Name):
            method = self._method_binding_self(scope, receiver.id)
            if method is not None:
                cls_scope, classmethod = method
                key = (cls_scope.module.path, cls_scope.qualname)
                return "self.m()", self.class_member(key, func.attr, instance=not classmethod)
        if isinstance(receiver, ast.Name):
            typed = self._receiver_class(scope, receiver.id)
            if typed is not None:
                form, key = typed
                return form, self.class_member(key, func.attr, instance=True)
        if isinstance(receiver, LITERALS):
            literal = type(receiver).__name__.lower()
            return "literal.m()", Target("external", qualname=f"builtins.{literal}.{func.attr}")
        if isinstance(receiver, ast.Call):
            made = self.resolve_expr(scope, receiver.func)
            if isinstance(made, Target) and made.def_kind == "class":
                return "C().m()", self.class_member((made.path, made.qualname), func.attr, instance=True)
            return "other", Unresolved("method of a call's result")
        base = self.resolve_expr(scope, receiver)
        result = self.member(base, func.attr, scope.module, 0)
        if isinstance(base, Target) and base.def_kind == "class":
            return "C.m()", result
        if isinstance(result, Target) and result.def_kind == "class":
            return "mod.C() constructor", result
        if isinstance(base, Target) and base.kind in {"module", "external"}:
            return "mod.f()", result
        if isinstance(base, Unresolved) and base.reason == "variable":
            return "other", Unresolved("unknown receiver type")
        return "other", result if isinstance(result, Unresolved) else Unresolved("unknown receiver type")

    def _receiver_class(self, scope: Scope, name: str) -> tuple[str, tuple[str, str]] | None:
        """A variable whose class is known: bound once, by ``v = C(...)`` or with an annotation naming a
        repository class (``p: C``, ``p: C | None``, ``p: Optional[C]``, ``p: "C"``)."""
        binder, bindings = self.lookup(scope, name)
        if binder is None or len(bindings) != 1 or bindings[0].kind != "other":
            return None
        b = bindings[0]
        if b.annotation is not None:
            key = self._annotation_class(binder, b.annotation)
            if key is not None:
                return ("param.m() annotated" if b.value is None else "var.m() annotated"), key
        if isinstance(b.value, ast.Call):
            key = self._class_key(self.resolve_expr(binder, b.value.func))
            if key is not None:
                return "var.m() constructed", key
        return None

    def _annotation_class(self, scope: Scope, annotation: ast.expr, depth: int = 0) -> tuple[str, str] | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            sides = [annotation.left, annotation.right]
            real = [x for x in sides if not (isinstance(x, ast.Constant) and x.value is None)]
            return self._annotation_class(scope, real[0], depth + 1) if len(real) == 1 else None
        if isinstance(annotation, ast.Subscript):
            outer = self.resolve_expr(scope, annotation.value)
            if isinstance(outer, Target) and outer.kind == "external" and outer.qualname.endswith("Optional"):
                return self._annotation_class(scope, annotation.slice, depth + 1)
            annotation = annotation.value  # a generic repository class: Base[T]
        return self._class_key(self.resolve_expr(scope, annotation))

    def _class_key(self, found: Result) -> tuple[str, str] | None:
        if not isinstance(found, Target) or found.def_kind != "class":
            return None
        key = (found.path, found.qualname)
        return key if key in self.classes else None

    def _method_binding_self(self, scope: Scope, name: str) -> tuple[Scope, bool] | None:
        """When ``name`` is the first parameter of the method binding it: (class scope, is classmethod)."""
        binder, bindings = self.lookup(scope, name)
        if binder is None or binder.kind != "function" or binder.first_param != name or len(bindings) != 1:
            return None
        owner = binder.parent
        if owner is None or owner.kind != "class" or "staticmethod" in binder.decorators:
            return None
        short = binder.qualname.rsplit(".", 1)[-1]
        classmethod = "classmethod" in binder.decorators or short in {
            "__new__",
            "__init_subclass__",
            "__class_getitem__",
        }
        return owner, classmethod

    def _super_member(self, scope: Scope, name: str) -> Result:
        s: Scope | None = scope
        while s is not None and s.kind in {"lambda", "comprehension"}:
            s = s.parent
        if s is None or s.kind != "function" or s.parent is None or s.parent.kind != "class":
            return Unresolved("super() outside a method")
        return self.class_member((s.module.path, s.parent.qualname), name, skip_self=True)


def _name_form(result: Result, binder: Scope | None, name: str) -> str:
    """The call form of ``name()``, from what the name resolved to and how its scope binds it."""
    if isinstance(result, Target) and result.def_kind == "class":
        return "C() constructor"
    if binder is None:
        found = isinstance(result, Target) and result.kind == "def"
        return "f() imported" if found else "f() builtin/undefined"
    kinds = {b.kind for b in binder.bindings.get(name, [])}
    if kinds == {"def"}:
        return "f() nested" if binder.kind in {"function", "lambda"} else "f() local"
    if kinds & {"module", "from"}:
        return "f() imported"
    return "f() variable"


def _is_super(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "super"
        and (not expr.args or len(expr.args) == 2)
    )


def _c3_merge(seqs: list[list[object]]) -> list[object]:
    """C3 merge; on an inconsistent hierarchy, falls back to a left-to-right depth-first order."""
    seqs = [list(s) for s in seqs if s]
    result: list[object] = []
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            rest = [x for s in seqs for x in s]
            return result + [x for i, x in enumerate(rest) if x not in rest[:i] and x not in result]
        result.append(head)
        seqs = [[x for x in s if x != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return result


_LINE_CACHE: dict[Path, list[bytes]] = {}


def _char_column(path: Path, line: int, byte_col: int) -> int:
    """ast columns count UTF-8 bytes; editors and Jedi count characters."""
    lines = _LINE_CACHE.get(path)
    if lines is None:
        lines = _LINE_CACHE[path] = path.read_bytes().splitlines()
    if line - 1 >= len(lines):
        return byte_col
    return len(lines[line - 1][:byte_col].decode("utf-8", "replace"))
