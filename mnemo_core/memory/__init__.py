"""The engine's memory of a repository: the session and the tasks, in ``.mnemo/memory.db``.

:class:`Memory` is what the engine holds: it records what answers returned and what the editor or
agent opened, hovered and edited (the session), the tasks asked and what was said useful or useless
for them (feedback, or the commit that landed the task: ``landing``), and hands the ranking a
:class:`Recall` of it. Off (``--no-memory``, ``memory = false`` in the settings), it records
nothing, creates no file and recalls nothing. Memory helps, it never fails a verb: a memory file
that cannot be opened or written is one warning in the log, and the answer comes without it.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from mnemo_core.config import load_config
from mnemo_core.errors import MnemoError
from mnemo_core.index.store import Store
from mnemo_core.memory.store import FILE_NAME, Key, MemoryStore
from mnemo_core.model import ScoredSymbol, Symbol
from mnemo_core.retrieve.recall import SESSION_WINDOW_S, Event, Recall, terms_of
from mnemo_core.statedir import own_database, state_dir

log = logging.getLogger(__name__)

Clock = Callable[[], float]
RETURNED_RECORDED = 10  # an answer's best few are what its reader looks at
REPEAT_S = 30.0  # the same event again within this many seconds is not remembered again (keystrokes)


class Memory:
    """The memory of the repository at ``root``; off, every method is a no-op. ``enabled`` None
    follows the project's ``memory`` setting (read at first use)."""

    def __init__(self, root: Path, enabled: bool | None = None, clock: Clock = time.time) -> None:
        self.root = root
        self._enabled = enabled
        self.clock = clock
        self._store: MemoryStore | None = None
        self._broken = False

    @property
    def enabled(self) -> bool:
        """Whether memory is on (the choice given, else the project's setting)."""
        if self._enabled is None:
            self._enabled = load_config(self.root).memory
        return self._enabled

    def choose(self, enabled: bool | None) -> None:
        """Turn memory on or off for the next calls (None: as the project's setting says)."""
        self._enabled = enabled

    def close(self) -> None:
        """Close the memory file."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def exists(self) -> bool:
        """Whether a memory file is there (to read without creating one)."""
        return (state_dir(self.root, create=False) / FILE_NAME).is_file()

    def store(self, create: bool = True) -> MemoryStore | None:
        """The memory file's connection (None when off, broken, or absent and ``create`` is False)."""
        if not self.enabled or self._broken or (not create and not self.exists()):
            return None
        if self._store is None:
            try:
                directory = state_dir(self.root)
                own_database(directory / FILE_NAME)
                self._store = MemoryStore.open(directory)
            except (sqlite3.Error, OSError, MnemoError) as exc:
                self._broken = True
                log.warning("memory is off for this call: it cannot be used (%s)", exc)
                return None
        return self._store

    def _guarded(self, what: str, work: Callable[[MemoryStore], None], create: bool = True) -> None:
        store = self.store(create)
        if store is None:
            return
        try:
            work(store)
        except sqlite3.Error as exc:
            log.warning("memory: could not %s (%s)", what, exc)

    # -- the session -----------------------------------------------------------------------------
    def returned(self, symbols: Sequence[ScoredSymbol]) -> None:
        """An answer showed these symbols: its best few join the session."""
        self.touched("returned", [s.symbol for s in symbols[:RETURNED_RECORDED] if s.symbol.id > 0])

    def touched(self, kind: str, symbols: Iterable[Symbol]) -> None:
        """The user opened, hovered or edited these symbols (``kind``)."""
        self._remember([(kind, s.path, s.name, s.kind) for s in symbols])

    def touched_file(self, kind: str, path: str) -> None:
        """The user opened or edited a file (every symbol in it counts, more weakly)."""
        self._remember([(kind, path, "", "")])

    def _remember(self, items: list[tuple[str, str, str, str]]) -> None:
        def write(store: MemoryStore) -> None:
            now = self.clock()
            fresh = []
            for kind, path, name, symbol_kind in dict.fromkeys(items):
                last = store.last_event(kind, path, name, symbol_kind)
                if last is None or now - last >= REPEAT_S:
                    fresh.append(Event(now, kind, path, name, symbol_kind))
            store.add_events(fresh)

        if items:
            self._guarded("remember the session", write)

    # -- tasks -----------------------------------------------------------------------------------
    def asked(self, text: str, head: str | None) -> None:
        """A task was asked at ``head``: the next commit's changes may say what was useful for it."""
        terms = terms_of(text)

        def write(store: MemoryStore) -> None:
            store.add_task(self.clock(), text, terms, head, head is not None)

        if terms:
            self._guarded("remember the task", write)

    def feedback(self, text: str, used: Sequence[Symbol], useless: Sequence[Symbol]) -> bool:
        """Remember which symbols were useful and useless for a task; False when memory is off."""
        store = self.store()
        if store is None:
            return False
        task_id = store.add_task(self.clock(), text, terms_of(text), None, False)
        store.add_verdicts(task_id, _keys(used), _keys(useless), "feedback")
        return True

    def recall(self, index: Store, root: Path, head: str | None) -> Recall:
        """What a ranking may use now: the session's events and the remembered tasks (first
        crediting the work that landed since a task was asked)."""
        store = self.store(create=False)
        if store is None:
            return Recall()
        from mnemo_core.memory.landing import land

        try:
            land(store, index, root, head)
            now = self.clock()
            return Recall(now, tuple(store.events(now - SESSION_WINDOW_S)), tuple(store.remembered()))
        except sqlite3.Error as exc:
            log.warning("memory: could not read %s (%s)", store.path, exc)
            return Recall()


def _keys(symbols: Iterable[Symbol]) -> list[Key]:
    return list(dict.fromkeys((s.path, s.name, s.kind) for s in symbols))
