"""The benchmark's baselines: simple rules a developer might use to pick tests for a change (pure).

* **naming**: the tests in files named after the changed module, anywhere in the repository:
  ``src/pkg/foo.py`` -> ``test_foo.py`` or ``foo_test.py`` (leading underscores of the module
  dropped, so ``_compat.py`` -> ``test_compat.py``; a package's ``__init__.py`` stands for the
  package, ``pkg/__init__.py`` -> ``test_pkg.py``);
* **all**: every test that ran;
* **mention**: the tests whose source (decorators included) mentions the changed function's name
  as a word; a dunder method (``__init__``, ``__call__``, ...) is mentioned through its class.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from bench.impact.oracle import test_key


def module_stem(path: str) -> str:
    """The name a test file is named after: ``src/pkg/_foo.py`` -> ``foo``; ``pkg/__init__.py`` -> ``pkg``."""
    p = PurePosixPath(path)
    stem = p.parent.name if p.stem == "__init__" else p.stem
    return stem.lstrip("_")


def naming_baseline(path: str, tests: Iterable[str]) -> set[str]:
    """The tests in files named ``test_<stem>.py`` or ``<stem>_test.py`` for the module at ``path``."""
    stem = module_stem(path)
    names = {f"test_{stem}.py", f"{stem}_test.py"}
    return {t for t in tests if PurePosixPath(t.split("::", 1)[0]).name in names}


def mentioned_name(qualname: str) -> str:
    """The word a test would use for a function: its own name, or its class's for a dunder method."""
    parts = qualname.split(".")
    name = parts[-1]
    if name.startswith("__") and name.endswith("__") and len(parts) > 1:
        return parts[-2]
    return name


def mention_baseline(qualname: str, sources: Mapping[str, str]) -> set[str]:
    """The tests whose source mentions the function's name (see :func:`mentioned_name`) as a word."""
    pattern = re.compile(rf"\b{re.escape(mentioned_name(qualname))}\b")
    return {key for key, text in sources.items() if pattern.search(text)}


def test_function_sources(path: str, text: str) -> dict[str, str]:
    """Each function of a test file by test key (``path::Class::name``), with its decorators' lines."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    lines = text.splitlines()
    found: dict[str, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                text = "\n".join(lines[first - 1 : child.end_lineno])
                found[test_key(path, f"{prefix}{child.name}")] = text
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found
