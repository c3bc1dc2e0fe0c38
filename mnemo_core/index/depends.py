"""What a change of the tree changes for resolution, as the keys ``World.reads`` notes.

Resolving a file notes what it read of other files (the keys stored in the ``deps`` table): a
file's symbols of one qualified name (``t``), or all of them (``f``); a symbol's name, kind, parent
and test flags (``y``: lines aside, only a file's own references are placed by line), and apart
from these its parameters, decorators, return type and bases as written (``yp``, ``yd``, ``yr``,
``ys``) and its typings of one attribute (``yf``); a class's members and the classes of a name in a
member scope (``m``, ``c``); the repository-wide names it counted (``n``: the by-name fallback
depends on how many definitions a name has, not only whether one exists); a file's imports as
written and what they bind (``x``, ``b``); which classes' resolved base classes it followed (``i``,
one key a class); which names it asked were properties (``p``); a package's files (``k``); a
fixture looked for where no file is (``fx``); path lookups (``q``: a submodule, a module by dotted
name); every class's subclasses (``sub``); the classes naming bases that define a
method of a name (``ne``). A change is described by the same keys:

- a file re-parsed, added or removed: the symbols whose rows differ, the names whose symbols
  differ, the members and classes that appeared or went, the names counted repository-wide that
  gained or lost a definition, its imports; an added or removed file also its module, package,
  base classes and the fixtures it may serve;
- when files were added or removed, the imports of the other files that now bind elsewhere and
  the stored path lookups that now answer otherwise (each looked up under the old and the new
  list of paths);
- the short names that became or stopped being a property;
- after the base classes of the files resolved again: the classes whose ``inherits`` edges differ
  (and so every class's subclasses).

Only the files whose stored keys meet these are resolved again: a file re-parsed to the same
definitions changes nothing for others, and one whose method changed its return type changes
only what its callers read of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from mnemo_core.index.languages import language_for_path, registry
from mnemo_core.index.store.resolver_reads import VIEW_FIELDS
from mnemo_core.index.world import DETAILS, SCOPED, SEP, STARRED, Reads, module_index, name_keys
from mnemo_core.model import CLASS_KINDS, RawImport

FileView = tuple[dict[int, tuple[Any, ...]], str, str | None]  # resolver_view: symbols, imports, exports
NO_VIEW: FileView = ({}, "[]", None)
_NAME, _KIND, _PARENT, _SUPERS, _FIELDS = map(  # where a viewed symbol row holds these
    VIEW_FIELDS.index, ("name", "kind", "parent_id", "supers", "fields")
)
_CORE = VIEW_FIELDS.index("params")  # the columns before it are a symbol's ``y`` key (its core)
_DETAIL_AT = {letter: VIEW_FIELDS.index(column) for letter, column in DETAILS.items()}  # a row's DETAILS
_LINE = RawImport._fields.index("line")  # an import's line: only the file's own references are placed by line
_PACKAGE_STEMS = frozenset({"__init__", "index", "mod"})  # a file that stands for its directory
STAR = "*"  # a fixture name key for "any name": an added file imports with a wildcard


def family(language: str) -> str:
    """The module family of a language (the key ``World.named`` counts names in)."""
    return registry()[language].hooks.module_family or language


def note_file(
    change: Reads, file_id: int, language: str, path: str, before: FileView, after: FileView
) -> None:
    """Add what a file's new content (``NO_VIEW`` for none: added or removed) changes."""
    hooks = registry()[language].hooks
    old, new = before[0], after[0]
    added_or_removed = (before is NO_VIEW) != (after is NO_VIEW)
    if old != new or added_or_removed:
        change.files.add(file_id)
    for sid in old.keys() | new.keys():
        _note_symbol(change, sid, old.get(sid), new.get(sid))
    old_top, new_top = _top(old), _top(new)
    change.top.update(
        (file_id, name) for name in old_top.keys() | new_top.keys() if old_top.get(name) != new_top.get(name)
    )
    scope = hooks.member_scope(path)
    for sid in old.keys() ^ new.keys():  # appeared or went
        name, kind = (old.get(sid) or new[sid])[_NAME : _KIND + 1]
        for key in name_keys(family(language), name, kind):
            change.names.add(key)
            change.deltas[key] = change.deltas.get(key, 0) + (1 if sid in new else -1)
        if "." in name:
            owner, short = name.rsplit(".", 1)
            change.members.add((language, scope, owner))
            change.member.add((language, scope, owner, short))
        if kind in CLASS_KINDS or (kind == "namespace" and hooks.global_namespace):
            change.classes.add((language, scope, name))
    change.extending.update(_derived_methods(family(language), old, new))
    if _unplaced(before[1]) != _unplaced(after[1]):  # a line inserted above an import moves it, no more
        change.imports.add(file_id)
        change.bindings.add(file_id)
        old_bound, new_bound = _bound(before[1]), _bound(after[1])
        change.bound.update(
            (file_id, alias)
            for alias in old_bound.keys() | new_bound.keys()
            if old_bound.get(alias) != new_bound.get(alias)
        )
        if old_bound.get(STARRED) != new_bound.get(STARRED):
            change.starred.add(file_id)
    if before[2] != after[2]:
        change.exports.add(file_id)
    if added_or_removed:
        change.top.add((file_id, ""))
        change.bases.update(old.keys() | new.keys())  # its classes' base classes come or go
        change.packages.add((language, hooks.package_of(path)))
        change.fixtures.update((path, name) for name in _defined(after))


def _note_symbol(change: Reads, sid: int, old: tuple[Any, ...] | None, new: tuple[Any, ...] | None) -> None:
    """What differs of one symbol, column by column as ``World`` notes its reads: its core (name,
    kind, parent, test flags; or the symbol itself, come or gone), each of ``DETAILS``, and its
    typings attribute by attribute."""
    if old == new:
        return
    if old is None or new is None or old[:_CORE] != new[:_CORE]:
        change.symbols.add(sid)
    if old is None or new is None:  # every read of a symbol notes its core too
        return
    change.details.update((letter, sid) for letter, at in _DETAIL_AT.items() if old[at] != new[at])
    if old[_FIELDS] != new[_FIELDS]:
        before, after = _typings(old[_FIELDS]), _typings(new[_FIELDS])
        change.attributes.update(
            (sid, name) for name in before.keys() | after.keys() if before.get(name) != after.get(name)
        )


def _typings(fields: str | None) -> dict[str, list[Any]]:
    """A class's stored typed attributes (JSON ``Field`` rows) by attribute name, in order."""
    out: dict[str, list[Any]] = {}
    for row in json.loads(fields) if fields else []:
        out.setdefault(row[0], []).append(row)
    return out


def _derived_methods(
    fam: str, old: dict[int, tuple[Any, ...]], new: dict[int, tuple[Any, ...]]
) -> set[tuple[str, str]]:
    """The method names whose set of classes that name base classes changed: methods that came or
    went in such a class, and every method of a class whose bases as written changed."""
    out = set()
    rebased = {
        sid
        for sid in old.keys() & new.keys()
        if old[sid][_KIND] in CLASS_KINDS and old[sid][_SUPERS] != new[sid][_SUPERS]
    }
    for view, other in ((old, new), (new, old)):
        for sid, row in view.items():
            if row[_KIND] != "method":
                continue
            owner = view.get(row[_PARENT])
            came_or_went = sid not in other and (owner is None or owner[_SUPERS])
            if came_or_went or row[_PARENT] in rebased:
                out.add((fam, row[_NAME].rsplit(".", 1)[-1]))
    return out


def _unplaced(imports: str) -> list[list[Any]]:
    """A file's imports as other files' resolution reads them: in order, their lines aside."""
    return [row[:_LINE] + row[_LINE + 1 :] for row in json.loads(imports)]


def _bound(imports: str) -> dict[str, list[Any]]:
    """A module's imports by the name they bind at module level, its wildcards and its imports in
    functions (noted as ``World.bindings`` notes them), their lines aside."""
    out: dict[str, list[Any]] = {}
    for row in json.loads(imports):
        imported = RawImport(*row)
        name = STARRED if imported.name == "*" else SCOPED if imported.scope else imported.alias
        out.setdefault(name, []).append(row[:_LINE] + row[_LINE + 1 :])
    return out


def _top(symbols: dict[int, tuple[Any, ...]]) -> dict[str, list[int]]:
    """A file's symbols by qualified name, as ``World.top`` holds them (modules aside)."""
    out: dict[str, list[int]] = {}
    for sid in sorted(symbols):
        row = symbols[sid]
        if row[_KIND] != "module":
            out.setdefault(row[_NAME], []).append(sid)
    return out


def _defined(view: FileView) -> set[str]:
    """The names an added file may serve a fixture by: its symbols' and its imports' (a wildcard
    import may serve any: ``STAR``)."""
    names = {row[_NAME] for row in view[0].values()}
    for row in json.loads(view[1]):
        imported = RawImport(*row)
        names.add(STAR if imported.name == "*" else imported.alias)
    return names


def note_paths(
    change: Reads,
    before: Mapping[str, str],
    after: Mapping[str, tuple[int, str]],
    imports: Mapping[int, str],
    queries: Iterable[str],
) -> None:
    """Add the imports and path lookups that answer otherwise now that files were added or removed
    (``before``: path -> language; ``after``: path -> (file id, language); ``imports``: each file's
    stored imports)."""
    moved = {family(lang) for path, lang in before.items() if path not in after}
    moved |= {family(lang) for path, (_, lang) in after.items() if path not in before}
    if not moved:
        return
    old = _Indexes([p for p, lang in before.items() if family(lang) in moved])
    new = _Indexes([p for p, (_, lang) in after.items() if family(lang) in moved])
    words = _Words(before.keys(), after.keys())
    differs: dict[tuple[str, Hashable], bool] = {}  # per language and what resolving an import reads
    for path, (fid, language) in after.items():
        if path not in before or family(language) not in moved or fid in change.bindings:
            continue
        hooks = registry()[language].hooks
        for imp in (RawImport(*row) for row in json.loads(imports.get(fid, "[]"))):
            relative = imp.level or imp.module.startswith(".")  # names its target by the importer's path
            if not (words.named(imp.module) or words.named(imp.name) or (relative and words.named(path))):
                continue
            reading = (language, hooks.import_reading(path, imp))
            if reading not in differs:
                differs[reading] = old.imported(language, path, imp) != new.imported(language, path, imp)
            if differs[reading]:
                change.bindings.add(fid)
                if imp.name == "*":
                    change.starred.add(fid)
                else:
                    change.bound.add((fid, SCOPED if imp.scope else imp.alias))
    for key in queries:
        _, kind, path, name = key.split(SEP)
        spec = language_for_path(path)
        if spec is None or family(spec.name) not in moved or not (words.named(path) or words.named(name)):
            continue
        if old.query(spec.name, kind, path, name) != new.query(spec.name, kind, path, name):
            change.modules.add((kind, path, name))


class _Words:
    """The names an import may reach an added or removed file by: its stem (a package's
    ``__init__.py``, ``index.js``, ``mod.rs``: its directory's name), and the name of a directory
    that appeared or emptied (a Go package, a namespace package). An import (its module and name as
    written) that names none resolves to no added or removed file, before or after."""

    def __init__(self, before: Iterable[str], after: Iterable[str]) -> None:
        old, new = set(before), set(after)
        words = set()
        for path in old ^ new:
            parts = path.split("/")
            stem = parts[-1].split(".", 1)[0]
            words.add(parts[-2] if stem in _PACKAGE_STEMS and len(parts) > 1 else stem)
        dirs = {p.rsplit("/", 1)[0] for p in old if "/" in p} ^ {p.rsplit("/", 1)[0] for p in new if "/" in p}
        words.update(d.rsplit("/", 1)[-1] for d in dirs)
        self._pattern = re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))
        self._named: dict[str, bool] = {}  # per text searched: most modules are imported many times

    def named(self, text: str) -> bool:
        """Whether ``text`` holds any of the words."""
        found = self._named.get(text)
        if found is None:
            found = self._named[text] = self._pattern.search(text) is not None
        return found


class _Indexes:
    """Import lookups over one list of paths, built per language as asked."""

    def __init__(self, paths: list[str]) -> None:
        self._paths = paths
        self._paths_set = set(paths)
        self._built: dict[str, object] = {}

    def _index(self, language: str) -> object:
        if language not in self._built:
            fam = family(language)
            mine = [p for p in self._paths if (spec := language_for_path(p)) and family(spec.name) == fam]
            self._built[language] = module_index(registry()[language].hooks, fam, mine)
        return self._built[language]

    def imported(self, language: str, path: str, imp: RawImport) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What an import of ``path`` resolves to: its module's paths, and a member's as a module."""
        hooks, index = registry()[language].hooks, self._index(language)
        modules = tuple(p for p in hooks.resolve_module(path, imp, index) if p in self._paths_set)
        if imp.name == "*" or not imp.name:
            return modules, ()
        members = hooks.resolve_member_module(path, imp, index)
        return modules, tuple(p for p in members if p in self._paths_set)

    def query(self, language: str, kind: str, path: str, name: str) -> tuple[str, ...]:
        """A noted path lookup's answer (``World.submodule`` or ``World.module_named``)."""
        hooks, index = registry()[language].hooks, self._index(language)
        if kind == "submodule":
            found = hooks.submodule_paths(path, name, index)
        else:
            found = hooks.resolve_module(path, RawImport(name, "", "", 0), index)
        return tuple(p for p in found if p in self._paths_set)
