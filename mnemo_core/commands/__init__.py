"""One module per CLI verb; each exposes ``register(subparsers)`` that sets ``run``."""

from __future__ import annotations

from mnemo_core.commands import change, find, graph, index, stats, task

COMMANDS = (index, stats, find, graph, task, change)
