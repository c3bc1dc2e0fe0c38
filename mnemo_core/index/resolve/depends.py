"""What a change of the tree changes for resolution, as the keys ``World.reads`` notes.

Resolving a file notes what it read of the world (the keys stored in the ``deps`` table): the
files whose symbols or imports it looked at, the member scopes, the repository-wide names it
counted (by-name fallback: how many definitions a name has, not only whether one exists), what
files' imports bound, whose base classes it followed, which names it asked were properties, a
package's files, whether a path is indexed, path lookups (a submodule, a module by dotted name),
and every class's subclasses. A change is described by the same keys:

- a file re-parsed whose symbols (as the resolver sees them: lines aside), imports or exports
  differ, or a file added or removed: its file key, its member scope, the names of the symbols
  that appeared or went (ids are kept: a symbol changed in place is read through its file's
  key), its bindings when its imports differ, its package and path;
- when files were added or removed, the imports of the other files that now bind elsewhere and
  the stored path lookups that now answer otherwise (each looked up under the old and the new
  list of paths);
- the short names that became or stopped being a property;
- after the base classes of the files resolved again: the files whose ``inherits`` edges differ
  (and so every class's subclasses).

Only the files whose stored keys meet these are resolved again; a file re-parsed to the same
definitions changes nothing for others.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from mnemo_core.index.languages import language_for_path, registry
from mnemo_core.index.world import SEP, Reads, name_keys
from mnemo_core.model import RawImport

FileView = tuple[dict[int, tuple[Any, ...]], str, str | None]  # resolver_view: symbols, imports, exports
NO_VIEW: FileView = ({}, "[]", None)
_NAME, _KIND = 1, 2  # where a viewed symbol row holds its qualified name and kind


def family(language: str) -> str:
    """The module family of a language (the key ``World.named`` counts names in)."""
    return registry()[language].hooks.module_family or language


def note_file(
    change: Reads, file_id: int, language: str, path: str, before: FileView, after: FileView
) -> None:
    """Add what a file's new content (``NO_VIEW`` for none: added or removed) changes."""
    hooks = registry()[language].hooks
    symbols_before, symbols_after = before[0], after[0]
    imports_differ = before[1:] != after[1:]
    if symbols_before == symbols_after and not imports_differ and (before is NO_VIEW) == (after is NO_VIEW):
        return
    change.files.add(file_id)
    change.scopes.add((language, hooks.member_scope(path)))
    for row in (row for sid, row in symbols_before.items() if sid not in symbols_after):
        change.names.update(name_keys(family(language), row[_NAME], row[_KIND]))
    for row in (row for sid, row in symbols_after.items() if sid not in symbols_before):
        change.names.update(name_keys(family(language), row[_NAME], row[_KIND]))
    if imports_differ:
        change.bindings.add(file_id)
    if (before is NO_VIEW) != (after is NO_VIEW):  # added or removed
        change.bases.add(file_id)
        change.packages.add((language, hooks.package_of(path)))
        change.paths.add(path)


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
    for path, (fid, language) in after.items():
        if path not in before or family(language) not in moved or fid in change.bindings:
            continue
        for imp in (RawImport(*row) for row in json.loads(imports.get(fid, "[]"))):
            if old.imported(language, path, imp) != new.imported(language, path, imp):
                change.bindings.add(fid)
                break
    for key in queries:
        _, kind, path, name = key.split(SEP)
        spec = language_for_path(path)
        if spec is None or family(spec.name) not in moved:
            continue
        if old.query(spec.name, kind, path, name) != new.query(spec.name, kind, path, name):
            change.modules.add((kind, path, name))


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
            self._built[language] = registry()[language].hooks.module_index(mine)
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
