"""A task in words -> search terms in tiers, strongest first.

- **exact**: text in backticks, taken literally (`Session.get_cookie`).
- **compounds**: identifiers as written (``snake_case``, ``CamelCase``, ``dotted.paths``, ``call()``)
  and bigrams of adjacent content words joined both ways (``session cookie`` -> ``session_cookie``,
  ``sessionCookie``), since tasks often name code in plain words.
- **components**: the lower-case parts of everything above and the remaining content words, with
  common abbreviations expanded (``cfg`` -> ``config``).
- **words**: for full-text search, every word of the task, identifiers split, minus English function
  words only: BM25's inverse document frequency already discounts a common word ("file", "option",
  "add"), while a stop list would throw away the rare cases where it is the point.

Stop words (English, code words such as "function", and action verbs such as "add" or "fix") never
become terms. Test words ("test", "pytest", "fixture") in the task's first line mark the task as
being about tests; only the generic ones ("test", "spec") are dropped from the terms, since
"fixture" or "unittest" can name product code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from mnemo_core.index.textsplit import identifier_words

MAX_TASK_CHARS = 4000  # longer tasks are truncated: the head of a task carries its intent
MAX_WORDS = 64  # full-text words kept, in order: past this a long description adds noise and time
MIN_TERM_CHARS = 2

ENGLISH_STOP = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either else etc even ever every few for
from further get gets getting had has have having he her here hers him his how however i if in into is it
its itself just let lets like may me might more most much must my no nor not now of off on once one only
or other our ours out over own per please rather same she should since so some such than that the their
them then there these they this those though through thus to too under until up upon us very via was we
were what when where whether which while who whom whose why will with within without would yet you your
instead currently already still always never new old way ways thing things something anything able
see also eg ie e.g i.e
sure make makes making made need needs needed want wants wanted""".split()  # noqa: SIM905 -- a word list reads and diffs best as prose
)

CODE_STOP = frozenset(
    """
function functions method methods class classes file files code module modules line lines variable
variables value values param params parameter parameters argument arguments arg args return returns
returned object objects type types call calls called calling implementation impl logic behaviour
behavior feature features issue issues bug bugs error errors case cases default defaults example
examples option options work works working correctly properly instead use used uses using""".split()  # noqa: SIM905 -- a word list reads and diffs best as prose
)

ACTION_VERBS = frozenset(
    """
add adds added adding fix fixes fixed fixing update updates updated updating remove removes removed
removing delete deletes deleted change changes changed changing implement implements implemented
support supports supported refactor refactors refactored rename renames renamed move moves moved
improve improves improved allow allows allowed handle handles handled ensure ensures ensured avoid
avoids avoided prevent prevents prevented introduce introduces introduced replace replaces replaced
clean cleanup simplify simplified tweak tweaks bump bumps revert reverts reverted document documents
deprecate deprecated drop drops dropped enable enables enabled disable disables disabled respect
respects respected check checks checked""".split()  # noqa: SIM905 -- a word list reads and diffs best as prose
)

TEST_WORDS = frozenset(
    {"test", "tests", "testing", "pytest", "unittest", "spec", "specs", "fixture", "fixtures"}
)
GENERIC_TEST_WORDS = frozenset(
    {"test", "tests", "testing", "spec", "specs"}
)  # match every test: no search value

ABBREVIATIONS = {
    "cfg": "config",
    "conf": "config",
    "ctx": "context",
    "db": "database",
    "msg": "message",
    "req": "request",
    "res": "response",
    "resp": "response",
    "auth": "authentication",
    "env": "environment",
    "err": "error",
    "fn": "function",
    "func": "function",
    "init": "initialize",
    "str": "string",
    "dir": "directory",
    "dirs": "directories",
    "repo": "repository",
    "idx": "index",
    "num": "number",
    "opts": "options",
    "attr": "attribute",
    "attrs": "attributes",
    "param": "parameter",
    "util": "utility",
    "utils": "utilities",
    "tmp": "temporary",
    "async": "asynchronous",
    "conn": "connection",
    "impl": "implementation",
    "info": "information",
    "spec": "specification",
    "src": "source",
    "dest": "destination",
    "len": "length",
}

_BACKTICK = re.compile(r"`([^`]+)`")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
_ISSUE_REF = re.compile(r"(?:#\d+|\bgh-\d+\b|https?://\S+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Keywords:
    """Search terms extracted from a task, in tiers."""

    exact: tuple[str, ...]
    compounds: tuple[str, ...]
    components: tuple[str, ...]
    words: tuple[str, ...] = ()
    about_tests: bool = False
    truncated: bool = False

    @property
    def empty(self) -> bool:
        """True when the task gave nothing to search for."""
        return not (self.exact or self.compounds or self.components)


def _is_stop(word: str) -> bool:
    lower = word.lower()
    return lower in ENGLISH_STOP or lower in CODE_STOP or lower in ACTION_VERBS or len(lower) < MIN_TERM_CHARS


def _is_identifier_like(token: str) -> bool:
    """snake_case, CamelCase, dotted.path or call() — written the way code is written."""
    core = token.removesuffix("()")
    return (
        "_" in core.strip("_") or "." in core or token.endswith("()") or bool(re.search(r"[a-z][A-Z]", core))
    )


def extract_keywords(text: str) -> Keywords:
    """Split a task into exact, compound and component terms (deterministic, order-preserving)."""
    truncated = len(text) > MAX_TASK_CHARS
    if truncated:
        text = text[: MAX_TASK_CHARS + 1].rsplit(None, 1)[0]
    text = _ISSUE_REF.sub(" ", text)
    exact = _unique(m.strip() for m in _BACKTICK.findall(text) if m.strip())
    plain = _BACKTICK.sub(" ", text)
    tokens = _TOKEN.findall(plain)
    written = [t.removesuffix("()") for t in tokens if _is_identifier_like(t)]
    words = [t for t in tokens if not _is_identifier_like(t)]
    content = [w for w in words if not _is_stop(w)]
    about_tests = _about_tests(plain)
    components: list[str] = []
    for term, as_code in [*((t, True) for t in (*exact, *written)), *((w, False) for w in content)]:
        for part in identifier_words(term):
            if len(part) < MIN_TERM_CHARS or part in GENERIC_TEST_WORDS or (not as_code and _is_stop(part)):
                continue
            components.append(ABBREVIATIONS.get(part, part))
            if part in ABBREVIATIONS:
                components.append(part)
    return Keywords(
        exact=tuple(exact),
        compounds=tuple(_unique([*written, *_bigrams(words)])),
        components=tuple(_unique(components)),
        words=tuple(_search_words(exact, tokens)),
        about_tests=about_tests,
        truncated=truncated,
    )


def _search_words(exact: list[str], tokens: list[str]) -> list[str]:
    """The task's words for full-text search (see the module docstring)."""
    words = (part for term in (*exact, *tokens) for part in identifier_words(term))
    unwanted = ENGLISH_STOP | GENERIC_TEST_WORDS
    kept = (w for w in words if len(w) >= MIN_TERM_CHARS and w not in unwanted)
    return _unique(kept)[:MAX_WORDS]


def _about_tests(text: str) -> bool:
    """Whether the task's first line (its summary) talks about tests; a body's "add tests" bullet
    is routine, not the point of the task."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return any(part in TEST_WORDS for token in _TOKEN.findall(first) for part in identifier_words(token))


def _bigrams(words: list[str]) -> list[str]:
    """Adjacent content words joined as code would join them."""
    joined: list[str] = []
    for first, second in pairwise(words):
        if _is_stop(first) or _is_stop(second) or first.lower() == second.lower():
            continue
        a, b = first.lower(), second.lower()
        joined += [f"{a}_{b}", f"{a}{b.capitalize()}", f"{a.capitalize()}{b.capitalize()}"]
    return joined


def _unique(items: object) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:  # type: ignore[attr-defined]
        seen.setdefault(str(item), None)
    return list(seen)
