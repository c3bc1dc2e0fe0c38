"""The vocabulary shared by the engine and its front ends: frozen records, no behaviour.

Each closed set of words (symbol kinds, reference kinds, edge types, resolutions, risk levels) is
defined here once, as a ``Literal`` type that the type checker holds every use to, and as the
tuple of its values (``SYMBOL_KINDS``, ...) for code and tests that list them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple, get_args

SymbolKind = Literal[
    "module",  # a file
    "function",
    "method",  # a function defined in a class-like symbol (or a Go/Rust receiver type)
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "type",  # a type alias or declaration (TypeScript, Go)
    "namespace",  # C++, C#
    "constant",  # a module-level UPPER_CASE name
]
SYMBOL_KINDS: tuple[SymbolKind, ...] = get_args(SymbolKind)
CLASS_KINDS: frozenset[SymbolKind] = frozenset({"class", "struct", "interface", "trait", "enum", "type"})
CALLABLE_KINDS: frozenset[SymbolKind] = frozenset({"function", "method"})
# declare types only (a TypeScript interface, a type alias): the compiler checks them, no test runs them
TYPE_ONLY_KINDS: frozenset[SymbolKind] = frozenset({"type", "interface"})

RefKind = Literal[
    "call",  # ``f()``, ``obj.m()``
    "inherit",  # a base class in a class definition
    "read",  # ``self.x`` read without a call: runs a property
    "write",  # ``self.x = v``: runs a property's setter
    "enter",  # ``with expr:``: runs ``__enter__`` and ``__exit__``
    "iterate",  # ``for x in expr``: runs ``__iter__``
    "length",  # ``len(x)``: runs ``__len__``
    "advance",  # ``next(x)``: runs ``__next__``
    "truth",  # ``if x:``, ``while x:``, ``not x``, ``x or y``: runs ``__bool__`` (or ``__len__``)
    "text",  # ``str(x)``, ``repr(x)``, ``f"{x}"``: runs ``__str__``, ``__repr__``, ``__format__``
    "item",  # ``x[k]``: runs ``__getitem__`` (or ``__setitem__``, ``__delitem__``)
    "compare",  # ``x == y``, ``y in x``: runs the comparison methods and ``__contains__``
    "operator",  # ``x + y``, ``x += y``: runs the arithmetic methods
    "type",  # a variable's declared or constructed type (``x: C``, ``x = C()``)
    "alias",  # a variable that holds a class (``cls: type[C]``)
    "result",  # a variable holding a call's result (``x = make()``)
    "element",  # a loop variable over a typed collection (``for x in xs``)
    "returns",  # ``return C(...)`` / ``yield x``: folded into the function's return type
    "returns_result",  # ``return make()``: the callee's return type
    "parametrize",  # a parametrised test's parameters and values
    "value",  # a function named without a call, handed to code that may call it (``sorted(key=f)``)
    "handed",  # a class, or an object built from one, handed to code (``register(Processor(md))``)
    "registered",  # a function stored in a registry (``FILTERS = {"upper": do_upper}``, ``R[k] = f``)
    "lookup",  # a registry read (``FILTERS[name]``, ``FILTERS.get(name)``, ``self._handlers[kind]``)
    "store",  # a registry written (``REGISTRY[name] = f``): its readers may reach what the writer stores
    "dispatch",  # ``getattr(self, "visit_" + kind)``: the name's literal prefix (or a class name's shape)
    "named",  # a definition named by its dotted path in a string (``"pkg.plugins.table"``, ``"pkg.m:Cls"``)
    "uses",  # a module constant read by name (``TIMEOUT``, ``LOG.info(...)``): it changes what reads it
    "copy",  # ``self.store = store``: the attribute takes the variable's declared type (folded at extraction)
    "held",  # ``si = self.app.session_interface``: the variable holds what the attribute chain holds
]
REF_KINDS: tuple[RefKind, ...] = get_args(RefKind)
TYPED_REF_KINDS: frozenset[RefKind] = frozenset(
    {"type", "result", "alias", "element", "held"}
)  # give a variable a type
# a value's class runs one of its dunder methods
PROTOCOL_REF_KINDS: tuple[RefKind, ...] = (
    "length",
    "advance",
    "truth",
    "text",
    "item",
    "compare",
    "operator",
)
# run code without call syntax
IMPLICIT_CALL_KINDS: tuple[RefKind, ...] = ("read", "write", "enter", "iterate", *PROTOCOL_REF_KINDS)

EdgeType = Literal["calls", "imports", "contains", "inherits", "overrides", "tests", "references"]
EDGE_TYPES: tuple[EdgeType, ...] = get_args(EdgeType)

Resolution = Literal[
    "structure",  # the symbol tree itself
    "local",  # defined in the same file and scope
    "self",  # a method of the enclosing class or its bases
    "import",  # followed through an import statement
    "fixture",  # a test fixture in scope
    "package",  # another file of the same package
    "derived",  # overrides and tests, derived from other edges
    "typed",  # a method of the declared or constructed type of the receiver
    "callback",  # reached through a base class outside the repository
    "name",  # a unique name match anywhere in the repository
    # dynamic dispatch that static code can see:
    "registry",  # a function stored in, or a reader of, a registry (a dict of functions, R[k] = f)
    "decorator",  # a decorator in the repository that registers the function it decorates
    "subclass",  # a base class's ``__init_subclass__`` hook registers the subclass
    "dispatch",  # ``getattr(self, "visit_" + ...)``: every method whose name has the prefix (or is a class's)
    "value",  # a function handed as a value to code that may call it (``sorted(key=f)``)
]
DYNAMIC_RESOLUTIONS: frozenset[Resolution] = frozenset(
    {"registry", "decorator", "subclass", "dispatch", "value"}
)
RESOLUTIONS: tuple[Resolution, ...] = get_args(Resolution)
# a dependency path's weakest link ("changed": none; "coverage": a test the coverage data saw run it;
# "uncalled": a fallback test of a method nothing in the repository calls)
PathResolution = Resolution | Literal["changed", "coverage", "uncalled"]

RiskLevel = Literal["low", "medium", "high"]
RISK_LEVELS: tuple[RiskLevel, ...] = get_args(RiskLevel)  # least severe first


class Field(NamedTuple):
    """An attribute a class's code gives a type: ``self.hook = HookRelay()`` in a method, or
    ``hook: HookRelay`` in the class body; ``kind`` and ``text`` as the typing reference has them,
    to be resolved in ``scope`` of the class's file."""

    name: str
    kind: RefKind
    text: str
    scope: str


class RawSymbol(NamedTuple):
    """A definition as extracted from one file, before it has a database id."""

    name: str  # qualified within the file: ``Class.method``, ``outer.inner``
    kind: SymbolKind
    start_line: int  # 1-based, inclusive
    end_line: int
    signature: str
    docstring: str
    size: int  # bytes of source text, decorators included
    is_test: bool = False
    is_test_case: bool = False
    exported: bool = True
    params: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    words: str = ""  # the qualified name split into lower-case words, for full-text search
    returns: str = ""  # the declared return type, or the class a ``return C(...)`` constructs
    supers: tuple[
        str, ...
    ] = ()  # a class: its bases as written; a method: the base methods it calls via super()
    fields: tuple[Field, ...] = ()  # a class: the types its methods give its instances' attributes
    body: str = ""  # the words of its own identifiers, comments and strings (not its nested definitions')


class RawRef(NamedTuple):
    """A use of a name inside ``scope`` (the qualified name of the enclosing symbol, "" for module code)."""

    kind: RefKind
    name: str
    receiver: str  # the object expression of ``a.b.name()``: "a.b"; "" for a bare call
    scope: str
    line: int


class RawImport(NamedTuple):
    """One name bound by an import statement.

    ``module`` is the module as written; ``name`` the member imported from it ("" for the
    module itself, "*" for a wildcard); ``alias`` the local name it is bound to; ``scope`` the
    function the import is written in ("" at module level).
    """

    module: str
    name: str
    alias: str
    line: int
    level: int = 0  # leading dots of a Python relative import
    scope: str = ""


@dataclass(frozen=True, slots=True)
class FileExtract:
    """Everything extraction learns from one file's bytes."""

    path: str
    language: str
    symbols: tuple[RawSymbol, ...]
    refs: tuple[RawRef, ...]
    imports: tuple[RawImport, ...]
    exports: tuple[str, ...] | None = None  # Python ``__all__`` when the module declares one
    parse_errors: int = 0
    partial: str = ""  # why only part of the file was indexed ("" when all of it was)


@dataclass(frozen=True, slots=True)
class Symbol:
    """An indexed symbol. ``id`` is stable while the symbol keeps its file, name and kind."""

    id: int
    path: str
    name: str
    kind: SymbolKind
    language: str
    signature: str
    docstring: str
    start_line: int
    end_line: int
    size: int  # bytes of source text
    is_test: bool
    is_test_case: bool
    exported: bool
    parent_id: int | None = None
    decorators: tuple[str, ...] = ()

    @property
    def short_name(self) -> str:
        """The last component of the qualified name."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        """A human-readable unique handle: ``path:qualified.name``."""
        return f"{self.path}:{self.name}"


class Edge(NamedTuple):
    """A typed, resolved relation between two symbols, with how it was resolved."""

    src: int
    dst: int
    type: EdgeType
    resolution: Resolution
    confidence: float
    line: int = 0


# a link through which the target runs with no call written: a function handed over as a value
# (``sorted(key=f)``), stored in a registry, decorated by the repository's decorator, a subclass hook
HANDING_RESOLUTIONS: frozenset[Resolution] = frozenset({"value", "registry", "decorator", "subclass"})


def runs_target(edge: Edge) -> bool:
    """Whether an edge is a call, or a link through which its target runs without one written: what
    ``callers``, ``callees`` and the hover count."""
    return edge.type == "calls" or (edge.type == "references" and edge.resolution in HANDING_RESOLUTIONS)


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What one run of the indexer did."""

    files: int
    parsed: int
    removed: int
    skipped: dict[str, int]
    symbols: int
    edges: int
    elapsed_ms: int
    walked: bool  # True when the directory is not a git repository and was walked instead
    partial: dict[str, str] = field(default_factory=dict)  # files indexed in part, and why


EvidenceSource = Literal["static", "coverage"]  # where an impacted test came from


@dataclass(frozen=True, slots=True)
class Evidence:
    """Why an impacted symbol depends on a change: its path back, and that path's least sure edge
    (how it was resolved, e.g. ``import`` or ``name``, and the resolver's confidence in it)."""

    resolution: PathResolution
    confidence: float
    path: str
    possible: bool  # reached only through a guess: listed apart, counted in no verdict
    source: EvidenceSource = "static"  # a test: found by the graph, or by coverage data that ran it


@dataclass(frozen=True, slots=True)
class ScoredSymbol:
    """A symbol in an answer, with the parts of its score and the reasons in words."""

    symbol: Symbol
    score: float
    components: dict[str, float]
    reasons: tuple[str, ...]
    distance: int = 0
    changed: bool = False
    tokens: int = 0
    body: str | None = None  # the text shown: the whole source, or None when only the header fits
    evidence: Evidence | None = None  # for an impacted caller or test: how it depends on the change
    reached_by: tuple[str, ...] = ()  # for a changed symbol: test ids of every test that reaches it
    possibly_reached_by: tuple[str, ...] = ()  # ... and of those that reach it only through a guess
    runs: tuple[str, ...] = ()  # a test file: the ids of the tests it made at run time that reach the change
    rank: int = 0  # a task's symbol: its 1-based place in the whole ranking (packing skips some); else 0


@dataclass(frozen=True, slots=True)
class LeftReference:
    """A line the change left using the old name of a symbol it deleted or renamed."""

    name: str  # the symbol's old qualified name
    path: str
    line: int
    scope: str  # the enclosing definition, or ``<module>``


@dataclass(frozen=True, slots=True)
class Impact:
    """The blast radius of a change."""

    changed: tuple[ScoredSymbol, ...] = ()
    callers: tuple[ScoredSymbol, ...] = ()
    tests: tuple[ScoredSymbol, ...] = ()
    risk: RiskLevel = "low"
    reasons: tuple[str, ...] = ()
    changed_files: tuple[str, ...] = ()
    possible_callers: tuple[ScoredSymbol, ...] = ()  # reached only through a guess; not counted
    possible_tests: tuple[ScoredSymbol, ...] = ()  # reached only through a guess; not counted
    left_references: tuple[LeftReference, ...] = ()  # lines still using a deleted or renamed symbol


@dataclass(frozen=True, slots=True)
class ContextPack:
    """The answer every front end renders: ranked symbols within a budget, plus impact for changes."""

    mode: Literal["task", "files", "pr"]
    query: str
    repo: str
    commit: str | None
    budget_tokens: int
    used_tokens: int
    symbols: tuple[ScoredSymbol, ...]
    impact: Impact | None = None
    stats: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Contribution:
    """One scoring component of an explanation: its value, weight and share of the score."""

    name: str
    value: float
    weight: float
    contribution: float


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why one symbol ranked where it did for a task."""

    symbol: Symbol
    task: str
    rank: int | None  # 1-based among all candidates; None when it never became one
    candidates: int
    score: float
    contributions: tuple[Contribution, ...]
    channel_hits: tuple[tuple[str, int, str], ...]  # (channel, rank, detail)
    seed_score: float
    walk_score: float
    walk_rank: int | None
    authority: float
    hub: float
    hops: int | None
    multipliers: dict[str, float]
    recency: str
    notes: tuple[str, ...] = ()


def symbol_test_id(symbol: Symbol) -> str:
    """A runnable test id: a pytest node id for Python (``path::Class::test``), ``path::name`` otherwise;
    a test file stands for the tests it makes at run time: its path."""
    if symbol.kind == "module":
        return symbol.path
    return f"{symbol.path}::{symbol.name.replace('.', '::')}"


@dataclass(frozen=True, slots=True)
class Feedback:
    """What ``feedback`` remembered for a task."""

    task: str
    used: tuple[Symbol, ...]
    useless: tuple[Symbol, ...]
