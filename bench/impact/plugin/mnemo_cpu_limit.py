"""A pytest plugin for the mutation benchmark: a test fails when one of its phases spends more than
``--cpu-limit`` seconds of CPU time.

pytest-timeout's limit is in wall seconds, so on a loaded machine a test that merely waits for a core
fails on a mutant as if the mutant had made it loop, and the failing tests (the benchmark's ground
truth) depend on the load. Process CPU time (``ITIMER_PROF``: user and system, every thread) does not
grow with waiting, so an endless loop still fails its test, and a slow test under load does not. A
phase blocked without spending CPU (a lock never released) is left to pytest-timeout's wall limit.

Loaded with ``-p mnemo_cpu_limit``; it imports only pytest, since it runs in the measured repository's
virtualenv. POSIX only (``signal.setitimer``).
"""

from __future__ import annotations

import signal
from collections.abc import Generator
from types import FrameType

import pytest


class CpuLimitExceeded(Exception):
    """Raised in the test's own frame when its phase has spent its CPU budget."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-limit", type=float, default=0.0, help="CPU seconds per test phase (0: none)")


def _raise(signum: int, frame: FrameType | None) -> None:
    raise CpuLimitExceeded("the test spent its CPU budget (an endless loop?)")


def _limited(item: pytest.Item) -> Generator[None, None, None]:
    limit = float(item.config.getoption("--cpu-limit"))
    if limit <= 0:
        yield
        return
    previous = signal.signal(signal.SIGPROF, _raise)
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    yield from _limited(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    yield from _limited(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield from _limited(item)
