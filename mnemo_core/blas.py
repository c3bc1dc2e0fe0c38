"""numpy's BLAS kept to one thread in mnemo's processes.

mnemo's numpy work is small: one short text through the encoder (``semantic/query.py``), sparse
steps of the random walk (``retrieve/walk.py``). OpenBLAS, left at its default of one thread per
core, spins its threads on such products: 400-600 ms of CPU for a 15 ms encoding of one task
(bench/RESULTS.md, session 38). Its thread count is read once, when numpy loads, so every import of
numpy in mnemo goes through :func:`one_blas_thread` first; a user's own setting is kept, and a
process that loaded numpy before mnemo keeps what it has.

numpy's first import is not safe from two threads at once (the language server ranks a task while
its vector thread loads the encoder): the second thread sees a half-initialized module and fails.
So the first import happens here, under a lock; every later ``import numpy`` finds it complete.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading

BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"
_FIRST_IMPORT = threading.Lock()


def one_blas_thread() -> None:
    """Before the process's first ``import numpy``: one BLAS thread, unless the user set a number;
    then numpy imported by one thread at a time, so a caller's ``import numpy`` finds it whole."""
    with _FIRST_IMPORT:
        if "numpy" not in sys.modules:
            os.environ.setdefault(BLAS_THREADS_VARIABLE, "1")
        importlib.import_module("numpy")
