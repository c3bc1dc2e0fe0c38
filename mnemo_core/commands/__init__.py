"""One module per CLI verb; each exposes ``register(subparsers)`` that sets ``run``.

``VERBS`` names the module of each verb, so that a command line naming one registers (and imports)
only that module: building every subparser costs a query about 8 ms of CPU, mostly in argparse.
"""

from __future__ import annotations

import importlib
from types import ModuleType

VERBS = {  # verb -> the module of this package that registers it (a test holds it to ``register``)
    "index": "index",
    "stats": "stats",
    "find": "find",
    "callers": "graph",
    "callees": "graph",
    "history": "history",
    "task": "task",
    "why": "task",
    "feedback": "feedback",
    "pr": "change",
    "files": "change",
    "tests": "change",
    "coverage": "coverage",
}
MODULES = tuple(dict.fromkeys(VERBS.values()))  # each module once, in help order


def command_modules(verb: str | None = None) -> list[ModuleType]:
    """The modules that register ``verb`` (every verb's when it names none of them), in help order."""
    names = [VERBS[verb]] if verb in VERBS else list(MODULES)
    return [importlib.import_module(f"{__name__}.{name}") for name in names]
