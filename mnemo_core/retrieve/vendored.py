"""Code nobody in the repository writes: build output, vendored libraries and minified files.

A bundle committed under ``dist/`` (axios's ``dist/axios.js`` repeats every function of ``lib/``),
a copy of jQuery committed beside a debugger's own script, a library under ``vendor/``: their
functions match a task's words (a minified ``jb`` is one short line of many words) but a task is
never done by editing them. One table, :data:`KINDS`, holds every such kind of file: the path and
shape rules that find it, the languages it never applies to, and the one multiplier (its name and
factor) its symbols take, which ``mnemo why``, the JSON's ``multipliers`` and the reasons name:

- ``generated``: build output, a file under ``dist/``, ``build/`` or ``bundle(s)/`` (not Python,
  whose ``build/`` packages are source: pip's ``operations/build/``);
- ``vendored``: a file in a directory that holds others' code (``vendor/``, ``third_party/``, ...);
- ``minified``: a file whose name says it was minified (``jquery.min.js``, ``app-min.js``,
  ``*.bundle.js``) or whose lines are far longer than anyone writes (``MINIFIED_LINE_BYTES`` on
  average: a minifier's output; only JavaScript and TypeScript files of at least
  ``MINIFIED_MIN_BYTES`` are read, once per size and time).

A file is the first kind whose rules it meets, unless the task names the file or the directory
that made it so (``dist``, ``vendor``; another directory of its path does not count: a task about
"browser environments" still demotes ``dist/browser/axios.cjs``). Files a generator marks
(``Code generated ... DO NOT EDIT``, ``@generated``) never reach here: the index skips them
(``index/files.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.fsread import MAX_SOURCE_BYTES, Refused, read_inside
from mnemo_core.memo import BoundedCache
from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.score import names_file

DEMOTION = 0.2  # like tests: context, never where a task's change is made
MINIFIED_LINE_BYTES = 250  # mean bytes per line: people write under 100, minifiers thousands
MINIFIED_MIN_BYTES = 4096  # a smaller file is not worth a read: its symbols are few and short
_MINIFIED: BoundedCache[tuple[str, str, int, int], bool] = BoundedCache(4096)


@dataclass(frozen=True)
class Foreign:
    """One kind of code nobody in the repository writes: how a file is found to be it, and the
    multiplier its symbols take."""

    multiplier: str  # its name in a candidate's multipliers (``mnemo why``, the JSON)
    factor: float
    said: str  # what the reasons and ``mnemo why`` call it
    dirs: frozenset[str] = frozenset()  # a path with one of these directories (any case) is it
    suffixes: tuple[str, ...] = ()  # a file name ending so (any case) is it
    long_lines: frozenset[str] = frozenset()  # languages whose files are it when their lines are a minifier's
    exempt: frozenset[str] = frozenset()  # languages the kind never applies to


KINDS = (
    Foreign(
        "generated",
        DEMOTION,
        "build output (a bundle under dist/ or build/)",
        dirs=frozenset({"dist", "build", "bundle", "bundles"}),
        exempt=frozenset({"python"}),  # a Python ``build/`` is a package (pip's operations/build/)
    ),
    Foreign(
        "vendored",
        DEMOTION,
        "vendored code (vendor/, third_party/)",
        dirs=frozenset({"vendor", "vendors", "vendored", "_vendor", "third_party", "thirdparty"})
        | {"3rdparty", "bower_components"},
    ),
    Foreign(
        "minified",
        DEMOTION,
        "minified code (*.min.js, or lines a minifier writes)",
        suffixes=(".min.js", "-min.js", ".min.mjs", ".bundle.js", ".min.css"),
        # minifiers write JavaScript (and CSS, not indexed): no other language's file is read here
        long_lines=frozenset({"javascript", "typescript", "tsx"}),
    ),
)


def foreign_paths(root: Path, symbols: Iterable[Symbol], keywords: Keywords) -> dict[str, Foreign]:
    """The files of ``symbols`` that hold code nobody here writes and the task does not name (the
    file, or the directory that made it so: ``dist`` but not ``browser`` for ``dist/browser/a.cjs``),
    each with its kind."""
    named = _named(keywords)
    languages = {s.path: s.language for s in symbols}
    found = {}
    for path, language in languages.items():
        kind, directory = kind_of(root, path, language)
        if kind is None or directory.lower() in named or names_file(path, keywords):
            continue
        found[path] = kind
    return found


def kind_of(root: Path, path: str, language: str) -> tuple[Foreign | None, str]:
    """The first kind of :data:`KINDS` whose rules ``path`` meets, and the directory that met them
    ("" for a name or a shape); its file is read only when no rule of its path decided."""
    directories = path.split("/")[:-1]
    name = path.rsplit("/", 1)[-1].lower()
    for kind in KINDS:
        if language in kind.exempt:
            continue
        directory = next((part for part in directories if part.lower() in kind.dirs), None)
        if directory is not None:
            return kind, directory
        if name.endswith(kind.suffixes):
            return kind, ""
    for kind in KINDS:
        if language in kind.long_lines and minified(root, path):
            return kind, ""
    return None, ""


def minified(root: Path, path: str) -> bool:
    """Whether the file's lines are a minifier's: ``MINIFIED_LINE_BYTES`` or more on average."""
    try:
        st = os.stat(root / path)
    except (OSError, ValueError):
        return False
    if st.st_size < MINIFIED_MIN_BYTES or st.st_size > MAX_SOURCE_BYTES:
        return False
    key = (str(root), path, st.st_size, st.st_mtime_ns)
    known = _MINIFIED.get(key)
    if known is not None:
        return known
    try:
        data = read_inside(root, path, MAX_SOURCE_BYTES).data
    except (OSError, Refused):
        return False
    answer = len(data) / (data.count(b"\n") + 1) >= MINIFIED_LINE_BYTES
    _MINIFIED.put(key, answer)
    return answer


def _named(keywords: Keywords) -> frozenset[str]:
    return frozenset(
        t.lower() for t in (*keywords.exact, *keywords.compounds, *keywords.components, *keywords.words)
    )
