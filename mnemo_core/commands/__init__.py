"""One module per CLI verb; each exposes ``register(subparsers)`` that sets ``run``."""

from __future__ import annotations

from mnemo_core.commands import change, coverage, feedback, find, graph, history, index, stats, task

COMMANDS = (index, stats, find, graph, history, task, feedback, change, coverage)
