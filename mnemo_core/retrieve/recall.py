"""What the engine remembers, as ranking signals: the session and the task memory.

Pure: the memory file (``mnemo_core.memory``) loads a :class:`Recall` before a task is ranked, and
the ranking reads it here.

- **session**: what the user (or agent) just had in front of them: symbols an answer returned,
  files opened, symbols hovered or edited. Each event counts its kind's weight, halved every
  ``SESSION_HALF_LIFE_S``; a symbol's session component is the sum over its events (and its file's),
  capped at ``SESSION_CAP``. Events older than ``SESSION_WINDOW_S`` are not part of the session.
- **memory**: past tasks whose words resemble this one (Dice overlap of their content words, a
  word most remembered tasks share left out) recall the symbols that were useful for them (said by
  ``mnemo feedback`` or by the commit that landed the task) as a seed channel, and demote the ones
  said to be useless.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mnemo_core.index.textsplit import stem
from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import Keywords, extract_keywords
from mnemo_core.retrieve.seeds import Channel, Strengths
from mnemo_core.vcs.history import relative_date

# A developer's or agent's attention on a piece of code fades over minutes, not hours: what was
# looked at a quarter of an hour ago counts half, an hour ago a sixteenth.
SESSION_HALF_LIFE_S = 15 * 60.0
# A session is the events of the last hour: a CLI user's consecutive commands form one naturally,
# and the next morning starts afresh.
SESSION_WINDOW_S = 60 * 60.0
SESSION_CAP = 1.0  # however often a symbol was touched, the session adds at most its full weight
EVENT_WEIGHTS = {  # how much each kind of event says the symbol matters now
    "edited": 1.0,  # changing it is the strongest sign of interest
    "hovered": 0.6,  # asked about it by name
    "opened": 0.4,  # its file was opened: every symbol there, so weaker
    "returned": 0.25,  # an answer showed it: the reader may not have looked
}
EVENT_WORDS = {"edited": "edited", "hovered": "hovered", "opened": "opened", "returned": "were shown"}
MIN_SIMILARITY = 0.3  # Dice overlap of the words below which a past task is unrelated (1 word in 3 shared)
COMMON_SHARE = 0.5  # a word in more than half of the remembered tasks does not tell them apart...
COMMON_MIN_TASKS = 4  # ...once there are enough tasks to say so
SIMILAR_TASKS = 5  # the most similar remembered tasks consulted
USELESS_DEMOTION = 0.6  # a symbol said useless for an identical task keeps 40 % of its score
MAX_TASK_SHOWN = 60
KeyLookup = Callable[[list[tuple[str, str, str]]], dict[tuple[str, str, str], int]]


@dataclass(frozen=True, slots=True)
class Event:
    """One session event: when, what kind, and the symbol (or, with an empty name, the file)."""

    time: float
    kind: str
    path: str
    name: str = ""
    symbol_kind: str = ""


@dataclass(frozen=True, slots=True)
class RememberedTask:
    """A past task with what was said of its symbols (keys are ``(path, name, kind)``)."""

    text: str
    terms: frozenset[str]
    used: frozenset[tuple[str, str, str]]
    useless: frozenset[tuple[str, str, str]]
    source: str = "feedback"  # "feedback", or the commit that landed the task


@dataclass(frozen=True, slots=True)
class Touch:
    """A candidate's session component and the phrase that says why."""

    value: float
    reason: str


@dataclass(frozen=True)
class Recall:
    """Everything remembered that a ranking may use; empty when memory is off."""

    now: float = 0.0
    events: tuple[Event, ...] = ()
    tasks: tuple[RememberedTask, ...] = ()
    recalled: dict[int, str] = field(default_factory=dict)  # filled by ``memory_channel``: why
    demoted: dict[int, tuple[float, str]] = field(default_factory=dict)  # factor, why

    def session(self, symbols: Mapping[int, Symbol]) -> dict[int, Touch]:
        """The session component of each candidate touched in this session."""
        by_symbol: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
        by_file: dict[str, list[Event]] = defaultdict(list)
        for event in self.events:
            if self.now - event.time > SESSION_WINDOW_S:
                continue
            if event.name:
                by_symbol[(event.path, event.name, event.symbol_kind)].append(event)
            else:
                by_file[event.path].append(event)
        touches = {}
        for sid, symbol in symbols.items():
            events = by_symbol.get((symbol.path, symbol.name, symbol.kind), []) + by_file.get(symbol.path, [])
            if events:
                value = min(SESSION_CAP, sum(self._decayed(e) for e in events))
                touches[sid] = Touch(value, self._phrase(max(events, key=self._decayed)))
        return touches

    def _decayed(self, event: Event) -> float:
        age = max(0.0, self.now - event.time)
        return EVENT_WEIGHTS.get(event.kind, 0.0) * math.pow(0.5, age / SESSION_HALF_LIFE_S)

    def _phrase(self, event: Event) -> str:
        when = relative_date(event.time, self.now)
        what = "its file" if not event.name else "this"
        if event.kind == "returned":
            return f"you were shown this {when}"
        return f"you {EVENT_WORDS.get(event.kind, event.kind)} {what} {when}"

    def similar(self, keywords: Keywords) -> list[tuple[float, RememberedTask]]:
        """The remembered tasks like this one, most similar first, with their similarity in [0, 1]:
        the Dice overlap of their words (stemmed), leaving out words that most remembered tasks
        share (with enough tasks to tell), which say nothing about which task this is."""
        terms = set(_words(keywords))
        if not terms or not self.tasks:
            return []
        frequency: dict[str, int] = defaultdict(int)
        for task in self.tasks:
            for term in task.terms:
                frequency[term] += 1
        count = len(self.tasks)
        common = (
            {t for t, n in frequency.items() if n > COMMON_SHARE * count}
            if count >= COMMON_MIN_TASKS
            else set()
        )
        wanted = terms - common
        scored = []
        for task in self.tasks:
            own = task.terms - common
            if wanted and own:
                scored.append((2 * len(wanted & own) / (len(wanted) + len(own)), task))
        ranked = sorted((s for s in scored if s[0] >= MIN_SIMILARITY), key=lambda s: -s[0])
        return ranked[:SIMILAR_TASKS]

    def memory_channel(self, locate: KeyLookup, keywords: Keywords) -> tuple[Channel, Strengths]:
        """The seed channel of the symbols useful for similar past tasks (and, as a side result in
        ``demoted``, the factor of those said useless)."""
        votes: dict[tuple[str, str, str], float] = defaultdict(float)
        voter: dict[tuple[str, str, str], str] = {}
        useless: dict[tuple[str, str, str], tuple[float, str]] = {}
        for similarity, task in self.similar(keywords):
            shown = _shown(task.text)
            for key in task.used:
                votes[key] += similarity
                how = "useful" if task.source == "feedback" else f"changed by {task.source}"
                voter.setdefault(key, f"{how} for a similar task: {shown}")
            for key in task.useless:
                if key not in useless or useless[key][0] < similarity:
                    useless[key] = (similarity, f"said useless for a similar task: {shown}")
        located = locate([*votes, *useless])
        for key, (similarity, why) in useless.items():
            if key in located:
                self.demoted[located[key]] = (round(1.0 - USELESS_DEMOTION * similarity, 4), why)
        ranked = sorted(
            ((vote, located[key], voter[key]) for key, vote in votes.items() if key in located),
            key=lambda v: (-v[0], v[1]),
        )
        top = ranked[0][0] if ranked else 1.0
        for _, sid, why in ranked:
            self.recalled[sid] = why
        return [(sid, why) for _, sid, why in ranked], {sid: vote / top for vote, sid, _ in ranked}


def terms_of(text: str) -> frozenset[str]:
    """The words a task is remembered by: its content words, stemmed."""
    keywords = extract_keywords(text)
    return frozenset() if keywords.empty else _words(keywords)


def _words(keywords: Keywords) -> frozenset[str]:
    """The task's content words (no stop words, action verbs or code words), stemmed."""
    return frozenset(stem(t) for t in keywords.components)


def _shown(text: str) -> str:
    line = " ".join(text.split())
    return f'"{line[:MAX_TASK_SHOWN]}{"..." if len(line) > MAX_TASK_SHOWN else ""}"'
