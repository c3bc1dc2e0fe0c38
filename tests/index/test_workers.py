"""Worker processes: what ``worker_init`` sets up in a real spawned worker."""

from __future__ import annotations

import gc
from pathlib import Path

from mnemo_core.index.workers import YOUNG_OBJECTS_PER_COLLECTION, parallel_map


def test_a_spawned_worker_collects_garbage_in_large_batches(tmp_path: Path) -> None:
    # a fresh interpreter starts at Python's default (700); the pool's initializer raises it
    thresholds = list(parallel_map(gc.get_threshold, [(), ()], 2, tmp_path))
    assert [t[0] for t in thresholds] == [YOUNG_OBJECTS_PER_COLLECTION] * 2
