"""numpy's first import in a fresh process: one BLAS thread, and whole for every thread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

THREADS = """
import os, sys, threading
from mnemo_core.blas import one_blas_thread

seen = []
start = threading.Barrier(8)

def use_numpy():
    start.wait()
    one_blas_thread()
    numpy = sys.modules["numpy"]
    seen.append(float(numpy.arange(4.0).sum()))

threads = [threading.Thread(target=use_numpy) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(os.environ.get("OPENBLAS_NUM_THREADS"), seen)
"""


def _run(code: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    environ.update(env, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_threads_calling_first_at_once_each_get_a_whole_numpy_with_one_blas_thread() -> None:
    assert _run(THREADS) == "1 " + str([6.0] * 8)


def test_a_users_own_blas_setting_is_kept() -> None:
    assert _run(THREADS, OPENBLAS_NUM_THREADS="2").startswith("2 ")
