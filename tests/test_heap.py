"""Freed memory given back: ``release_freed`` in a real process, measured by the kernel."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Objects kept alive only by their cycles (as the resolution's world leaves them), dropped; the
# resident size is read before and after the release. Python's own collection thresholds are
# raised so that only the call under test collects.
CHILD = """
import gc, sys
from mnemo_core.heap import release_freed
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
gc.disable()
held = []
for i in range(300_000):
    node = {"id": i, "text": "x" * 200}
    node["self"] = node
    held.append(node)
del held, node
before = rss()
release_freed()
print(before, rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_memory_kept_by_cycles_goes_back_to_the_system() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True).stdout
    before, after = map(int, out.split())
    assert before - after >= 40  # MB: ~300k dicts and strings of ~200 bytes freed and returned
