"""Hover cards made in a worker process, beside a server that must keep answering.

A card's walks to tests are pure Python and take up to a few hundred ms the first time a symbol is
asked for after the index changes; made on a thread of the server, they hold its interpreter lock
and slow every other request (each SQLite call waits for the lock again). In a process of their
own they run on another core. The worker is a fresh interpreter started the way parse workers are
(``mnemo_core.index.workers``: no repository code on its path, dies with its parent), on first use;
it reads the index through its own ``Repository`` (SQLite in WAL mode; it never updates the index,
which is the server's job), which remembers the walks of each index generation, and sends the cards
back pickled.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from mnemo_core.index.workers import clean_start, worker_init
from mnemo_core.insight import SymbolCard, symbol_card
from mnemo_core.model import Symbol
from mnemo_core.repository import Repository

_REPOSITORY: list[Repository] = []  # in the worker: the repository it reads


class CardWorker:
    """One worker process making the hover cards of one repository."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, symbol: Symbol) -> Future[SymbolCard]:
        """Start making the whole card of ``symbol`` (the worker starts on the first call)."""
        if self._pool is None:
            with clean_start(self.root):
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=get_context("spawn"),
                    initializer=_start,
                    initargs=(os.getpid(), str(self.root)),
                )
                return self._pool.submit(_card, symbol)  # the worker starts here, inside clean_start
        return self._pool.submit(_card, symbol)

    def close(self) -> None:
        """Stop the worker (a card it is making is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


def _start(parent: int, root: str) -> None:
    worker_init(parent)
    _REPOSITORY.append(Repository(Path(root)))


def _card(symbol: Symbol) -> SymbolCard:
    return symbol_card(_REPOSITORY[0], symbol, True)
