"""The shapes of the tools' structured content, as ``TypedDict``s: the SDK publishes each as the
tool's ``outputSchema`` and checks every answer against it. They describe the JSON of the
``mnemo`` verbs (``mnemo_core.render``), plus the members a budget-fitted answer adds."""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict  # pydantic reads only these before Python 3.12


class At(TypedDict):
    """The commit an answer was given at, when not the working tree."""

    ref: str
    commit: str


class IndexSymbol(TypedDict):
    """A function, method, class or other symbol of the index."""

    path: str
    name: str
    kind: str
    language: str
    start_line: int
    end_line: int
    signature: str
    is_test: bool


class RankedSymbol(TypedDict):
    """A symbol of an answer, ranked: its score and the reasons for it, the source shown (``body``,
    null when only its header fits) and, for a change, how it is reached. An item of the impact
    leaves out its docstring, components and body, and keeps the first few ids of the tests that
    reach it (``reached_by_count``: how many there are); a symbol whose source is shown leaves out
    the docstring, which the source holds."""

    path: str
    name: str
    display_name: NotRequired[str]  # the name as the symbol's language writes it (Ruby's A::B#c)
    kind: str
    language: str
    start_line: int
    end_line: int
    signature: str
    score: float
    tokens: int
    distance: int
    is_test: bool
    changed: bool
    components: NotRequired[dict[str, float]]
    reasons: list[str]
    docstring: NotRequired[str]
    body: NotRequired[str | None]
    resolution: NotRequired[str]
    confidence: NotRequired[float]
    evidence: NotRequired[str]
    possible: NotRequired[bool]
    source: NotRequired[str]
    reached_by: NotRequired[list[str]]
    reached_by_count: NotRequired[int]
    possibly_reached_by: NotRequired[list[str]]
    possibly_reached_by_count: NotRequired[int]
    runs: NotRequired[list[str]]
    runs_count: NotRequired[int]


class LeftReference(TypedDict):
    """A line a change left using the old name of a symbol it deleted or renamed."""

    name: str
    path: str
    line: int
    scope: str


class ImpactAnswer(TypedDict):
    """The blast radius of a change: what changed, who calls it, which tests reach it, the risk."""

    changed: list[RankedSymbol]
    callers: list[RankedSymbol]
    tests: list[RankedSymbol]
    risk: Literal["low", "medium", "high"]
    reasons: list[str]
    changed_files: list[str]
    possible_callers: list[RankedSymbol]
    possible_tests: list[RankedSymbol]
    left_references: list[LeftReference]


class PackAnswer(TypedDict):
    """``task_context``, ``change_context``, ``files_context``: ranked symbols in a budget. When the
    budget cut a list, ``omitted`` counts what each list left out and ``more`` says how to ask."""

    schema: int
    mode: Literal["task", "files", "pr"]
    query: str
    repo: str
    commit: str | None
    budget_tokens: int
    used_tokens: int
    symbols: list[RankedSymbol]
    impact: NotRequired[ImpactAnswer]
    stats: dict[str, int]
    notes: list[str]
    at: NotRequired[At]
    omitted: NotRequired[dict[str, int]]
    more: NotRequired[str]


class WalkHop(IndexSymbol):
    """A symbol a walk reached: how many hops out, and the call that reached it."""

    depth: int
    resolution: str
    confidence: float
    line: int


class WalkAnswer(TypedDict):
    """``callers`` and ``callees``: the symbols named, and each one reached."""

    schema: int
    symbols: list[IndexSymbol]
    direction: Literal["callers", "callees"]
    hops: list[WalkHop]
    at: NotRequired[At]


class Component(TypedDict):
    """One part of a score: its value, its weight and their product."""

    value: float
    weight: float
    contribution: float


class Channel(TypedDict):
    """A seed channel that matched the symbol, and its rank there."""

    channel: str
    rank: int
    detail: str


class WalkScore(TypedDict):
    """The symbol's place in the call-graph walk."""

    score: float
    rank: int | None
    hops: int | None


class ExplainSymbol(TypedDict):
    """The symbol explained."""

    path: str
    name: str
    kind: str
    start_line: int
    end_line: int


class ExplainAnswer(TypedDict):
    """``explain``: every part of one symbol's score for a task."""

    schema: int
    symbol: ExplainSymbol
    task: str
    rank: int | None
    candidates: int
    score: float
    components: dict[str, Component]
    channels: list[Channel]
    seed_score: float
    walk: WalkScore
    authority: float
    hub: float
    multipliers: dict[str, float]
    recency: str
    notes: list[str]
    at: NotRequired[At]


class Commit(TypedDict):
    """A commit that changed a symbol's lines."""

    sha: str
    author: str
    author_email: str
    date: str
    subject: str
    path: str
    pull_request: int | None


class History(TypedDict):
    """One symbol the name matched, and the commits that changed it, newest first."""

    symbol: IndexSymbol
    commits: list[Commit]
    notes: list[str]


class HistoryAnswer(TypedDict):
    """``symbol_history``."""

    schema: int
    histories: list[History]
    at: NotRequired[At]


class ImpactedTest(TypedDict):
    """A test a change reaches: its runnable id, why, and how it reaches the change."""

    path: str
    name: str
    id: str
    reasons: list[str]
    resolution: NotRequired[str]
    confidence: NotRequired[float]
    evidence: NotRequired[str]
    possible: NotRequired[bool]
    source: NotRequired[str]
    runs: NotRequired[list[str]]


class ImpactedTestsAnswer(TypedDict):
    """``impacted_tests``."""

    schema: int
    tests: list[ImpactedTest]


class FeedbackAnswer(TypedDict):
    """``feedback``: the symbols remembered as useful and useless for the task."""

    schema: int
    task: str
    used: list[IndexSymbol]
    useless: list[IndexSymbol]
