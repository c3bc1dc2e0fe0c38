"""Hover cards made ahead, in a worker process, so that a hover never waits long for one.

A card's walks to the tests of a symbol cost up to a few hundred ms the first time the symbol is
asked for after the index changes, and a file's first blame up to seconds. They run in one worker
process per folder (``mnemo_core.card_worker``: on another core, without holding this server's
interpreter lock), one card at a time, hovers first: a hover asks for its card and waits at most
``HOVER_WAIT_S``; a card not made by then is still made, and the hover shows a quick card from the
index that says so (the next hover finds the whole card). Between hovers the worker makes the cards
of the files open in the editor, after they open and after each re-index, so that most first
hovers find their card made already. Made cards are kept until the folder's index changes.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo_core.engine import SymbolCard, card_worker
from mnemo_core.model import Symbol

if TYPE_CHECKING:
    from mnemo_core.engine import CardWorker

HOVER_WAIT_S = 0.03  # a hover waits this long for a card being made (the floor is 100 ms at the client)
WARMED_PER_FILE = 400  # symbols of one open file made ahead (flask's largest module has 190)
MADE_KEPT = 20_000  # cards kept per folder until its index changes (a few hundred bytes each)
HOVER, WARM = 0, 1  # priorities: a hover's card before the cards of open files
Key = tuple[Path, Symbol]


@dataclass(order=True)
class _Entry:
    priority: int
    seq: int
    key: Key = field(compare=False)


class CardMaker:
    """The cards of every folder: made by their worker processes, hovers first, then kept; ``log``
    hears a card that could not be made."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self._queue: list[_Entry] = []
        self._queued: Counter[Key] = Counter()  # entries of each key in the queue
        self._pending: dict[Key, Future[SymbolCard]] = {}  # queued or being made
        self._made: dict[Key, SymbolCard] = {}
        self._workers: dict[Path, CardWorker] = {}
        self._making: Key | None = None
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="mnemo-cards", daemon=True)
        self._thread.start()

    def card(self, root: Path, symbol: Symbol) -> SymbolCard | None:
        """The whole card of ``symbol`` if it is made, or, when no other card is being made, made
        within ``HOVER_WAIT_S``; else None: it is made next, and the next hover finds it."""
        with self._cond:
            made = self._made.get((root, symbol))
            idle = self._making is None and not self._queue  # else its card would start too late
        if made is not None:
            return made
        future = self._submit((root, symbol), HOVER)
        try:
            return future.result(timeout=HOVER_WAIT_S if idle else 0)
        except FutureTimeout:
            return None
        except Exception:  # logged by the maker; the hover shows the quick card
            return None

    def warm(self, root: Path, symbols: Iterable[Symbol], changed: bool) -> None:
        """Make the cards of ``symbols`` when no hover waits, instead of those of an earlier warming
        of ``root``; ``changed``: the index changed since, the cards made before are forgotten."""
        with self._cond:
            if changed:
                self._made = {key: card for key, card in self._made.items() if key[0] != root}
            self._queue = [e for e in self._queue if e.priority == HOVER or e.key[0] != root]
            heapq.heapify(self._queue)
            self._queued = Counter(e.key for e in self._queue)
            for key in [k for k in self._pending if k not in self._queued and k != self._making]:
                del self._pending[key]
            for symbol in symbols:
                if (root, symbol) not in self._made:
                    self._submit_locked((root, symbol), WARM)

    def close(self) -> None:
        """Stop making cards and stop the workers; hovers still waiting get None."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify()
            workers, self._workers = list(self._workers.values()), {}
        for worker in workers:
            worker.close()

    def _submit(self, key: Key, priority: int) -> Future[SymbolCard]:
        with self._cond:
            return self._submit_locked(key, priority)

    def _submit_locked(self, key: Key, priority: int) -> Future[SymbolCard]:
        future = self._pending.get(key)
        if future is None:
            future = self._pending[key] = Future()
        if priority == HOVER or not self._queued[key]:
            heapq.heappush(self._queue, _Entry(priority, next(self._seq), key))
            self._queued[key] += 1
            self._cond.notify()
        return future

    def _next(self) -> tuple[Key, Future[SymbolCard] | None, CardWorker] | None:
        """The next card to make, its future (None: made already) and the worker to make it."""
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            key = heapq.heappop(self._queue).key
            self._queued[key] -= 1
            self._making = key
            worker = self._workers.get(key[0])
            if worker is None:
                worker = self._workers[key[0]] = card_worker(key[0])
            return key, self._pending.get(key), worker

    def _run(self) -> None:
        while (taken := self._next()) is not None:
            key, future, worker = taken
            if future is None:
                continue
            try:
                card = worker.submit(key[1]).result()
            except Exception as exc:
                self._log(f"hover card of {key[1].path}:{key[1].name} failed: {exc}")
                future.set_exception(exc)
            else:
                with self._cond:
                    if len(self._made) >= MADE_KEPT:
                        self._made.clear()
                    self._made[key] = card
                future.set_result(card)
            finally:
                with self._cond:
                    self._pending.pop(key, None)
                    self._making = None
