"""The distinct short names of an index, kept per generation: the name channel's substring search.

A task's name channel asks which symbols' names contain each of its longer words. Scanning every
symbol's name for them costs a query O(symbols) (0.2 s on four stdlib copies, 305k symbols, more at
ten), yet names repeat: the stdlib has 46k distinct ones, four copies of it still 46k. So the
distinct names, lowered as SQLite's ``lower`` lowers (ASCII only), are read once per index
generation from the short-name index (no symbol row is read) and kept as one text: one name a line,
searched with ``str.find``; the symbols of the names found are then read through the index on
``lower(short_name)``. The text is kept in memory for a long-lived process and in
``.mnemo/names-<index id>-<generation>.txt`` for the next short-lived one (written whole under a
temporary name, then renamed; a file that does not parse is ignored and written again; older
generations' files are removed). Its first line lists, as JSON, the rare names that hold a line
break themselves, so no name is lost to the layout.

An update derives the next generation's names from the previous one's (``extend``): the names its
files gained are added, none is taken away (reading every name again costs 0.12 s CPU on ten stdlib
copies, the first query after each edit paid it). A name no symbol has any more is harmless: its
symbols are read through the index, and it has none. A cold index reads them all again.
"""

from __future__ import annotations

import json
import logging
import string
import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.index.store.derived import NAMES_PREFIX, NAMES_SUFFIX, derived_path, remove_other_generations
from mnemo_core.statedir import write_own_text

log = logging.getLogger(__name__)

CACHED_NAME_SETS = 4  # as the graph cache: a language server serves one workspace
SEPARATOR = "\n"
ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # SQLite's lower()
ShortNamesReader = Callable[[], list[str]]  # every short name of the index, repeats allowed
_sets: OrderedDict[tuple[str, str, int], ShortNames] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class ShortNames:
    """Distinct lowered short names: ``text`` holds those without a line break, one a line (with a
    line break before the first and after the last); ``odd`` the others."""

    text: str
    odd: tuple[str, ...]

    @classmethod
    def of(cls, names: list[str]) -> ShortNames:
        lowered = sorted({name.translate(ASCII_LOWER) for name in names})
        plain = [name for name in lowered if SEPARATOR not in name]
        return cls(SEPARATOR + SEPARATOR.join(plain) + SEPARATOR, tuple(n for n in lowered if SEPARATOR in n))

    def containing(self, low: str) -> set[str]:
        """The names that contain ``low`` and are not ``low`` itself."""
        found = {name for name in self.odd if low in name and name != low}
        if SEPARATOR in low:  # no line of the text holds it
            return found
        if not low:
            return found | {name for name in self.text.split(SEPARATOR) if name}
        text = self.text
        at = text.find(low)
        while at >= 0:
            begin = text.rfind(SEPARATOR, 0, at) + 1
            end = text.find(SEPARATOR, at + len(low))
            if end - begin != len(low):
                found.add(text[begin:end])
            at = text.find(low, end)
        return found

    def extended(self, names: set[str]) -> ShortNames:
        """These names and ``names`` (lowered here; the kept ones are not lowered again)."""
        new = {name.translate(ASCII_LOWER) for name in names}
        plain = self.text[1:-1].split(SEPARATOR) if len(self.text) > 2 else []  # "\n\n": none
        grown = False
        for name in sorted(n for n in new if SEPARATOR not in n):  # the kept ones are sorted
            at = bisect_left(plain, name)
            if at == len(plain) or plain[at] != name:
                plain.insert(at, name)
                grown = True
        odd = {name for name in new if SEPARATOR in name}.union(self.odd)
        if not grown and len(odd) == len(self.odd):
            return self
        return ShortNames(SEPARATOR + SEPARATOR.join(plain) + SEPARATOR, tuple(sorted(odd)))

    def serialised(self) -> str:
        return json.dumps(self.odd) + SEPARATOR + self.text

    @classmethod
    def parsed(cls, saved: str) -> ShortNames | None:
        head, _, text = saved.partition(SEPARATOR)
        try:
            odd = json.loads(head)
        except ValueError:
            return None
        if not isinstance(odd, list) or not all(isinstance(n, str) for n in odd):
            return None
        if not text.startswith(SEPARATOR) or not text.endswith(SEPARATOR):
            return None
        return cls(text, tuple(odd))


def short_names(directory: Path, index_id: str, generation: int, read: ShortNamesReader) -> ShortNames:
    """The index's distinct short names at ``generation``: from memory, else from its file, else
    read by ``read()`` and saved."""
    if generation == 0:  # a first build still storing files: its names grow without a new generation
        return ShortNames.of(read())
    key = (str(directory), index_id, generation)
    with _lock:
        names = _sets.get(key)
        if names is not None:
            _sets.move_to_end(key)
            return names
    path = derived_path(directory, NAMES_PREFIX, index_id, generation, NAMES_SUFFIX)
    names = _load(path)
    if names is None:
        names = ShortNames.of(read())
        _save(names, path, index_id)
    _remember(key, names)
    return names


def extend(directory: Path, index_id: str, base: int, generation: int, names: set[str]) -> None:
    """Keep the names of ``generation`` as those of ``base`` (from memory or its file) plus
    ``names`` (every short name the update wrote that its files did not have before). Nothing when
    ``base`` has none kept: the first query reads them all."""
    if base == 0 or generation == base:
        return
    with _lock:
        kept = _sets.get((str(directory), index_id, base))
    if kept is None:
        kept = _load(derived_path(directory, NAMES_PREFIX, index_id, base, NAMES_SUFFIX))
    if kept is None:
        return
    grown = kept.extended(names)
    _save(grown, derived_path(directory, NAMES_PREFIX, index_id, generation, NAMES_SUFFIX), index_id)
    _remember((str(directory), index_id, generation), grown)


def _remember(key: tuple[str, str, int], names: ShortNames) -> None:
    with _lock:
        _sets[key] = names
        _sets.move_to_end(key)
        while len(_sets) > CACHED_NAME_SETS:
            _sets.popitem(last=False)


def _load(path: Path) -> ShortNames | None:
    try:
        saved = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.info("name cache %s not loaded (%s); rebuilding it", path, exc)
        return None
    names = ShortNames.parsed(saved)
    if names is None:
        log.info("name cache %s is damaged; rebuilding it", path)
    return names


def _save(names: ShortNames, path: Path, index_id: str) -> None:
    try:
        write_own_text(path, names.serialised())
    except OSError as exc:
        log.info("name cache not written to %s: %s", path.parent, exc)
        return
    remove_other_generations(path, index_id)
