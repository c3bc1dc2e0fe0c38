"""A two-level cache for results that are slow to compute and never change for a given key.

Level one is an in-memory LRU shared by the process (thread-safe: the language server answers
requests from several threads). Level two, optional, is a directory of JSON files, one per key,
named by the SHA-1 of the key and fanned out over ``FAN_OUT`` subdirectories, each holding at most its
share of ``disk_entries`` (a write that finds more removes the oldest written: the directory stays
bounded however many commits a CI runner or a long-lived clone asks about). A file is written to a
temporary name and moved into place with ``os.replace``, so a concurrent reader sees either no
file or a whole one; it records the key and a format version, and anything unreadable, stale or
foreign is treated as a miss. Disk trouble only costs speed: it is logged, never raised.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from mnemo_core.statedir import replacing

log = logging.getLogger(__name__)

T = TypeVar("T")

FAN_OUT = 256  # subdirectories: the first two hex digits of a key's SHA-1
_SUFFIX = ".json"


class TwoLevelCache(Generic[T]):
    """Values of type ``T`` by string key, in memory and optionally in a directory."""

    def __init__(
        self,
        version: int,
        encode: Callable[[T], object],
        decode: Callable[[object], T],
        max_entries: int,
        disk_entries: int,
    ) -> None:
        self._version = version
        self._per_directory = max(1, disk_entries // FAN_OUT)
        self._encode = encode
        self._decode = decode
        self._max = max_entries
        self._memory: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, directory: Path | None = None) -> T | None:
        """The value for ``key`` from memory, else from ``directory`` (then kept in memory too)."""
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        value = self._read(key, directory) if directory is not None else None
        if value is not None:
            self._remember(key, value)
        return value

    def put(self, key: str, value: T, directory: Path | None = None) -> None:
        """Store ``value`` in memory and, when ``directory`` is given, on disk."""
        self._remember(key, value)
        if directory is not None:
            self._write(key, value, directory)

    def clear(self) -> None:
        """Forget everything held in memory (the files stay)."""
        with self._lock:
            self._memory.clear()

    def _remember(self, key: str, value: T) -> None:
        with self._lock:
            self._memory[key] = value
            self._memory.move_to_end(key)
            while len(self._memory) > self._max:
                self._memory.popitem(last=False)

    @staticmethod
    def path_for(key: str, directory: Path) -> Path:
        """The file that holds ``key`` under ``directory``."""
        digest = hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()
        return directory / digest[:2] / f"{digest[2:]}{_SUFFIX}"

    def _read(self, key: str, directory: Path) -> T | None:
        path = self.path_for(key, directory)
        try:
            record = json.loads(path.read_bytes())
            if record["version"] != self._version or record["key"] != key:
                return None
            return self._decode(record["value"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            log.debug("ignoring unreadable cache file %s: %s", path, exc)
            return None

    def _write(self, key: str, value: T, directory: Path) -> None:
        path = self.path_for(key, directory)
        record = {"version": self._version, "key": key, "value": self._encode(value)}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with replacing(path) as handle:
                handle.write(json.dumps(record, separators=(",", ":")).encode("utf-8", "surrogateescape"))
            self._trim(path.parent)
        except OSError as exc:
            log.debug("cannot write cache file %s: %s", path, exc)

    def _trim(self, subdirectory: Path) -> None:
        """Remove the oldest written files of ``subdirectory`` beyond its share of the entries."""
        with os.scandir(subdirectory) as found:
            entries = [e for e in found if e.name.endswith(_SUFFIX) and e.is_file(follow_symlinks=False)]
        if len(entries) <= self._per_directory:
            return
        entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns)
        for entry in entries[: len(entries) - self._per_directory]:
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                continue  # another process trimmed it first
