"""Registry keys: the strings a keyed registry stores a function under, as evidence for a test.

A function stored in a dict of functions (``FILTERS = {"upper": do_upper}``) runs when code looks it
up by a key that comes from data (a template's ``|upper``, a command line's ``greet``). Statically,
every test that builds the registry's reader reaches every function in it (each test of a template
engine builds an ``Environment``, which copies ``FILTERS``); only the tests that supply the key run
the function. So the key is evidence like a receiver class (``receivers``): a test whose path goes
through a keyed registry keeps that path only when its source names the key or the function, and
when no test does, all are kept. A name-built ``getattr(self, "visit_" + kind)`` is keyed the same
way only where the handler's name spells a keyword (``syntax_keys``): keying every handler would
split a visitor's paths by each of dozens (measured on jinja, queries became tens of times slower).

A function handed over in a call is keyed the same way when the call stores it under a name
(``env.globals.update(get_flashed_messages=get_flashed_messages)``, ``dict(upper=do_upper)``), and
when it is registered beside a predicate (``register_hook_factory(is_typeddict, gen_typeddict)``,
``(is_namedtuple, namedtuple_factory)``): the predicate's subject (``typeddict``) is the key, and a
test shows a use of it in any spelling of its words (``TypedDict``, ``simple_typeddicts()``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from mnemo_core.change.assumptions import Assumption, Fresh, TestSources, symbols_of, words_naming
from mnemo_core.change.sources import generation_sources
from mnemo_core.index.store import Store
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.memo import BoundedCache
from mnemo_core.model import CALLABLE_KINDS
from mnemo_core.retrieve.snippets import SourceCache

WORD_KEY = re.compile(r"\w+")
KEY_MAX_CHARS = 64
KEYWORD_STORES = frozenset({"dict", "update"})  # calls that store each keyword argument under its name
PREDICATE = re.compile(r"\s*(?:[\w.]+\.)?((?:is|has)_(\w+))\s*,")  # a bracket's first item: is_typeddict,
TYPE_NAME = re.compile(  # a class-like name, or a builtin or standard container type
    r"\b(?:(?!None\b|True\b|False\b)[A-Z]\w*|dict|list|tuple|set|frozenset|deque|defaultdict|namedtuple"
    r"|bytes|str|int|float)\b"
)
DOCSTRING = re.compile(r"(\"\"\"|\'\'\')[\s\S]*?\1")  # a triple-quoted string
CALLEE = re.compile(r"([\w.]*)\s*$")
CLOSING = {")": "(", "]": "[", "}": "{"}
KEYED_CACHED = 20_000  # functions whose keys are known (every walk to tests asks again)
_KEYED: BoundedCache[tuple[str, int, int], tuple[frozenset[str], frozenset[str]]] = BoundedCache(KEYED_CACHED)
CALL_LINES = 12  # lines searched back for the bracket a handed-over function is written in


class RegistryEntries:
    """Evidence rule: a path through a keyed registry, or through a function handed over under a
    keyword or beside a predicate, assumes the entry, and a test names one of its keys, its
    predicate's subject (in any spelling) or the function."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """The fresh entries stored under a key or beside a predicate."""
        keys = RegistryKeys(store)
        return {
            a for a in fresh.entries if a.kind == "symbol" and (keys.of(a.symbol) or keys.subjects(a.symbol))
        }

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the assumed functions whose keys (or names) its words use, and the entries
        whose predicate's subject it spells."""
        store = tests.store
        keys = RegistryKeys(store)
        symbols = symbols_of(assumed)
        functions = {sid for sid, s in store.symbols_by_ids(symbols).items() if s.kind in CALLABLE_KINDS}
        named = words_naming(tests.words, _assuming(keys.named(functions))) if functions else {}
        subjects = keys.subjects_named(symbols)
        if subjects:
            for test, found in words_naming(tests.words, _assuming(subjects), spellings).items():
                named.setdefault(test, set()).update(found)
        return named


def _assuming(names: dict[str, set[int]]) -> dict[str, set[Assumption]]:
    return {name: {Assumption.of_symbol(s) for s in ids} for name, ids in names.items()}


class RegistryKeys:
    """The literal keys under which each function is stored in a module-level registry (a constant
    whose dict literal maps ``"key": function`` on the line the registry edge was drawn from)."""

    def __init__(self, store: Store, sources: SourceCache | None = None) -> None:
        self._store = store
        self._sources = sources or generation_sources(store)
        self._generation = (str(store.path), store.generation())

    def of(self, function: int) -> frozenset[str]:
        """The word-like keys ``function`` is stored under (empty: not in a keyed registry)."""
        return self._keyed(function)[0]

    def subjects(self, function: int) -> frozenset[str]:
        """The subjects of the predicates ``function`` is registered beside, in ``compact`` form."""
        return self._keyed(function)[1]

    def subjects_named(self, functions: Iterable[int]) -> dict[str, set[int]]:
        """Each predicate subject (compact) -> the functions registered beside it."""
        names: dict[str, set[int]] = {}
        for sid in functions:
            for subject in self.subjects(sid):
                names.setdefault(subject, set()).add(sid)
        return names

    def _keyed(self, function: int) -> tuple[frozenset[str], frozenset[str]]:
        key = (*self._generation, function)
        found = _KEYED.get(key)
        return found if found is not None else _KEYED.put(key, self._read(function))

    def named(self, functions: Iterable[int]) -> dict[str, set[int]]:
        """Each key (and each keyed function's own name) -> the functions it shows a use of."""
        symbols = self._store.symbols_by_ids(functions)
        names: dict[str, set[int]] = {}
        for sid, symbol in symbols.items():
            keys, subjects = self._keyed(sid)
            for name in {*keys, symbol.short_name} if keys or subjects else ():
                names.setdefault(name, set()).add(sid)
        return names

    def _read(self, function: int) -> tuple[frozenset[str], frozenset[str]]:
        store = self._store
        incoming = store.edges_touching([function], "in")
        edges = [
            e
            for e in incoming
            if e.type == "references" and e.resolution in ("registry", "value") and e.line > 0
        ]
        if not edges:
            return frozenset(), frozenset()
        symbols = store.symbols_by_ids({function, *(e.src for e in edges)})
        target = symbols.get(function)
        if target is None:
            return frozenset(), frozenset()
        name = target.short_name
        keys: set[str] = set()
        subjects: set[str] = set()
        for e in edges:
            holder = symbols.get(e.src)
            if holder is None:
                continue
            lines = self._sources.lines(holder.path)
            if e.line > len(lines):
                continue
            if e.resolution == "registry" and holder.kind == "constant":
                text = lines[e.line - 1]
                if name in text:  # the pattern spells the name: a line without it holds no entry
                    keys.update(m.group(2) for m in _entry(name).finditer(text))
            elif e.resolution == "value":
                stored, predicates = handed_keys(lines, e.line, name)
                keys |= stored
                for predicate, subject in predicates:
                    subjects |= self._types_tested(predicate, subject)
        return frozenset(k for k in keys if WORD_KEY.fullmatch(k)), frozenset(subjects)

    def _types_tested(self, predicate: str, subject: str) -> set[str]:
        """The compact names of the types a predicate of the repository tests for: its subject
        (``is_typeddict`` -> ``typeddict``) where its body spells it, and the types its body
        names (``is_mapping``: ``dict``, ``Mapping``); none where the body does not spell the
        subject (``has_with_generic``: what it tests for is not a name a test would write)."""
        found: set[str] = set()
        ids = self._store.symbol_ids_by_short_names([predicate]).get(predicate, [])
        for symbol in self._store.symbols_by_ids(ids).values():
            if symbol.kind not in CALLABLE_KINDS:
                continue
            lines = self._sources.lines(symbol.path)[symbol.start_line : symbol.end_line]
            body = DOCSTRING.sub("", "\n".join(lines))  # the code, not what its prose mentions
            if any(subject in spellings(word) for word in WORD_KEY.findall(body)):
                found |= {subject, *(compact(t) for t in TYPE_NAME.findall(body))}
        return found


def _entry(name: str) -> re.Pattern[str]:
    """``"key": name`` (or ``"key": module.name``, or its dotted path in a string,
    ``"key": "pkg.mod.name"``) in a dict literal's line."""
    return re.compile(
        rf"""(["'])([^"'\\\n]{{1,{KEY_MAX_CHARS}}})\1\s*:\s*["']?(?:[\w.]+[.:])?{re.escape(name)}\b"""
    )


def handed_keys(lines: list[str], line: int, name: str) -> tuple[set[str], set[tuple[str, str]]]:
    """The keys a call on ``line`` stores function ``name`` under (``update(key=name)``), and the
    predicates it is registered beside (``(is_typeddict, name)``), each with its compact subject."""
    keys: set[str] = set()
    subjects: set[tuple[str, str]] = set()
    text = lines[line - 1]
    if name not in text:  # the pattern spells the name: no match, and no pattern to compile
        return keys, subjects
    for m in re.finditer(rf"(?<![\w.])(?:(\w+)\s*=\s*)?(?:[\w.]+\.)?{re.escape(name)}\b(?!\s*\()", text):
        opened = _opening(lines, line, m.start())
        if opened is None:
            continue
        callee, inside = opened
        if m.group(1) and callee.rsplit(".", 1)[-1] in KEYWORD_STORES:
            keys.add(m.group(1))
        elif not m.group(1) and (predicate := PREDICATE.match(inside)):
            subjects.add((predicate.group(1), compact(predicate.group(2))))
    return keys, subjects


def _opening(lines: list[str], line: int, column: int) -> tuple[str, str] | None:
    """The innermost bracket open at ``column`` of ``line`` (1-based): the name before it (a
    callee; empty for a tuple or list) and the text from it to the column."""
    depth = 0
    row, col = line - 1, column
    while row >= max(line - CALL_LINES, 0):
        text = lines[row]
        for i in range(min(col, len(text)) - 1, -1, -1):
            char = text[i]
            if char in CLOSING:
                depth += 1
            elif char in "([{":
                if depth == 0:
                    if row == line - 1:
                        inside = text[i + 1 : column]
                    else:
                        inside = "\n".join(
                            [text[i + 1 :], *lines[row + 1 : line - 1], lines[line - 1][:column]]
                        )
                    callee = CALLEE.search(text[:i])
                    return (callee.group(1) if callee else ""), inside
                depth -= 1
        row -= 1
        col = len(lines[row]) if row >= 0 else 0
    return None


def compact(word: str) -> str:
    """A name's words joined in lower case: ``TypedDict``, ``typed_dict`` and ``typeddict`` alike."""
    return word.replace("_", "").lower()


def spellings(word: str) -> set[str]:
    """The compact forms an identifier can name a subject by: itself, each of its words, each two
    adjacent words, each with a plural ``s`` dropped (``simple_typeddicts`` -> ``typeddict``)."""
    parts = identifier_words(word)
    forms = {compact(word), *parts, *(a + b for a, b in itertools.pairwise(parts))}
    return forms | {f[:-1] for f in forms if f.endswith("s") and len(f) > 3}
