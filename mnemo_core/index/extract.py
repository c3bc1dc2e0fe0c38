"""One file's bytes -> symbols, unresolved references and imports.

Pure (no I/O, no database), so it runs in worker processes. One query per language finds the
definitions (``@definition.<kind>`` with ``@name``), the references (``@reference.call`` /
``@reference.inherit`` with ``@name`` and an optional ``@receiver``) and the import statements
(``@import``). Definitions are nested by byte range to give qualified names (``Class.method``);
an optional ``@scope`` capture names the owner of a definition written outside it (Go methods,
Rust ``impl`` blocks). Each reference belongs to the innermost definition around it.

The query runs within bounds (``mnemo_core.index.budget``): a tree too deep or too large to query
whole is indexed as far as the bounds go, and says so (``FileExtract.partial``).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Mapping

from tree_sitter import Node

from mnemo_core.index import budget
from mnemo_core.index.bodytext import body_texts
from mnemo_core.index.kept import ANY_ATTRIBUTE as ANY_ATTRIBUTE  # re-exported: resolution reads it
from mnemo_core.index.kept import (
    DEFERRED_KINDS,
    DESCRIBED,
    Pending,
    kept_refs,
    named_values,
    possibly_kept,
)
from mnemo_core.index.languages import LanguageSpec
from mnemo_core.index.languages.base import (
    CONTAINER_ONLY,
    Definition,
    DefinitionKind,
    Hooks,
    TestConventions,
    text_in,
)
from mnemo_core.index.queries import roles as pattern_roles
from mnemo_core.index.queries import symbols_query
from mnemo_core.index.textsplit import dotted_words, identifier_words
from mnemo_core.memo import BoundedCache
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    REF_KINDS,
    SYMBOL_KINDS,
    TYPED_REF_KINDS,
    Field,
    FileExtract,
    RawImport,
    RawRef,
    RawSymbol,
    RefKind,
    SymbolKind,
)

SIGNATURE_MAX_CHARS = 300
# files whose extraction is kept, by content: the index refresh before a change's analysis extracts
# the head side of the changed files, which the analysis extracts again (a 6,000-line file: 1 s)
EXTRACTS_CACHED = 16
_EXTRACTS: BoundedCache[tuple[str, bytes, str, TestConventions, bool], FileExtract] = BoundedCache(
    EXTRACTS_CACHED
)
DOCSTRING_MAX_CHARS = 2000
_SYMBOL_KIND: dict[str, SymbolKind] = {kind: kind for kind in SYMBOL_KINDS}
_DEFINITION_KIND: dict[str, DefinitionKind] = {**_SYMBOL_KIND, CONTAINER_ONLY: CONTAINER_ONLY}
_REF_KIND: dict[str, RefKind] = {kind: kind for kind in REF_KINDS}
# what types an attribute a class's code gives: an instance of a class, or a class itself
FIELD_KINDS: frozenset[RefKind] = frozenset({"type", "result", "alias"})
# the prefix of a ``getattr(self, name)`` dispatch whose name is a class's name alone: the methods it
# may find are named like classes (``visit_`` + ``For``, or pyflakes-style ``FOR``, ``CLASSDEF``)
TYPE_NAMED = "{Type}"
UPPER_TYPE_NAMED = "{TYPE}"
_SHAPES = {TYPE_NAMED: re.compile(r"[A-Z][a-z0-9]\w*"), UPPER_TYPE_NAMED: re.compile(r"[A-Z][A-Z0-9_]+")}
GETATTR_CAPTURE = "_getattr"  # marks a read written as ``getattr(obj, name)`` (the query's capture)
ISINSTANCE_CAPTURE = "_isinstance"  # marks a type written as an ``isinstance`` check (merged per variable)
COLLECT_CAPTURE = "_collect"  # marks a dispatch written as a call to a ``Hooks.prefix_collectors`` function
RESULT_MARK = "()"  # ends a return type that is a call's result, to be resolved through the callee
NAME_DOT = "_"  # a "." inside one name (a test named by its description) would read as nesting
_SPACES = re.compile(r"\s+")
_LINE_COMMENT = re.compile(r"\s+(?:#|//)[^\"']*$")
_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_PREFIX = re.compile(r"[rRuUfF]{0,2}(\"|')([A-Za-z_][A-Za-z0-9_]*)")
_LITERAL_NAME = re.compile(r"[rRuU]?(\"|')([A-Za-z_][A-Za-z0-9_]*)\1")
# a name that is a class's name alone (``type(node).__name__``, ``node_class.__name__.upper()``)
_TYPE_NAME = re.compile(r"[\w.()\s]*\.__name__(\.upper\(\))?")
# a call that replaces what a dotted path names rather than running it (``monkeypatch.setattr("m.f", g)``,
# ``mock.patch("m.f")``)
_REPLACING = re.compile(r"(?:^|\.)(?:setattr|delattr|patch)$")


def extract(
    path: str,
    source: bytes,
    spec: LanguageSpec,
    conventions: TestConventions = None,
    symbols_only: bool = False,
) -> FileExtract:
    """Extract the symbols, references and imports of one file; ``conventions``: the repository's
    pytest settings, which say what its tests are. With ``symbols_only``, what a diff reads and no
    more: the symbols (names, kinds, lines, signatures, docstrings, tests, exports) and the imports,
    without references, bodies, fields, bases or return types built from references; its query
    runs only the patterns of definitions, imports and (in a test file, whose top-level calls say
    which classes run tests) calls, a quarter of the full query's cost."""
    whole = source
    bounded = budget.parse_bounded(spec.parser, source)
    root, source = bounded.root, bounded.source
    definitions: list[Definition] = []
    refs: list[tuple[int, RefKind, str, str, int]] = []
    imports: list[tuple[int, list[RawImport]]] = []
    held: dict[tuple[int, str], str] = {}  # (line, prefix) of a collector call -> the attribute it sets
    checked: set[tuple[int, str, str]] = set()  # (line, variable, class) of each isinstance check
    separator, instance_prefix = spec.hooks.path_separator, spec.hooks.instance_prefix
    in_test_file = spec.hooks.holds_tests(path, whole, conventions)
    collected = spec.hooks.runs_tests_in(path, conventions)
    if symbols_only:
        query, roles = symbols_query(spec, in_test_file)
    else:
        query, roles = spec.query, pattern_roles(spec, in_test_file)
    # references that ``possibly_kept`` may drop on their bytes are held back as nodes (most are dropped)
    pending: list[Pending] = []
    deferred = () if symbols_only or separator != "." or instance_prefix else DEFERRED_KINDS
    for pattern, captures in budget.cursor(query).matches(root):
        role, capture, found_kind = roles[pattern]
        names = captures.get("name")
        if role == "ref" and names:
            name, kind = names[0], _REF_KIND[found_kind]
            receivers = captures.get("receiver")
            if kind in deferred and GETATTR_CAPTURE not in captures and ISINSTANCE_CAPTURE not in captures:
                pending.append(
                    (captures[capture][0].start_byte, kind, name, receivers[0] if receivers else None)
                )
                continue
            receiver = text_in(source, receivers[0]) if receivers else ""
            if separator != "." and separator in receiver:
                receiver = receiver.replace(separator, ".")
            if instance_prefix:
                receiver = _as_attribute(receiver, instance_prefix)
            start, line = captures[capture][0].start_byte, name.start_point[0] + 1
            if kind == "dispatch" and COLLECT_CAPTURE in captures:
                if prefix := spec.hooks.prefix_collectors.get(_text(name), ""):
                    refs.append((start, kind, prefix, receiver, line))
                    held[(line, prefix)] = _assigned_attribute(captures[capture][0])
            elif kind == "dispatch":
                refs.extend((start, kind, prefix, receiver, line) for prefix in _looked_up_prefixes(name))
            elif kind == "read" and GETATTR_CAPTURE in captures:
                refs.append((start, kind, _attribute_name(_text(name)), receiver, line))
            elif kind == "parametrize":
                refs.extend(
                    (start, "type", param, cls, line)
                    for param, cls in spec.hooks.parametrized_types(_text(name), receiver)
                )
            else:
                text = text_in(source, name)
                refs.append((start, kind, _as_attribute(text, instance_prefix), receiver, line))
                if ISINSTANCE_CAPTURE in captures:
                    checked.add((line, text, receiver))
        elif role == "def" and names:
            _add_definition(definitions, captures, _DEFINITION_KIND[found_kind], spec)
        elif role == "import":
            node = captures[capture][0]
            imports.append((node.start_byte, spec.hooks.parse_import(node)))
    top_level = spec.hooks.top_level_matches(root)
    for capture, found in top_level:
        if capture == "import":
            imports.append((found[capture][0].start_byte, spec.hooks.parse_import(found[capture][0])))
        else:
            _add_definition(definitions, found, _DEFINITION_KIND[capture.partition(".")[2]], spec)
    if any(capture == "import" for capture, _ in top_level):
        imports.sort(key=_first)  # in the file's order, as the query gives its matches
    definitions = _nest(definitions, spec.hooks.global_namespace)
    if not symbols_only:
        refs.extend(_dotted_strings(root, source, spec.hooks, bool(bounded.partial)))
        refs.extend(
            (start, "uses", name, "", line)
            for start, line, name in spec.hooks.constant_uses(
                root, source, *_constants(definitions, imports, spec.hooks.member_constants)
            )
        )
    self_names = spec.hooks.self_names
    if not symbols_only:
        refs = possibly_kept(refs, definitions, imports, spec.hooks, in_test_file, pending, source)
    callables = [] if symbols_only else [d for d in definitions if d.kind in CALLABLE_KINDS]
    params_of = {id(d): spec.hooks.params(d) for d in callables}  # read once: ``_symbol`` keeps them too
    parameters = {d.qualified: params_of[id(d)] for d in callables}
    scoped = _described(_scoped_refs(refs, definitions), definitions)
    scoped = _collector_users(_copied_types(_checked_unions(scoped, checked), parameters), held)
    classes = {d.qualified for d in definitions if d.kind in CLASS_KINDS}
    constructed = {} if symbols_only else _constructed_returns(scoped)
    supers = {} if symbols_only else _supers(scoped, spec.hooks)
    fields = {} if symbols_only else _fields(scoped, classes, self_names)
    kept = [d for d in definitions if d.kind != CONTAINER_ONLY]
    set_up = _set_up_classes(scoped, definitions) if in_test_file else frozenset()
    bodies = (
        [""] * (len(kept) + 1)
        if in_test_file or symbols_only  # tests are context, not search targets: a smaller index
        else body_texts(source, [(d.outer.start_byte, d.outer.end_byte) for d in kept])
    )
    builds = (
        in_test_file
        and collected is not False
        and _builds_tests(scoped, definitions, spec.hooks, conventions)
    )
    module = _module_symbol(path, whole, root, spec, in_test_file)
    symbols = [module._replace(body=bodies[-1], is_test_case=builds)]
    symbols += [
        _symbol(
            d,
            source,
            spec,
            (in_test_file, collected, conventions),
            d.qualified in set_up,
            constructed.get(d.qualified, ""),
            supers.get(d.qualified, ()),
            params_of.get(id(d)),
            body=body,
            fields=fields.get(d.qualified, ()),
        )
        for d, body in zip(kept, bodies[:-1], strict=True)  # the last body is the module's
    ]
    return FileExtract(
        path=path,
        language=spec.name,
        symbols=tuple(symbols),
        refs=()
        if symbols_only
        else kept_refs(
            named_values(scoped, definitions, imports, self_names, spec.hooks.shares_package_scope()),
            self_names,
            in_test_file,
        ),
        imports=_scoped_imports(imports, definitions),
        exports=spec.hooks.exports(root),
        parse_errors=_count_errors(root),
        partial=bounded.partial,
    )


def extract_once(
    path: str,
    source: bytes,
    spec: LanguageSpec,
    conventions: TestConventions = None,
    symbols_only: bool = False,
) -> FileExtract:
    """``extract``, remembered for the last ``EXTRACTS_CACHED`` files by their content; asked for
    ``symbols_only``, a full extract of the same content is as good."""
    key = (path, hashlib.blake2b(source, digest_size=16).digest(), spec.name, conventions, False)
    known = _EXTRACTS.get(key)
    if known is None and symbols_only:
        key = (*key[:-1], True)
        known = _EXTRACTS.get(key)
    if known is None:
        known = _EXTRACTS.put(key, extract(path, source, spec, conventions, symbols_only))
    return known


def _first(item: tuple[int, list[RawImport]]) -> int:
    return item[0]


def _as_attribute(text: str, prefix: str) -> str:
    """A Ruby instance variable as the attribute it is: ``@client.get`` -> ``self.client.get``."""
    return f"self.{text[len(prefix) :]}" if prefix and text.startswith(prefix) else text


def _described(refs: list[RawRef], definitions: list[Definition]) -> list[RawRef]:
    """The references, with RSpec's ``described_class`` written as the class its group (or an
    enclosing one) describes, and ``subject`` as an instance of it (RSpec's implicit subject, and
    what an explicit one usually builds): ``described_class.new(...).call`` and ``subject.call``
    call that class's ``call``. A ``let(:client) { Foo.new }`` types ``client`` for its group."""
    subjects: dict[str, str] = {}
    for d in definitions:  # parents first
        subject = d.extra.get("described") or (subjects.get(d.parent.qualified) if d.parent else None)
        if subject:
            subjects[d.qualified] = subject
    if not subjects and not any(r.kind == "type" and r.name.startswith(":") for r in refs):
        return refs
    described = []
    for r in refs:
        if r.kind == "type" and r.name.startswith(":"):  # ``let(:client) { Foo.new }``: the group's
            r = r._replace(name=r.name[1:], scope=r.scope.rpartition(".")[0])
        head, _, rest = r.receiver.partition(".")
        if r.scope in subjects and head in DESCRIBED:
            receiver = subjects[r.scope] + DESCRIBED[head]
            r = r._replace(receiver=f"{receiver}.{rest}" if rest else receiver)
        described.append(r)
    return described


def _copied_types(refs: list[RawRef], parameters: Mapping[str, tuple[str, ...]]) -> list[RawRef]:
    """The references, with each ``self.x = y`` (a ``copy``) turned into ``self.x``'s own typing
    reference when the same function types ``y`` (a parameter ``y: Store``, ``y = make()``) or,
    ``y`` being no parameter of it, the module does (``_parser = CParser()`` at the top, shared by a
    test class's ``setUp``), and dropped when neither does."""
    if not any(r.kind == "copy" for r in refs):
        return refs
    typed = {(r.scope, r.name): r for r in refs if r.kind in TYPED_REF_KINDS}
    found = []
    for ref in refs:
        source = typed.get((ref.scope, ref.receiver)) if ref.kind == "copy" else None
        if ref.kind == "copy" and source is None and ref.receiver not in parameters.get(ref.scope, ()):
            source = typed.get(("", ref.receiver))
        if source is not None:
            found.append(ref._replace(kind=source.kind, receiver=source.receiver))
        elif ref.kind != "copy":
            found.append(ref)
    return found


def _checked_unions(refs: list[RawRef], checked: set[tuple[int, str, str]]) -> list[RawRef]:
    """The references, with the ``isinstance`` checks of one variable in one scope merged into one
    union type where the first stood (``isinstance(x, A)``, then ``(B, C)``: ``A | B | C``)."""
    if not checked:
        return refs
    classes: dict[tuple[str, str], list[str]] = defaultdict(list)
    for ref in refs:
        if ref.kind == "type" and (ref.line, ref.name, ref.receiver) in checked:
            classes[(ref.scope, ref.name)].append(ref.receiver)
    found = []
    for ref in refs:
        if ref.kind != "type" or (ref.line, ref.name, ref.receiver) not in checked:
            found.append(ref)
        elif (union := classes.pop((ref.scope, ref.name), None)) is not None:
            found.append(ref._replace(receiver=" | ".join(dict.fromkeys(union))))
    return found


def _assigned_attribute(call: Node) -> str:
    """The attribute a call's result is assigned to (``self.parser = yacc.yacc(...)``), else ""."""
    parent = call.parent
    left = parent.child_by_field_name("left") if parent is not None and parent.type == "assignment" else None
    return _text(left) if left is not None and left.type == "attribute" else ""


def _collector_users(refs: list[RawRef], held: dict[tuple[int, str], str]) -> list[RawRef]:
    """The references, with a dispatch added wherever a class calls the object a prefix collector
    built for it (``self.parser = yacc.yacc(module=self)``, then ``self.parser.parse(text)`` runs
    the ``p_*`` rules): the collected methods run there, not where they were collected."""
    if not held:
        return refs
    users: dict[tuple[str, str], str] = {}  # (class scope, attribute) -> prefix
    for ref in refs:
        attribute = held.get((ref.line, ref.name), "") if ref.kind == "dispatch" else ""
        if attribute:
            users[(ref.scope.rpartition(".")[0], attribute)] = ref.name
    added = {
        RawRef("dispatch", prefix, attribute.partition(".")[0], ref.scope, ref.line)
        for ref in refs
        if ref.kind == "call"
        for (cls, attribute), prefix in users.items()
        if ref.receiver == attribute and ref.scope.startswith(f"{cls}.")
    }
    return refs + sorted(added, key=lambda r: (r.line, r.scope))


def _constructed_returns(refs: list[RawRef]) -> dict[str, str]:
    """Per function, the class its first ``return``/``yield`` constructs: directly (``return C()``)
    or through a variable typed in the same function (``app = C(); yield app``); or the call whose
    result it returns, directly (``return app.test_client()`` -> ``app.test_client()``) or through
    a variable (``bar = progressbar(); return bar`` -> ``progressbar()``)."""
    returns = [r for r in refs if r.kind == "returns" or r.kind == "returns_result"]
    if not returns:
        return {}
    typed = {(r.scope, r.name): r.receiver for r in refs if r.kind == "type"}
    results = {(r.scope, r.name): r.receiver + RESULT_MARK for r in refs if r.kind == "result"}
    found: dict[str, str] = {}
    for ref in returns:
        if ref.kind == "returns_result" and ref.scope not in found:
            found[ref.scope] = ref.receiver + RESULT_MARK
        elif ref.kind == "returns" and ref.scope not in found:
            variable = (ref.scope, ref.receiver)
            returned = typed.get(variable) or results.get(variable, ref.receiver)
            if returned[:1].isupper() or "." in returned or returned.endswith(RESULT_MARK):
                found[ref.scope] = returned
    return found


def _constants(
    definitions: list[Definition], imports: list[tuple[int, list[RawImport]]], members: bool = False
) -> tuple[frozenset[str], frozenset[str]]:
    """The module constants a file defines or imports by name (``TIMEOUT``, ``from .log import LOG``),
    and the other names it imports (modules among them: ``net.TIMEOUT``). With ``members``, a class's
    UPPER_CASE fields count too (Java reads them by bare name inside the class)."""
    defined = {
        d.name
        for d in definitions
        if d.kind == "constant"
        and (d.parent is None or (members and d.parent.kind in CLASS_KINDS and _CONSTANT.match(d.name)))
    }
    imported = {imp.alias or imp.name for _, bound in imports for imp in bound} - {"*"}
    constants = {name for name in imported if _CONSTANT.match(name)}
    return frozenset(defined | constants), frozenset(imported - constants)


def _dotted_strings(
    root: Node, source: bytes, hooks: Hooks, deep: bool
) -> list[tuple[int, RefKind, str, str, int]]:
    """A ``named`` reference for each string naming a dotted path that no call replaces, where the
    query would have started a match (``deep``: the tree may hold nodes too deep for that)."""
    return [
        (string.start_byte, "named", _text(content).replace(":", "."), "", content.start_point[0] + 1)
        for string, content in hooks.dotted_strings(root, source)
        if not _replaced(string) and not (deep and _depth(string) > budget.MAX_QUERY_DEPTH)
    ]


def _depth(node: Node) -> int:
    depth = 0
    while (parent := node.parent) is not None:
        node, depth = parent, depth + 1
    return depth


def _replaced(string: Node) -> bool:
    """Whether a string naming a dotted path is the target a call replaces (``monkeypatch.setattr``,
    ``mock.patch``): the test then runs its stand-in, not the definition."""
    arguments = string.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None else None
    return function is not None and _REPLACING.search(_text(function)) is not None


def _looked_up_prefixes(name: Node) -> list[str]:
    """The literal prefixes of the name a ``getattr`` dispatch looks up: the expression's own, or for
    a variable, those of what the enclosing function assigns to it (``method = "visit_" + kind``);
    for a name that is a class's name alone, its shape (``TYPE_NAMED``)."""
    built = [name] if name.type != "identifier" else _assigned(name, _text(name), module=False)
    return sorted({p for right in built if (p := _name_prefix(right) or _type_named(right))})


def dispatched_name(prefix: str, short: str) -> bool:
    """Whether a dispatch by ``prefix`` (a literal prefix, or a class name's shape) may find ``short``."""
    shape = _SHAPES.get(prefix)
    if shape is not None:
        return shape.fullmatch(short) is not None
    return short.startswith(prefix) and short != prefix


def _type_named(expression: Node) -> str:
    """The shape of a name that is a class's name alone: :data:`TYPE_NAMED` for
    ``type(node).__name__``, :data:`UPPER_TYPE_NAMED` for ``node_class.__name__.upper()``; else ""."""
    found = _TYPE_NAME.fullmatch(_text(expression))
    if found is None:
        return ""
    return UPPER_TYPE_NAMED if found.group(1) else TYPE_NAMED


def _name_prefix(expression: Node) -> str:
    """The literal start of a built name: a string's (``"visit_" + kind``), or a module constant's
    (``IMPL_PREFIX + name`` where the module says ``IMPL_PREFIX = "attr_"``)."""
    prefix = _literal_prefix(_text(expression))
    left = expression.child_by_field_name("left") if expression.type == "binary_operator" else None
    if prefix or left is None or left.type != "identifier":
        return prefix
    for value in _assigned(left, _text(left), module=True):
        if found := _LITERAL_NAME.fullmatch(_text(value)):
            return found.group(2)
    return ""


def _assigned(node: Node, variable: str, module: bool) -> list[Node]:
    """What the enclosing function (or, with ``module``, the module) assigns to ``variable``, not
    looking into nested definitions."""
    scopes = ("module",) if module else ("function_definition", "module")
    scope = node.parent
    while scope is not None and scope.type not in scopes:
        scope = scope.parent
    found = []
    stack = list(scope.named_children) if scope is not None else []
    while stack:
        child = stack.pop()
        if child.type == "assignment":
            left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
            if left is not None and right is not None and _text(left) == variable:
                found.append(right)
        if child.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(child.named_children)
    return found


def _literal_prefix(expression: str) -> str:
    """The literal start of a name built at run time: ``"visit_" + kind``, ``f"visit_{kind}"``,
    ``"visit_%s" % kind`` -> ``visit_``; "" for a name that is not built from a literal prefix (or
    is a plain string, which names one attribute)."""
    found = _PREFIX.match(expression)
    if found is None or expression[found.end() :] == found.group(1):
        return ""
    return found.group(2)


def _attribute_name(expression: str) -> str:
    """The attribute ``getattr`` reads: a literal string's text, else :data:`ANY_ATTRIBUTE`."""
    found = _LITERAL_NAME.fullmatch(expression)
    return found.group(2) if found else ANY_ATTRIBUTE


def _supers(refs: list[RawRef], hooks: Hooks) -> dict[str, tuple[str, ...]]:
    """Per definition, what it takes from its bases: a class's bases as written (``werkzeug.Client``),
    a method's calls through ``super()`` (``super().open()`` -> ``open``)."""
    found: dict[str, list[str]] = defaultdict(list)
    for ref in refs:
        if ref.kind == "inherit":
            found[ref.scope].append(f"{ref.receiver}.{ref.name}" if ref.receiver else ref.name)
        elif ref.kind == "call" and hooks.is_super(ref.receiver):
            found[ref.scope].append(ref.name)
    return {scope: tuple(dict.fromkeys(names)) for scope, names in found.items()}


def _fields(
    refs: list[RawRef], classes: set[str], self_names: frozenset[str]
) -> dict[str, tuple[Field, ...]]:
    """Per class, its instances' attributes that its own code types: ``self.x = Client()`` (or
    ``self.x: Client``, ``self.x = make()``) in a method, ``x: Client`` in the class body, or that
    hold a class (``environment_class = Environment`` in the class body). Every
    typing of an attribute, in source order and each once (``self.hook: Final = HookRelay()`` types
    it twice: the resolver takes the first that names a class)."""
    found: dict[str, dict[Field, None]] = defaultdict(dict)
    for ref in refs:
        if ref.kind not in FIELD_KINDS:
            continue
        head, _, attribute = ref.name.partition(".")
        if not attribute and ref.scope in classes:
            found[ref.scope][Field(head, ref.kind, ref.receiver, ref.scope)] = None
            continue
        owner = ref.scope.rpartition(".")[0]
        if head in self_names and attribute.isidentifier() and owner in classes:
            found[owner][Field(attribute, ref.kind, ref.receiver, ref.scope)] = None
    return {cls: tuple(fields) for cls, fields in found.items()}


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _add_definition(
    definitions: list[Definition], captures: dict[str, list[Node]], kind: DefinitionKind, spec: LanguageSpec
) -> None:
    name = _text(captures["name"][0]).replace(".", NAME_DOT)
    node = captures["definition." + kind][0]
    if kind == "constant" and not (
        spec.hooks.constants_any_case or _CONSTANT.match(name) or spec.hooks.holds_registry(node)
    ):
        return
    verb = _text(captures["verb"][0]) if "verb" in captures else name
    if verb != name:  # a spec's block is named by its word and argument: ``it 'parses'``, ``let :user``
        name = f"{verb} {name}"
    definition = Definition(node=node, outer=spec.hooks.outer(node), kind=kind, name=name)
    scope = captures.get("scope")
    if scope:
        definition.extra["scope"] = _text(scope[0])
    described = captures.get("described")
    if described:  # the class a spec group describes: its ``described_class``
        definition.extra["described"] = _text(described[0]).replace(spec.hooks.path_separator, ".")
    definitions.append(definition)


def _nest(definitions: list[Definition], mixins: bool = False) -> list[Definition]:
    """Give each definition its parent and qualified name; drop duplicate captures of one node.
    With ``mixins`` (Ruby), a function in a namespace is a method: the module is mixed into classes."""
    owners = CLASS_KINDS | {CONTAINER_ONLY, "namespace"} if mixins else CLASS_KINDS | {CONTAINER_ONLY}
    unique: dict[tuple[int, int], Definition] = {}
    for d in definitions:
        unique.setdefault((d.node.start_byte, d.node.end_byte), d)
    ordered = sorted(unique.values(), key=lambda d: (d.outer.start_byte, -d.outer.end_byte))
    stack: list[Definition] = []
    for d in ordered:
        while stack and stack[-1].outer.end_byte <= d.outer.start_byte:
            stack.pop()
        d.parent = stack[-1] if stack else None
        owner = d.extra.get("scope")
        if owner:
            d.qualified = f"{owner}.{d.name}"
        else:
            d.qualified = f"{d.parent.qualified}.{d.name}" if d.parent else d.name
        if d.kind == "function" and (owner or (d.parent and d.parent.kind in owners)):
            d.kind = "method"
        stack.append(d)
    return ordered


def _set_up_classes(refs: list[RawRef], definitions: list[Definition]) -> frozenset[str]:
    """The classes of a test module that its top-level code calls a method of
    (``TestCli.load_fixtures("cli.txt")``): such a call attaches tests to the class at run time (one
    per fixture case), which pytest collects there and a user selects by the class."""
    classes = {d.qualified for d in definitions if d.kind == "class" and d.parent is None}
    return frozenset(r.receiver for r in refs if r.kind == "call" and not r.scope and r.receiver in classes)


def _builds_tests(
    refs: list[RawRef], definitions: list[Definition], hooks: Hooks, conventions: TestConventions
) -> bool:
    """Whether the module's top-level code calls a function of its own that builds test classes
    (``load_plugin("table")``, which defines ``TestPlugin`` and publishes it under a name made at
    run time): the module is then the test case, the file pytest runs to collect them."""
    builders = set()
    for d in definitions:
        if hooks.built_test(d, conventions):
            outer = d
            while outer.parent is not None:
                outer = outer.parent
            builders.add(outer.qualified)
    return any(r.kind == "call" and not r.scope and not r.receiver and r.name in builders for r in refs)


def _symbol(
    d: Definition,
    source: bytes,
    spec: LanguageSpec,
    tests: tuple[bool, bool | None, TestConventions],
    set_up: bool,
    constructed: str,
    supers: tuple[str, ...],
    params: tuple[str, ...] | None,
    *,
    body: str,
    fields: tuple[Field, ...],
) -> RawSymbol:
    hooks = spec.hooks
    d.decorators = hooks.decorators(d)
    in_test_file, collected, conventions = tests
    d.is_test, d.is_test_case = hooks.classify_test(d, in_test_file, conventions, collected)
    if set_up and d.is_test and d.kind == "class":
        d.is_test_case = collected is not False  # its tests are attached at run time: the class runs them
    start, end = d.outer.start_point[0] + 1, d.outer.end_point[0] + 1
    return RawSymbol(
        name=d.qualified,
        kind=_SYMBOL_KIND[d.kind],
        start_line=start,
        end_line=end,
        signature=_signature(d.node, source),
        docstring=hooks.docstring(d)[:DOCSTRING_MAX_CHARS],
        size=d.outer.end_byte - d.outer.start_byte,
        is_test=d.is_test,
        is_test_case=d.is_test_case,
        exported=hooks.is_exported(d),
        params=hooks.params(d) if params is None else params,
        decorators=d.decorators,
        words=dotted_words(d.qualified),
        returns=hooks.returns(d) or constructed,
        supers=supers,
        fields=fields,
        body=body,
    )


def _module_symbol(path: str, source: bytes, root: Node, spec: LanguageSpec, in_test_file: bool) -> RawSymbol:
    hooks = spec.hooks
    name = hooks.module_name(path)
    return RawSymbol(
        name=name,
        kind="module",
        start_line=1,
        end_line=max(1, source.count(b"\n") + (0 if source.endswith(b"\n") else 1)),
        signature="",
        docstring=hooks.module_docstring(root)[:DOCSTRING_MAX_CHARS],
        size=len(source),
        is_test=in_test_file,
        words=" ".join(identifier_words(path)),
    )


def _signature(node: Node, source: bytes) -> str:
    """The definition's text up to its body (or its first line), whitespace collapsed."""
    start, body = node.start_byte, node.child_by_field_name("body")
    if body is not None and body.start_byte > start:
        end = body.start_byte
    else:
        end = source.find(b"\n", start, node.end_byte)
        end = node.end_byte if end == -1 else end
    text = source[start:end].decode("utf-8", "replace")  # not node.text: a class's would copy its body
    if "#" in text or "//" in text:  # line breaks are whitespace anyway; only comments need lines
        text = " ".join(_LINE_COMMENT.sub("", line) for line in text.splitlines())
    signature = _SPACES.sub(" ", text).strip().rstrip("{:=").rstrip()
    return signature[:SIGNATURE_MAX_CHARS]


def _scoped_refs(
    refs: list[tuple[int, RefKind, str, str, int]], definitions: list[Definition]
) -> list[RawRef]:
    """Attach each reference to the innermost enclosing definition; a reference repeated within one
    scope is kept once, at its first line (it resolves, and links, the same way every time)."""
    scopes = [
        d.qualified if d.kind != CONTAINER_ONLY else d.extra.get("scope", d.qualified) for d in definitions
    ]
    seen: set[tuple[RefKind, str, str, str]] = set()
    result = []
    refs.sort()
    # one sweep over the references in order and the definitions beside them (``_enclosing``'s answers)
    starts = [d.outer.start_byte for d in definitions]
    ends = [d.outer.end_byte for d in definitions]
    around: list[int] = []  # the definitions around the last reference, innermost last
    following, scope = 0, ""
    for start, kind, name, receiver, line in refs:
        if following < len(starts) and starts[following] <= start:
            while following < len(starts) and starts[following] <= start:
                while around and ends[around[-1]] <= starts[following]:
                    around.pop()
                around.append(following)
                following += 1
            scope = scopes[around[-1]]
        if around and ends[around[-1]] <= start:
            while around and ends[around[-1]] <= start:
                around.pop()
            scope = scopes[around[-1]] if around else ""
        key = (kind, name, receiver, scope)
        if key not in seen:
            seen.add(key)
            result.append(RawRef(kind, name, receiver, scope, line))
    return result


def _scoped_imports(
    imports: list[tuple[int, list[RawImport]]], definitions: list[Definition]
) -> tuple[RawImport, ...]:
    """The imports, each with the function it is written in (``def f(): from x import g`` binds
    ``g`` in ``f`` only); imports at module or class level keep an empty scope."""
    enclosing = _enclosing(definitions)
    result = []
    for start, bound in imports:
        i = enclosing(start)
        scope = definitions[i].qualified if i >= 0 and definitions[i].kind in CALLABLE_KINDS else ""
        result += [imp._replace(scope=scope) for imp in bound] if scope else bound
    return tuple(result)


def _enclosing(definitions: list[Definition]) -> Callable[[int], int]:
    """A lookup: byte offset -> position of the innermost definition around it (-1 for none)."""
    starts = [d.outer.start_byte for d in definitions]
    ends = [d.outer.end_byte for d in definitions]
    parents = _parent_positions(definitions)

    def innermost(offset: int) -> int:
        i = bisect.bisect_right(starts, offset) - 1
        while i >= 0 and ends[i] <= offset:
            i = parents[i]
        return i

    return innermost


def _parent_positions(definitions: list[Definition]) -> list[int]:
    position = {id(d): i for i, d in enumerate(definitions)}
    return [position[id(d.parent)] if d.parent is not None else -1 for d in definitions]


def _count_errors(root: Node) -> int:
    if not root.has_error:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count
