"""Diff hunks -> changed symbols, at the granularity of the innermost definition.

Both sides of every changed file are extracted from git (the base blob, and the head blob, the
staged blob or the file on disk), so deleted and renamed symbols are seen as well as modified and
added ones. A changed line belongs to the innermost symbol around it: an edit inside a method
marks the method, not its class; a comment block directly above a definition is that definition's
(a doc comment); any other edit outside every definition marks the module (imports and module-level
code). Where one name has several definitions in a file (a property's getter and
setter, ``if``/``else`` variants, ``@overload`` stubs), only the definition around the changed line
is changed, and it is paired with the base side's definition of the same rank. A deleted and an
added symbol of the same kind whose bodies are nearly the same are one renamed symbol.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from tree_sitter import Node

from mnemo_core.change.comments import COMMENT_PREFIXES, SPLIT_CACHED, comments_only, text_lines
from mnemo_core.change.extracts import Side, symbols_of
from mnemo_core.fsread import MAX_SOURCE_BYTES
from mnemo_core.index.discovery import read_discovery
from mnemo_core.index.languages import LanguageSpec, language_for_path
from mnemo_core.index.store import Store
from mnemo_core.model import CALLABLE_KINDS, CLASS_KINDS, FileExtract, RawSymbol, SymbolKind
from mnemo_core.vcs.diff import ChangeStatus, FileChange, files_at
from mnemo_core.vcs.refs import Snapshot

DOCUMENTED_KINDS = frozenset({*CALLABLE_KINDS, *CLASS_KINDS, "constant"})  # whose comments may change alone
RENAME_SIMILARITY = 0.75  # body similarity above which a deleted + added pair is one renamed symbol
TOO_LARGE = f"not read: over the {MAX_SOURCE_BYTES // 1_000_000} MB mnemo reads of a file"
IMPORT_PREFIXES = ("import ", "from ", "use ", "require(", "#include", "using ", "package ")


@dataclass(frozen=True, slots=True)
class ChangedSymbol:
    """A symbol the change touched. Lines are head-side, or base-side for a deleted symbol."""

    path: str
    name: str
    kind: SymbolKind
    status: str  # modified, added, deleted, renamed
    start_line: int
    end_line: int
    signature: str
    exported: bool
    is_test: bool
    is_test_case: bool
    old_path: str | None = None
    old_name: str | None = None
    old_signature: str | None = None
    old_lines: tuple[int, int] | None = None  # the base-side span, for blame of what was there
    imports_changed: bool = False  # a module-level change that edits import lines
    unseen: bool = False  # a module-level change importers cannot see: imports, comments, private names
    comments_only: bool = False  # a definition whose comments and docstrings alone changed
    dropped: tuple[str, ...] = ()  # names the module imported (so its importers could) and no longer does
    rank: int = 0  # which definition of its name in its file it is (0: the first), in source order
    namesakes: int = 1  # how many definitions of its name the file has (on the same side)

    @property
    def signature_changed(self) -> bool:
        """A modified symbol whose signature differs from the base side's."""
        return self.old_signature is not None and self.old_signature != self.signature

    @property
    def key(self) -> str:
        """``path:name`` on the head side (base side for deleted symbols)."""
        return f"{self.path}:{self.name}"


@dataclass(frozen=True, slots=True)
class FileSummary:
    """A changed file, with how many symbols its change touched (0 for unsupported or binary files)."""

    path: str
    status: str
    old_path: str | None
    language: str | None
    symbols: int
    note: str = ""


def changed_symbols(
    root: Path, changes: list[FileChange], base: str, head: str | Snapshot, store: Store | None = None
) -> tuple[list[ChangedSymbol], list[FileSummary]]:
    """The symbols ``changes`` touch, and a summary line per changed file (a side ``store``'s
    index holds as it is read from there: ``extracts``)."""
    read = [c for c in changes if not c.too_large]
    olds = files_at(root, base, [c.old_path or c.path for c in read if c.status != ChangeStatus.ADDED])
    news = files_at(root, head, [c.path for c in read if c.status != ChangeStatus.DELETED])
    extracts = _extracts(root, changes, olds, news, store)
    found: list[ChangedSymbol] = []
    summaries: list[FileSummary] = []
    for change in changes:
        spec = language_for_path(change.path)
        note = _unread(change, spec)
        if note or spec is None:
            summaries.append(
                FileSummary(
                    change.path, change.status.value, change.old_path, spec.name if spec else None, 0, note
                )
            )
            continue
        old_path = change.old_path or change.path
        old_bytes = olds.get(old_path) if change.status != ChangeStatus.ADDED else None
        new_bytes = news.get(change.path) if change.status != ChangeStatus.DELETED else None
        old_extract = extracts.get((old_path, old_bytes)) if old_bytes is not None else None
        new_extract = extracts.get((change.path, new_bytes)) if new_bytes is not None else None
        old_symbols = old_extract.symbols if old_extract else ()
        new_symbols = new_extract.symbols if new_extract else ()
        touched = _file_symbols(change, old_symbols, new_symbols, (old_bytes, new_bytes), spec.name)
        if old_extract and new_extract and spec.hooks.imports_are_names:
            touched = _with_dropped(change.path, touched, old_extract, new_extract)
        found.extend(touched)
        summaries.append(
            FileSummary(change.path, change.status.value, change.old_path, spec.name, len(touched))
        )
    return _pair_renames(found), summaries


def _extracts(
    root: Path,
    changes: list[FileChange],
    olds: dict[str, bytes | None],
    news: dict[str, bytes | None],
    store: Store | None,
) -> dict[tuple[str, bytes], FileExtract]:
    """Both sides' symbols and imports of every changed file read, by (path, bytes): ``extract``'s
    lighter pass (a diff reads no references), kept by content across processes (``extracts``)."""
    sides: list[Side] = []
    for change in changes:
        spec = language_for_path(change.path)
        if spec is None or _unread(change, spec):
            continue
        old_path = change.old_path or change.path
        old, new = olds.get(old_path), news.get(change.path)
        if change.status != ChangeStatus.ADDED and old is not None:
            sides.append((old_path, old, spec))
        if change.status != ChangeStatus.DELETED and new is not None:
            sides.append((change.path, new, spec))
    return symbols_of(root, sides, read_discovery(root), store)


def _unread(change: FileChange, spec: LanguageSpec | None) -> str:
    """Why a changed file's symbols are not read ("" when they are)."""
    if change.too_large:
        return TOO_LARGE
    if change.binary:
        return "binary"
    if change.submodule:
        return "submodule"
    return "language not indexed" if spec is None else ""


def _file_symbols(
    change: FileChange,
    old: tuple[RawSymbol, ...],
    new: tuple[RawSymbol, ...],
    texts: tuple[bytes | None, bytes | None],
    language: str,
) -> list[ChangedSymbol]:
    old_path = change.old_path or change.path
    new_bytes = texts[1]
    if not old or not new:  # a whole file added or deleted: its definitions (or its module code) changed
        side, status = (new, "added") if new else (old, "deleted")
        chosen = [s for s in side if s.kind != "module"] or list(side[:1])
        path = change.path if new else old_path
        return [_changed(path, s, status, None, old_path, False) for s in chosen]
    old_by_name, new_by_name = _by_name(old), _by_name(new)
    touched = _touched(new, change, new_bytes)
    result: list[ChangedSymbol] = []
    for sym in new:
        if sym.kind == "module":
            lines = touched.get((sym.name, sym.start_line))
            if lines:
                result.append(_module_changed(change, sym, old, lines, texts))
            continue
        rank, namesakes = _rank(sym, new_by_name)
        before = old_by_name.get(sym.name)
        if before is None:
            result.append(_changed(change.path, sym, "added", None, old_path, False, rank, namesakes))
        elif (sym.name, sym.start_line) in touched:
            paired = before[rank] if len(before) == namesakes else before[0]
            modified = _changed(change.path, sym, "modified", paired, old_path, False, rank, namesakes)
            if texts[0] is not None and new_bytes is not None and sym.kind in DOCUMENTED_KINDS:
                quiet = comments_only(language, paired, sym, (texts[0], new_bytes))
                modified = replace(modified, comments_only=quiet)
            result.append(modified)
    result += [
        _changed(old_path, s, "deleted", None, old_path, False, *_rank(s, old_by_name))
        for s in old
        if s.kind != "module" and s.name not in new_by_name
    ]
    return result


def _with_dropped(
    path: str, touched: list[ChangedSymbol], old: FileExtract, new: FileExtract
) -> list[ChangedSymbol]:
    """The file's changed symbols, its module marked with the names it no longer imports (and no
    longer defines): ``from .core import Flask, helper`` -> ``from .core import Flask`` drops ``helper``,
    which ``from pkg import helper`` elsewhere still reads. A module that only lost an import line is
    marked changed for it."""
    defined = {s.name for s in new.symbols if s.kind != "module" and "." not in s.name}
    dropped = tuple(sorted(_bound(old) - _bound(new) - defined))
    if not dropped:
        return touched
    module = next((c for c in touched if c.kind == "module"), None)
    if module is None:
        head = new.symbols[0]
        module = _changed(path, head, "modified", old.symbols[0], path, True)
        return [*touched, replace(module, dropped=dropped)]
    return [replace(c, dropped=dropped) if c is module else c for c in touched]


def _bound(extract: FileExtract) -> set[str]:
    """The names a module's own imports bind at its top level."""
    return {imp.alias for imp in extract.imports if not imp.scope and imp.alias and imp.alias != "*"}


def _by_name(symbols: tuple[RawSymbol, ...]) -> dict[str, list[RawSymbol]]:
    """The definitions of each name (modules left out), in source order."""
    found: dict[str, list[RawSymbol]] = {}
    for s in symbols:
        if s.kind != "module":
            found.setdefault(s.name, []).append(s)
    return found


def _rank(sym: RawSymbol, by_name: dict[str, list[RawSymbol]]) -> tuple[int, int]:
    """Which definition of its name ``sym`` is, and of how many."""
    same = by_name[sym.name]
    return next(i for i, s in enumerate(same) if s.start_line == sym.start_line), len(same)


def _touched(
    symbols: tuple[RawSymbol, ...], change: FileChange, text: bytes | None
) -> dict[tuple[str, int], list[int]]:
    """Name and first line of the innermost symbols around the changed (head-side) lines, each with
    those lines.

    Blank lines never count, and neither does a deletion between two definitions: neither changes
    the module's own code."""
    if not symbols:
        return {}
    lines = (text or b"").decode("utf-8", "replace").splitlines()
    ordered = sorted(symbols, key=lambda s: (s.start_line, -s.end_line))
    names: dict[tuple[str, int], list[int]] = {}
    for hunk in change.hunks:
        first, count = hunk.new_start, hunk.new_count
        for line in range(first, first + count) if count else range(first, first + 1):
            if count and (line > len(lines) or not lines[line - 1].strip()):
                continue
            inner = _innermost(ordered, line, strict=not count)
            if inner is not None and count:
                inner = _documented(ordered, lines, line, inner) or inner
            if inner is not None and (count or inner.kind != "module"):
                names.setdefault((inner.name, inner.start_line), []).append(line)
    return names


def _documented(ordered: list[RawSymbol], lines: list[str], line: int, inner: RawSymbol) -> RawSymbol | None:
    """The definition inside ``inner`` that a comment line documents: the one that starts right below
    the comment block ``line`` is in (a Go or Java doc comment, a ``#`` comment above a function)."""
    below = line
    while below <= len(lines) and lines[below - 1].lstrip().startswith(COMMENT_PREFIXES):
        below += 1
    if below == line:
        return None
    starting = [
        s for s in ordered if s.start_line == below and s is not inner and s.end_line <= inner.end_line
    ]
    return min(starting, key=lambda s: s.end_line - s.start_line) if starting else None


def _innermost(ordered: list[RawSymbol], line: int, strict: bool) -> RawSymbol | None:
    """The smallest symbol containing ``line`` (for a pure insertion after ``line``: strictly inside)."""
    best = None
    for s in ordered:
        if s.start_line > line:
            break
        inside = s.start_line <= line < s.end_line if strict else s.start_line <= line <= s.end_line
        if inside and (best is None or s.end_line - s.start_line <= best.end_line - best.start_line):
            best = s
    return best


def _changed(
    path: str,
    sym: RawSymbol,
    status: str,
    before: RawSymbol | None,
    old_path: str,
    imports_changed: bool,
    rank: int = 0,
    namesakes: int = 1,
) -> ChangedSymbol:
    if status == "deleted":
        before = sym
    return ChangedSymbol(
        path,
        sym.name,
        sym.kind,
        status,
        sym.start_line,
        sym.end_line,
        sym.signature,
        sym.exported,
        sym.is_test,
        sym.is_test_case,
        old_path=old_path if before is not None else None,
        old_signature=before.signature if before is not None and status == "modified" else None,
        old_lines=(before.start_line, before.end_line) if before is not None else None,
        imports_changed=imports_changed,
        rank=rank,
        namesakes=namesakes,
    )


def _module_changed(
    change: FileChange,
    module: RawSymbol,
    old: tuple[RawSymbol, ...],
    lines: list[int],
    texts: tuple[bytes | None, bytes | None],
) -> ChangedSymbol:
    """A module whose own code (``lines``, head side) changed: whether those lines are imports, and
    whether its importers can see the change at all. They cannot when, on both sides, it touches only
    imports (a removed one only where imports are not names of the module: not Python's ``from .core
    import Flask`` in a package's ``__init__``), comments and declarations private to the module, or
    only adds names to what the module exports (an importer reads none of them yet)."""
    old_path = change.old_path or change.path
    imports = _import_lines_of(texts[1] or b"")
    changed = _changed(change.path, module, "modified", old[0], old_path, any(i in imports for i in lines))
    spec = language_for_path(change.path)
    if spec is None:
        return changed
    inserted = {
        i for h in change.hunks if not h.old_count for i in range(h.new_start, h.new_start + h.new_count)
    }
    ordered = sorted(old, key=lambda s: (s.start_line, -s.end_line))
    removed = [
        i
        for h in change.hunks
        for i in range(h.old_start, h.old_start + h.old_count)
        if (inner := _innermost(ordered, i, strict=False)) is not None and inner.kind == "module"
    ]
    unseen = _unseen(spec, texts[1], lines, True, inserted) and _unseen(
        spec, texts[0], removed, not spec.hooks.imports_are_names, set()
    )
    return replace(changed, unseen=unseen)


def _unseen(spec: LanguageSpec, text: bytes | None, lines: list[int], imports: bool, added: set[int]) -> bool:
    """Whether ``lines`` of one side (module-level ones) are invisible to the module's importers:
    blank, comments, imports (where ``imports``), private declarations, or, among the ``added``
    lines, names the module starts to export."""
    source = text_lines(text or b"")
    skipped = _import_lines_of(text or b"") if imports else frozenset()
    rest = [
        i
        for i in lines
        if i <= len(source)
        and i not in skipped
        and source[i - 1].strip()
        and not source[i - 1].lstrip().startswith(COMMENT_PREFIXES)
    ]
    if not rest:
        return True
    statements = spec.parser.parse(text or b"").root_node.named_children
    hooks = spec.hooks
    return all(
        _around(statements, i, hooks.private_statement)
        or (i in added and _around(statements, i, hooks.exports_names))
        for i in rest
    )


def _around(statements: list[Node], line: int, test: Callable[[Node], bool]) -> bool:
    """Whether the top-level statement around ``line`` (1-based) passes ``test``."""
    around = next((n for n in statements if n.start_point[0] < line <= n.end_point[0] + 1), None)
    return around is not None and test(around)


@lru_cache(maxsize=SPLIT_CACHED)
def _import_lines_of(text: bytes) -> frozenset[int]:
    """The (1-based) lines of a file's text that belong to import statements, a bracketed name list
    or a continued line included (``from x import (`` ... ``)``, Go's ``import (`` ... ``)``,
    ``import {a,`` ...); once for both questions about its module's lines."""
    found: set[int] = set()
    depth, continued = 0, False
    for number, line in enumerate(text_lines(text), start=1):
        stripped = line.strip()
        if depth > 0 or continued or stripped.startswith(IMPORT_PREFIXES):
            found.add(number)
            depth = max(0, depth + _opened(stripped))
            continued = stripped.endswith("\\")
    return frozenset(found)


def _opened(text: str) -> int:
    """Brackets a line opens minus those it closes."""
    return sum(text.count(c) for c in "({") - sum(text.count(c) for c in ")}")


def _pair_renames(symbols: list[ChangedSymbol]) -> list[ChangedSymbol]:
    """Turn a deleted + added pair of one kind into one rename: in one file with near-identical
    signatures (names aside), or a symbol of the same name moved to another file."""
    deleted = [s for s in symbols if s.status == "deleted" and s.kind != "module"]
    added = [s for s in symbols if s.status == "added" and s.kind != "module"]
    replaced: dict[str, ChangedSymbol] = {}
    used: set[str] = set()
    for new in added:
        short = new.name.rsplit(".", 1)[-1]
        candidates = [
            d
            for d in deleted
            if d.kind == new.kind
            and d.key not in used
            and (d.path == new.path or d.name.rsplit(".", 1)[-1] == short)
        ]
        best = max(candidates, key=lambda d: _similarity(d, new), default=None)
        if best is not None and _similarity(best, new) >= RENAME_SIMILARITY:
            used.add(best.key)
            replaced[new.key] = ChangedSymbol(
                new.path,
                new.name,
                new.kind,
                "renamed",
                new.start_line,
                new.end_line,
                new.signature,
                new.exported,
                new.is_test,
                new.is_test_case,
                old_path=best.path,
                old_name=best.name,
                old_signature=best.signature,
                old_lines=best.old_lines,
                rank=new.rank,
                namesakes=new.namesakes,
            )
    return [replaced.get(s.key, s) for s in symbols if not (s.status == "deleted" and s.key in used)]


def _similarity(old: ChangedSymbol, new: ChangedSymbol) -> float:
    """Similarity of the signatures with the names taken out (the body is not needed to pair)."""
    a = old.signature.replace(old.name.rsplit(".", 1)[-1], "")
    b = new.signature.replace(new.name.rsplit(".", 1)[-1], "")
    same_span = (old.end_line - old.start_line) == (new.end_line - new.start_line)
    return difflib.SequenceMatcher(None, a, b).ratio() * (1.0 if same_span else 0.8)
