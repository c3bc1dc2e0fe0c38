"""Worker processes: what ``worker_init`` sets up in a real spawned worker."""

from __future__ import annotations

import gc
import time
from pathlib import Path

from mnemo_core.index.workers import AHEAD_PER_WORKER, YOUNG_OBJECTS_PER_COLLECTION, parallel_map


def test_a_spawned_worker_collects_garbage_in_large_batches(tmp_path: Path) -> None:
    # a fresh interpreter starts at Python's default (700); the pool's initializer raises it
    thresholds = list(parallel_map(gc.get_threshold, [(), ()], 2, tmp_path))
    assert [t[0] for t in thresholds] == [YOUNG_OBJECTS_PER_COLLECTION] * 2


def test_tasks_are_handed_ahead_of_the_caller_a_few_at_a_time(tmp_path: Path) -> None:
    # all handed at once, the workers would finish every task while the caller holds the first
    # result, and the finished ones would wait in the caller's memory
    marks = tmp_path / "marks"
    marks.mkdir()
    tasks = [(marks / str(i),) for i in range(60)]
    results = parallel_map(Path.touch, tasks, 2, tmp_path)
    next(results)
    time.sleep(1.5)
    started = len(list(marks.iterdir()))
    assert 2 * AHEAD_PER_WORKER <= started <= 2 * AHEAD_PER_WORKER + 1
    assert sum(1 for _ in results) == 59
    assert len(list(marks.iterdir())) == 60
