"""A bounded, thread-safe cache for module-level memos that the language server's read threads share.

A plain dict evicted with ``d.pop(next(iter(d)))`` can raise "dictionary changed size during
iteration" when another thread inserts between the two steps; this one takes a lock for every read
and write. The oldest entry goes first once ``size`` is passed (an editor asks about the same few
files again and again, so insertion order is a good enough proxy for use).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``size`` entries, the least recently used evicted first; safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value for ``key``, or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (evicting the oldest past ``size``); returns ``value``."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
