"""Syntax keys: the keyword a name-dispatched handler of a syntax tree stands for, as test evidence.

A visitor (``getattr(self, "visit_" + type(node).__name__)``) dispatches into dozens of handlers, and
every test that runs the visitor reaches each of them statically; which handlers run depends on the
code the test feeds it. Where a handler's name spells a keyword of the language it visits
(``visit_For``, ``visit_ClassDef``, ``visit_Raise``), only tests whose string literals spell that
keyword (``"for x in y: pass"``, ``"{% for x in y %}"``) feed it such code. So the keyword is
evidence like a registry's key (``registry_keys``): a test whose path goes through the handler keeps
it only if one of its strings says the keyword, and when no test does, all are kept. Handlers of
nodes that any code has (``visit_Name``, ``visit_Call``) spell no keyword and need no evidence.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Hashable, Mapping
from typing import TypeVar

from mnemo_core.change.assumptions import Assumption, Fresh, TestSources
from mnemo_core.change.literals import Literals
from mnemo_core.index.store import Store
from mnemo_core.index.textsplit import identifier_words
from mnemo_core.model import CALLABLE_KINDS

# the statement and declaration keywords of the languages code analysers most often visit: Python's
# (hard and soft) and C's; not operators, which also join the words of a name (``struct_or_union``),
# nor constants and placeholders, which say nothing about a node
OPERATORS = frozenset({"and", "or", "not", "in", "is", "as", "_", "type"})
KEYWORDS = frozenset(
    {w for w in (*keyword.kwlist, *keyword.softkwlist) if w.islower() and w not in OPERATORS}
    | {"switch", "case", "default", "struct", "union", "enum", "typedef", "goto", "sizeof"}
)


ISINSTANCE = re.compile(
    r"(?:el)?if\s+isinstance\(\s*[\w.]+\s*,\s*(\(?[\w.]+(?:\s*,\s*[\w.]+)*,?\s*\)?)\s*\)\s*:\s*(?:#.*)?"
)
# Python's syntax node classes by their name in lower case: ``importfrom`` -> ``ImportFrom``
AST_NODES = {
    name.lower(): name
    for name, value in vars(ast).items()
    if isinstance(value, type) and issubclass(value, ast.AST) and name[:1].isupper()
}


def keywords_of(short_name: str) -> frozenset[str]:
    """The keywords a handler's name spells after its dispatch prefix: ``visit_ClassDef`` -> {class,
    def}, ``FOR`` -> {for}, ``do_import`` -> {import}; a name in one word that is a Python syntax
    node's upper-cased (``IMPORTFROM``, ``CLASSDEF``) spells that node's words."""
    words = identifier_words(short_name)
    if len(words) == 1 and words[0] in AST_NODES:
        words = ["", *identifier_words(AST_NODES[words[0]])]
    return frozenset(w for w in words[len(words) > 1 :] if w in KEYWORDS)


def syntax_guard(condition: str) -> Assumption | None:
    """The assumption of an ``if isinstance(node, ast.While):`` (or ``elif``, or a tuple of
    classes) whose every class spells a keyword: its block runs for the inputs that have such a
    node, like a handler named after the keyword; None for any other condition."""
    found = ISINSTANCE.fullmatch(condition)
    if found is None:
        return None
    names = [n.strip(" ()") for n in found.group(1).split(",") if n.strip(" ()")]
    spoken = [_words(name.rsplit(".", 1)[-1]) for name in names]
    if not spoken or not all(spoken):
        return None
    return Assumption.keywords(frozenset().union(*spoken))


def id_keywords(assumption: Assumption) -> frozenset[str]:
    """The keywords of a syntax guard's assumption (empty for any other assumption)."""
    return frozenset(assumption.words) if assumption.kind == "keywords" else frozenset()


def _words(class_name: str) -> frozenset[str]:
    return frozenset(w for w in identifier_words(class_name) if w in KEYWORDS)


Named = TypeVar("Named", bound=Hashable)


def spelled(literals: Mapping[int, Literals], names: Mapping[str, set[Named]]) -> dict[int, set[Named]]:
    """For each test, the handlers whose keywords (``names``) its string literals spell."""
    return {
        test: set().union(*(names[w] for w in strings.words & names.keys()))
        for test, strings in literals.items()
    }


class SyntaxKeywords:
    """Evidence rule: a path into a handler named after a keyword (``visit_For``) of a name-built
    dispatch, or through a syntax guard (``isinstance(node, ast.While)``), assumes input with that
    syntax, and a test's string literals must spell one of its keywords."""

    def needs(self, store: Store, fresh: Fresh) -> set[Assumption]:
        """Fresh syntax guards, and the entries looked up (not handed over) whose names spell a keyword."""
        handlers = store.symbols_by_ids(fresh.looked_up)
        return {
            a
            for a in fresh.classes | fresh.entries
            if id_keywords(a)
            or (a in fresh.entries and a.symbol in handlers and keywords_of(handlers[a.symbol].short_name))
        }

    def names(self, tests: TestSources, assumed: frozenset[Assumption]) -> dict[int, set[Assumption]]:
        """For each test, the handlers and guards whose keywords its string literals spell."""
        return spelled(tests.strings, _keyword_names(tests.store, assumed))


def _keyword_names(store: Store, assumed: frozenset[Assumption]) -> dict[str, set[Assumption]]:
    """The keywords that show a use of each assumed handler of a name-built dispatch, or of each
    syntax guard."""
    names: dict[str, set[Assumption]] = {}
    symbols = store.symbols_by_ids(a.symbol for a in assumed if a.kind == "symbol")
    for sid, symbol in symbols.items():
        for word in keywords_of(symbol.short_name) if symbol.kind in CALLABLE_KINDS else ():
            names.setdefault(word, set()).add(Assumption.of_symbol(sid))
    for a in assumed:
        for word in id_keywords(a):
            names.setdefault(word, set()).add(a)
    return names
