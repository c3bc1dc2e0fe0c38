"""Opt-in flags: a call that runs only when an option off by default is on, as test evidence.

``if self.deprecated: warn(...)`` runs for the tests that build a deprecated command, and ``if
required and deprecated: raise ...`` for those that pass ``required=True`` too; every other test
that reaches the function skips it. A test that turns such an option on names it (``deprecated=True``),
so the path through a call guarded by ``if <flag>`` (or ``if self.<flag>``, ``... is not None``, the
first of ``and``-ed terms) assumes the flag, and a test keeps it only if its source names the flag,
unless none does, or so many do that it is a staple (``receivers``). Only boolean options off by
default count: a parameter of the calling function (that the function does not set itself), or of its
class's ``__init__`` for ``self.<flag>``, whose default is ``False``. A flag on by default is taken by
the tests that never name it, and one that defaults to ``None`` is mostly an object the code hands
over itself (``BadParameter(param=self)``), which no test names.
"""

from __future__ import annotations

import re

from mnemo_core.change.assumptions import Assumption, Fresh, TestSources, words_naming
from mnemo_core.change.sources import generation_sources
from mnemo_core.change.syntax_keys import syntax_guard
from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache
from mnemo_core.model import Symbol

GUARD = re.compile(r"(?:el)?if\s+(self\.)?([A-Za-z_]\w*)(?:\s+is\s+not\s+None)?\s*(?:\band\b.*)?:\s*(?:#.*)?")
MIN_FLAG_CHARS = 4  # ``x``, ``ok``, ``cb``: too short to find in a test's source by chance alone
GUARDED_CACHED = 20_000  # callers whose guarded lines are known
_GUARDED: BoundedCache[tuple[str, int, int], dict[int, Assumption]] = BoundedCache(GUARDED_CACHED)


def flag_word(assumption: Assumption) -> str | None:
    """The word of a flag's assumption, or None for any other assumption."""
    return assumption.words[0] if assumption.kind == "flag" else None


class FlagWords:
    """Evidence rule: a path through a call that runs only when an opt-in flag is on assumes the
    flag, and a test names it by the flag's word (``deprecated=True``)."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """Every fresh flag: a test that turns the option on spells it."""
        return {a for a in fresh.classes | fresh.entries if a.kind == "flag"}

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the flags whose words its sources use."""
        words: dict[str, set[Assumption]] = {}
        for a in assumed:
            if (word := flag_word(a)) is not None:
                words.setdefault(word, set()).add(a)
        return words_naming(tests.words, words) if words else {}


class OptInFlags:
    """The opt-in flag (or syntax key, ``syntax_keys.syntax_guard``) guarding each call site, read
    from the caller's source once per index generation (every walk to tests crosses the same
    callers again)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._key = (str(store.path), store.generation())
        self._sources = generation_sources(store)
        self._seen: dict[int, dict[int, Assumption]] = {}
        self._inits: dict[int, str] = {}  # each class's ``__init__`` signature

    def guard(self, caller: Symbol, line: int) -> Assumption | None:
        """The assumption of the ``if`` whose body holds ``caller``'s call at ``line``, if any."""
        guarded = self._seen.get(caller.id)
        if guarded is None:
            key = (*self._key, caller.id)
            guarded = _GUARDED.get(key)
            if guarded is None:
                guarded = _GUARDED.put(key, self._read(caller))
            self._seen[caller.id] = guarded
        return guarded.get(line)

    def _read(self, caller: Symbol) -> dict[int, Assumption]:
        """Each statement line of ``caller`` directly in the body of an opt-in or syntax ``if`` (not
        in a block nested there: ``if optimize: try: read()`` reads whatever the ``try`` says), with
        its assumption."""
        lines = self._sources.lines(caller.path)
        guarded: dict[int, Assumption] = {}
        end = min(caller.end_line, len(lines))
        assigned: dict[str, int] | None = None  # read when a guard first needs it
        for at in range(caller.start_line, end):  # 0-based index of the line after the ``def``
            stripped = lines[at].strip()
            if not stripped.startswith(("if ", "elif ")):
                continue
            if assigned is None and GUARD.fullmatch(stripped):
                assigned = _first_assignments(lines, caller.start_line, end)
            assumed = self._flag(caller, at, stripped, assigned or {}) or syntax_guard(stripped)
            if assumed is None:
                continue
            indent, body, inner = _indent(lines[at]), at + 1, None
            while body < end and (not lines[body].strip() or _indent(lines[body]) > indent):
                if lines[body].strip():
                    inner = inner if inner is not None else _indent(lines[body])
                    if _indent(lines[body]) == inner:  # the block's own statements, not nested ones'
                        guarded[body + 1] = assumed
                body += 1
        return guarded

    def _flag(self, caller: Symbol, at: int, stripped: str, assigned: dict[str, int]) -> Assumption | None:
        """The opt-in flag the ``if`` on line ``at`` tests, if it tests one (``assigned``: the
        first line of the caller that assigns each name)."""
        found = GUARD.fullmatch(stripped)
        if found is None or len(found.group(2)) < MIN_FLAG_CHARS:
            return None
        flag, on_self = found.group(2), bool(found.group(1))
        if not on_self and assigned.get(flag, at) < at:
            return None  # the function sets it itself: no test need pass it
        signature = self._init_of(caller) if on_self else caller.signature
        return Assumption.flag(flag) if _off_by_default(signature, flag) else None

    def _init_of(self, method: Symbol) -> str:
        """The signature of the ``__init__`` of the class ``method`` is defined in ("" if none)."""
        cls = method.parent_id
        if cls is None:
            return ""
        if cls not in self._inits:
            members = self._store.children_of({cls}).get(cls, [])
            self._inits[cls] = next((m.signature for m in members if m.short_name == "__init__"), "")
        return self._inits[cls]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# a line that assigns a name (``name = ...``, ``name: int = ...``, ``name += ...``): the name is the
# whole word the line starts with, since what follows it is never a word character
ASSIGNMENT = re.compile(r"\s*(\w+)\s*(?::[^=]*)?[-+|&]?=(?!=)")
# what follows a parameter's name when it defaults to False: an annotation, then ``= False``. Matched
# after each whole-word occurrence of the flag, it finds what one pattern per flag name would (a
# search for ``\bflag`` then this), without compiling a pattern per name (0.5 ms each, and a walk to
# tests meets dozens of flags)
FALSE_DEFAULT = re.compile(r"\s*(?::[^=,()]*(?:\[[^\]]*\])?[^=,()]*)?=\s*False\b")
WORD_CHAR = re.compile(r"\w")


def _first_assignments(lines: list[str], start: int, end: int) -> dict[str, int]:
    """The first of ``lines[start:end]`` that assigns each name, by index (one pass for every
    guard of a function)."""
    first: dict[str, int] = {}
    for at in range(start, end):
        if (found := ASSIGNMENT.match(lines[at])) is not None:
            first.setdefault(found.group(1), at)
    return first


def _off_by_default(signature: str, flag: str) -> bool:
    """Whether ``signature`` has a parameter ``flag`` whose default is ``False`` (a ``None`` default
    is mostly an object the code itself hands over)."""
    at = signature.find(flag)
    while at >= 0:
        whole = at == 0 or not WORD_CHAR.match(signature, at - 1)  # ``\bflag``: the flag begins a word
        if whole and FALSE_DEFAULT.match(signature, at + len(flag)):
            return True
        at = signature.find(flag, at + 1)
    return False
