"""Tests for mnemo_core/vcs/cache.py: the memory LRU and the directory of JSON files."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from mnemo_core.vcs.cache import FAN_OUT, TwoLevelCache


def _decode(raw: object) -> list[int]:
    if not isinstance(raw, list):
        raise TypeError("expected a list")
    return [int(x) for x in raw]


def _cache(version: int = 1, max_entries: int = 2, disk_entries: int = 4096) -> TwoLevelCache[list[int]]:
    return TwoLevelCache(version, lambda value: value, _decode, max_entries, disk_entries)


def test_memory_is_least_recently_used() -> None:
    cache = _cache()
    cache.put("a", [1])
    cache.put("b", [2])
    assert cache.get("a") == [1]  # "b" is now the least recently used
    cache.put("c", [3])
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ([1], None, [3])


def test_disk_survives_a_cleared_memory(tmp_path: Path) -> None:
    cache = _cache()
    cache.put("key", [7, 8], tmp_path)
    cache.clear()
    assert cache.get("key") is None  # memory alone no longer has it
    assert cache.get("key", tmp_path) == [7, 8]
    path = TwoLevelCache.path_for("key", tmp_path)
    assert path.parent.parent == tmp_path and not list(path.parent.glob(".tmp-*"))


def test_another_version_or_key_in_the_file_is_a_miss(tmp_path: Path) -> None:
    _cache(version=1).put("key", [1], tmp_path)
    assert _cache(version=2).get("key", tmp_path) is None
    path = TwoLevelCache.path_for("key", tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["key"] = "other"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert _cache(version=1).get("key", tmp_path) is None


def test_undecodable_value_is_a_miss(tmp_path: Path) -> None:
    cache = _cache()
    path = TwoLevelCache.path_for("key", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "key": "key", "value": 5}), encoding="utf-8")
    assert cache.get("key", tmp_path) is None


def test_an_unwritable_directory_only_costs_speed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache directory should be", encoding="utf-8")
    cache = _cache()
    with caplog.at_level(logging.DEBUG, logger="mnemo_core.vcs.cache"):
        cache.put("key", [1], blocker)
    assert cache.get("key") == [1]
    assert "cannot write cache file" in caplog.text


def test_disk_keeps_each_subdirectory_to_its_share_oldest_written_first(tmp_path: Path) -> None:
    cache = _cache(disk_entries=2 * FAN_OUT)  # two files per subdirectory
    shared = TwoLevelCache.path_for("k0", tmp_path).parent
    candidates = (f"k{i}" for i in range(20_000))
    keys = [k for k in candidates if TwoLevelCache.path_for(k, tmp_path).parent == shared][:3]
    assert len(keys) == 3
    for age, key in enumerate(keys):
        cache.put(key, [age], tmp_path)
        os.utime(TwoLevelCache.path_for(key, tmp_path), ns=(age * 10**9, age * 10**9))
    cache.put("elsewhere", [9], tmp_path)  # another subdirectory: trims nothing of this one
    cache.clear()
    assert [cache.get(k, tmp_path) for k in keys] == [None, [1], [2]]
    assert len(list(shared.glob("*.json"))) == 2 and cache.get("elsewhere", tmp_path) == [9]
