"""Code nobody in the repository writes: vendored libraries and minified files.

A copy of jQuery committed beside a debugger's own script, a library under ``vendor/``: their
functions match a task's words (a minified ``jb`` is one short line of many words) but a task is
never done by editing them. Two signs mark such a file, whatever its language:

- it lies in a directory that holds others' code (``vendor/``, ``third_party/``, ...) or its name says it
  was minified (``jquery.min.js``, ``app-min.js``, ``*.bundle.js``);
- its lines are far longer than anyone writes (``MINIFIED_LINE_BYTES`` on average): a minifier's
  output. Only files of at least ``MINIFIED_MIN_BYTES`` are read to tell, once per size and time.

Their symbols are demoted the way tests are (the multiplier ``vendored``), unless the task names the
file or the directory. Build output (``dist/``, ``build/``) is :mod:`mnemo_core.retrieve.fold`'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mnemo_core.fsread import MAX_SOURCE_BYTES, Refused, read_inside
from mnemo_core.memo import BoundedCache
from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import Keywords
from mnemo_core.retrieve.score import names_file

VENDORED_DIRS = frozenset(
    {"vendor", "vendors", "vendored", "_vendor", "third_party", "thirdparty", "3rdparty", "bower_components"}
)
MINIFIED_SUFFIXES = (".min.js", "-min.js", ".min.mjs", ".bundle.js", ".min.css")
MINIFIED_LINE_BYTES = 250  # mean bytes per line: people write under 100, minifiers thousands
MINIFIED_MIN_BYTES = 4096  # a smaller file is not worth a read: its symbols are few and short
UNMINIFIED_LANGUAGES = frozenset({"python"})  # nobody ships minified Python: its files are never read here
_MINIFIED: BoundedCache[tuple[str, str, int, int], bool] = BoundedCache(4096)


def vendored_paths(root: Path, symbols: Iterable[Symbol], keywords: Keywords) -> frozenset[str]:
    """The files of ``symbols`` that hold vendored or minified code the task does not name."""
    named = _named(keywords)
    languages = {s.path: s.language for s in symbols}
    found = set()
    for path, language in languages.items():
        if names_file(path, keywords) or any(part.lower() in named for part in path.split("/")[:-1]):
            continue
        by_name = vendored_dir(path) is not None or path.lower().endswith(MINIFIED_SUFFIXES)
        if by_name or (language not in UNMINIFIED_LANGUAGES and minified(root, path)):
            found.add(path)
    return frozenset(found)


def vendored_dir(path: str) -> str | None:
    """The directory of others' code that ``path`` lies in, if any."""
    return next((part for part in path.split("/")[:-1] if part.lower() in VENDORED_DIRS), None)


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
