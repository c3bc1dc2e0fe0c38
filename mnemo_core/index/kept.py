"""Which of a file's references extraction keeps: those resolution can use.

Most references a query finds lead nowhere: an attribute read on a variable nothing types, a
plain variable handed to a call. ``named_values`` and ``kept_refs`` drop them once each reference
has its scope; ``possibly_kept`` drops beforehand those that neither would keep in any scope, so
that scoping and the passes between see half as many. The query's matches of the kinds it may drop
are held back as their nodes (``Pending``) until the file's typed, defined and imported names are
known, and most are dropped on their bytes: their texts, lines and tuples are never built.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tree_sitter import Node

from mnemo_core.index.languages.base import Definition, Hooks, text_in
from mnemo_core.model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    PROTOCOL_REF_KINDS,
    TYPED_REF_KINDS,
    RawImport,
    RawRef,
    RefKind,
)

ANY_ATTRIBUTE = "*"  # the name of a ``getattr(obj, name)`` read whose name is not a literal
# RSpec's names for the class the enclosing ``describe Foo`` names, and for an instance of it
DESCRIBED = {"described_class": "", "subject": ".new()"}
_VALUE_KINDS: frozenset[RefKind] = frozenset({"value", "registered", "handed"})


def named_values(
    refs: list[RawRef],
    definitions: list[Definition],
    imports: list[tuple[int, list[RawImport]]],
    self_names: frozenset[str],
    package_scope: bool = False,
) -> list[RawRef]:
    """The references, with functions and classes named as values (handed to a call, stored in a
    registry) kept only where the name is one the file defines or imports, or a variable of a known
    class stored in a collection: most arguments are plain variables. With ``package_scope`` (Go, Java),
    a capitalised name is kept too: another file of the package may define it, and no import says so."""
    if not any(r.kind in _VALUE_KINDS for r in refs):
        return refs
    defined = {d.name for d in definitions if d.kind in CALLABLE_KINDS or d.kind in CLASS_KINDS}
    imported = {(imp.alias or imp.name or imp.module).split(".")[0] for _, bound in imports for imp in bound}
    typed = {(r.scope, r.name) for r in refs if r.kind == "type"}

    def known(r: RawRef) -> bool:
        if package_scope and (r.receiver or r.name)[:1].isupper():
            return True  # Go's exported names, Java's classes: maybe another file of the package's
        if not r.receiver:
            held = r.kind == "handed" and (r.scope, r.name) in typed  # an object of a known class
            return r.name in defined or r.name in imported or held
        if r.receiver in self_names:
            return r.name in defined
        return r.receiver.split(".")[0] in imported

    return [r for r in refs if r.kind not in _VALUE_KINDS or known(r)]


def kept_refs(refs: list[RawRef], self_names: frozenset[str], in_test_file: bool) -> tuple[RawRef, ...]:
    """The references resolution uses: not returns (folded into symbols), attribute reads only on
    ``self``, on a variable typed in the same scope (``result = runner.invoke(); result.output``),
    through a chain of attributes starting at either (``ctx.request.blueprints``)
    or through ``getattr`` with a name built at run time (a module's ``__getattr__`` may run); and
    values a protocol runs on (``len(x)``, ``x == y``) only where their class can be known: ``self``,
    its attributes, a call's result, a variable typed in the same scope, or in a test file any
    plain name (a fixture parameter is typed by its fixture)."""
    typed = {(r.scope, r.name) for r in refs if r.kind in TYPED_REF_KINDS}

    def known(r: RawRef) -> bool:
        value = r.name
        return (
            value in self_names
            or value.endswith(")")
            or value.startswith("self.")
            or (r.scope, value) in typed
            or (in_test_file and value.isidentifier())
        )

    written = {(r.line, r.scope, r.receiver, r.name) for r in refs if r.kind == "write"}
    return tuple(
        r
        for r in refs
        if r.kind not in ("returns", "returns_result")
        and (r.kind != "read" or (r.line, r.scope, r.receiver, r.name) not in written)  # ``x.a = 1``: a write
        and (
            r.kind not in ("read", "write")
            or r.receiver.split(".", 1)[0] in self_names
            or (r.scope, r.receiver.split(".", 1)[0]) in typed
            or r.name == ANY_ATTRIBUTE
        )
        and (r.kind not in PROTOCOL_REF_KINDS or known(r))
    )


# the kinds of reference whose raw matches extraction may hold back as nodes (``Pending``) until the
# file's typed names are known: none of them types a variable, so holding them back changes no ``typed``
DEFERRED_KINDS: frozenset[RefKind] = frozenset({"read", "write", "value", "registered", *PROTOCOL_REF_KINDS})
# a raw reference held back as its nodes: (start byte, kind, the name's node, the receiver's node or None)
Pending = tuple[int, RefKind, Node, Node | None]
_ASTERISK = ANY_ATTRIBUTE.encode()
_DESCRIBED_HEADS = frozenset(name.encode() for name in DESCRIBED)
_TESTED_KINDS = DEFERRED_KINDS  # the kinds ``possibly_kept``'s test may drop: it keeps every other


def possibly_kept(
    refs: list[tuple[int, RefKind, str, str, int]],
    definitions: list[Definition],
    imports: list[tuple[int, list[RawImport]]],
    hooks: Hooks,
    in_test_file: bool,
    pending: Sequence[Pending] = (),
    source: bytes = b"",
) -> list[tuple[int, RefKind, str, str, int]]:
    """The raw references without those ``_named_values`` and ``_kept`` drop whatever scope they
    end up in (half of them: most attribute reads are on variables nothing types), so scoping and
    every pass after it skip them: reads and writes on a receiver that no reference of the file
    types (in any scope) and that is not the object itself; values a protocol runs on, likewise;
    functions named as values that the file neither defines nor imports. RSpec's described names
    are kept: their receivers are rewritten later.

    ``pending``: references of ``DEFERRED_KINDS`` held back as nodes of the tree parsed from
    ``source`` (their name's text as is, their receiver's as is or ""): most are dropped on their
    bytes, before their texts and lines are built, and the rest join ``refs`` as the same tuples."""
    typed = {
        n
        for _, kind, name, _, _ in refs
        if kind in TYPED_REF_KINDS or kind == "copy"
        for n in (name, name[1:])
    }
    defined = {d.name for d in definitions if d.kind in CALLABLE_KINDS or d.kind in CLASS_KINDS}
    imported = {(imp.alias or imp.name or imp.module).split(".")[0] for _, bound in imports for imp in bound}
    self_names, package = hooks.self_names, hooks.shares_package_scope()

    def possible(kind: RefKind, name: str, receiver: str) -> bool:
        if kind == "read" or kind == "write":
            head = receiver.split(".", 1)[0]
            return head in self_names or head in typed or head in DESCRIBED or name == ANY_ATTRIBUTE
        if kind in PROTOCOL_REF_KINDS:
            return (
                in_test_file
                or name in self_names
                or name.endswith(")")
                or name.startswith("self.")
                or name in typed
            )
        if (kind == "value" or kind == "registered") and not receiver:
            return name in defined or name in imported or (package and name[:1].isupper())
        return True

    found = [ref for ref in refs if ref[1] not in _TESTED_KINDS or possible(ref[1], ref[2], ref[3])]
    if pending:
        values = _encoded(self_names | typed)
        heads = values | _DESCRIBED_HEADS
        named = _encoded(defined | imported)
        for ref in pending:
            if _impossible(ref[1], ref[2], ref[3], source, (heads, values, named), in_test_file, package):
                continue
            built = pending_ref(ref, source)
            if possible(built[1], built[2], built[3]):
                found.append(built)
    return found


def pending_ref(ref: Pending, source: bytes) -> tuple[int, RefKind, str, str, int]:
    """The raw reference a held-back one stands for: its name's text, its receiver's, its line."""
    start, kind, name, receiver = ref
    held = "" if receiver is None else text_in(source, receiver)
    return (start, kind, text_in(source, name), held, name.start_point[0] + 1)


def _encoded(names: Iterable[str]) -> frozenset[bytes]:
    return frozenset(n.encode() for n in names)


def _impossible(
    kind: RefKind,
    name: Node,
    receiver: Node | None,
    source: bytes,
    known: tuple[frozenset[bytes], frozenset[bytes], frozenset[bytes]],
    in_test_file: bool,
    package: bool,
) -> bool:
    """Whether ``possibly_kept``'s test drops a pending reference, read from its ASCII bytes
    (``known``: the encoded heads a read may start with, the names a protocol's value may be, the
    names a value may be); False when it may keep it, or when its text is not ASCII (two byte
    strings may then decode alike)."""
    heads, values, named = known
    if kind == "read" or kind == "write":
        held = b"" if receiver is None else source[receiver.start_byte : receiver.end_byte]
        head = held.split(b".", 1)[0]
        return head.isascii() and head not in heads and source[name.start_byte : name.end_byte] != _ASTERISK
    if in_test_file or receiver is not None:
        return False
    text = source[name.start_byte : name.end_byte]
    if not text.isascii():
        return False
    if kind in PROTOCOL_REF_KINDS:
        return text not in values and not text.endswith(b")") and not text.startswith(b"self.")
    return text not in named and not (package and text[:1].isupper())
