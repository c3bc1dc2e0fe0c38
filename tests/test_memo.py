"""The bounded cache the language server's read threads share."""

from __future__ import annotations

import threading

from mnemo_core.memo import BoundedCache


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the oldest
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (1, None, 3, 2)


def test_threads_that_read_and_evict_at_once_never_fail() -> None:
    cache: BoundedCache[int, int] = BoundedCache(8)
    failures: list[BaseException] = []

    def hammer(offset: int) -> None:
        try:
            for i in range(20_000):
                key = (i * 7 + offset) % 50
                if cache.get(key) is None:
                    cache.put(key, key)
        except BaseException as exc:  # any failure in a thread must fail the test
            failures.append(exc)

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(cache) == 8
