"""Which files, classes and functions are runnable tests: pytest's own settings, from the repository.

pytest collects the files ``python_files`` names (globs on the file's name, or on its path when a
pattern holds a ``/``), in them the classes ``python_classes`` names and the functions and methods
``python_functions`` names (each pattern a name prefix, or a glob when it holds ``*``, ``?`` or
``[``), and every ``unittest.TestCase`` whatever the settings. The settings come from the first
configuration file at the repository's root that configures pytest, in pytest's order:
``pytest.toml`` and ``.pytest.toml`` (``[pytest]``), ``pytest.ini`` and ``.pytest.ini`` (these four
decide even without a pytest section), ``pyproject.toml`` (``[tool.pytest]``, pytest 9's native
table, or ``[tool.pytest.ini_options]``), ``tox.ini`` (``[pytest]``), ``setup.cfg``
(``[tool:pytest]``). The files are parsed (``tomllib``, ``configparser``), never run. A file that does
not parse, or a setting of the wrong type, is logged once and every setting keeps mnemo's default;
a setting left out keeps its own. The defaults are mnemo's own reading of a project: ``test_*.py``
and ``*_test.py`` files and any file under a test directory, ``Test*`` classes (and ``*Test`` and
``*Tests`` classes in test files, as projects commonly configure), ``test*`` functions.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import logging
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mnemo_core.fsread import Refused, read_inside

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

log = logging.getLogger(__name__)

SETTINGS = ("python_files", "python_classes", "python_functions")
MAX_CONFIG_BYTES = 1_000_000  # a configuration file larger than this is not one
GLOB_CHARACTERS = ("*", "?", "[")  # a name pattern with one of these is a glob, else a prefix
_warned: set[tuple[str, int, int]] = set()  # (path, size, mtime) of the files already reported


class MalformedConfig(ValueError):
    """A configuration file that does not parse, or a pytest setting of the wrong type."""


@dataclass(frozen=True, slots=True)
class PytestDiscovery:
    """pytest's collection settings of a repository; None: the setting is not configured."""

    files: tuple[str, ...] | None = None
    classes: tuple[str, ...] | None = None
    functions: tuple[str, ...] | None = None
    source: str | None = None  # the file they came from

    @property
    def fingerprint(self) -> str:
        """What the index depends on: a change means every file is classified again."""
        return json.dumps([self.files, self.classes, self.functions])

    def collects_file(self, path: str) -> bool:
        """Whether pytest collects tests from ``path`` (repository-relative, POSIX)."""
        if self.files is None:
            name = PurePosixPath(path).name
            return name.startswith("test_") or name.endswith("_test.py")
        return any(_path_matches(pattern, path) for pattern in self.files)

    def runs_tests_in(self, path: str) -> bool | None:
        """Whether the tests defined in ``path`` run, when ``python_files`` is set; None when it is not
        (mnemo's reading of a project: wherever its test code is)."""
        return None if self.files is None else self.collects_file(path)

    def test_class(self, name: str, in_test_file: bool) -> bool:
        """Whether pytest collects a class of this name (``unittest.TestCase`` aside)."""
        if self.classes is None:
            return name.startswith("Test") or (in_test_file and name.endswith(("Test", "Tests")))
        return in_test_file and _name_matches(self.classes, name)

    def test_function(self, name: str) -> bool:
        """Whether pytest collects a function or method of this name."""
        return name.startswith("test") if self.functions is None else _name_matches(self.functions, name)


DEFAULT_DISCOVERY = PytestDiscovery()


def _path_matches(pattern: str, path: str) -> bool:
    """pytest's ``fnmatch_ex``: on the name, or on the whole path when the pattern has a ``/``."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(PurePosixPath(path).name, pattern)
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase("/" + path, "*/" + pattern)


def _name_matches(patterns: tuple[str, ...], name: str) -> bool:
    """pytest's ``_matches_prefix_or_glob_option``."""
    return any(
        name.startswith(p) or (any(c in p for c in GLOB_CHARACTERS) and fnmatch.fnmatchcase(name, p))
        for p in patterns
    )


def read_discovery(root: Path) -> PytestDiscovery:
    """The collection settings of the repository at ``root`` (see the module)."""
    for name, load in _LOADERS:
        try:
            read = read_inside(root, name, MAX_CONFIG_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (Refused, OSError) as exc:
            _warn_once(root / name, 0, 0, f"not read ({exc})")
            return DEFAULT_DISCOVERY
        try:
            table = load(read.data.decode("utf-8"))
            if table is None:
                continue
            return _discovery(table, name)
        except (MalformedConfig, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error) as exc:
            _warn_once(
                root / name, read.size, read.mtime_ns, str(exc).splitlines()[0] if str(exc) else "malformed"
            )
            return DEFAULT_DISCOVERY
    return DEFAULT_DISCOVERY


def _warn_once(path: Path, size: int, mtime_ns: int, why: str) -> None:
    """Log a configuration file mnemo cannot use, once per version of the file in a process."""
    if (str(path), size, mtime_ns) not in _warned:
        _warned.add((str(path), size, mtime_ns))
        log.warning("%s: pytest settings ignored (%s); tests found by mnemo's defaults", path.name, why)


def _discovery(table: dict[str, object], source: str) -> PytestDiscovery:
    files, classes, functions = (_patterns(table.get(key), key) for key in SETTINGS)
    return PytestDiscovery(files, classes, functions, source)


def _patterns(value: object, key: str) -> tuple[str, ...] | None:
    """A setting as pytest's ``args`` type reads it: a list of strings, or one string split like a
    shell would."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return tuple(shlex.split(value))
        except ValueError as exc:
            raise MalformedConfig(f"{key}: {exc}") from exc
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise MalformedConfig(f"{key} must be a string or a list of strings")


def _toml_table(text: str, *keys: str) -> dict[str, object] | None:
    node: object = tomllib.loads(text)
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    if not isinstance(node, dict):
        raise MalformedConfig(f"[{'.'.join(keys)}] must be a table")
    return node


def _pytest_toml(text: str) -> dict[str, object] | None:
    return _toml_table(text, "pytest") or {}


def _pyproject(text: str) -> dict[str, object] | None:
    if "pytest" not in text:  # no table of pytest's: not worth parsing
        return None
    ini = _toml_table(text, "tool", "pytest", "ini_options")
    if ini is not None:
        return ini
    native = _toml_table(text, "tool", "pytest")
    return native if native else None


def _ini_section(section: str, always: bool) -> Callable[[str], dict[str, object] | None]:
    def load(text: str) -> dict[str, object] | None:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        parser.read_string(text)
        if not parser.has_section(section):
            return {} if always else None
        return dict(parser.items(section))

    return load


_LOADERS: tuple[tuple[str, Callable[[str], dict[str, object] | None]], ...] = (
    ("pytest.toml", _pytest_toml),
    (".pytest.toml", _pytest_toml),
    ("pytest.ini", _ini_section("pytest", always=True)),
    (".pytest.ini", _ini_section("pytest", always=True)),
    ("pyproject.toml", _pyproject),
    ("tox.ini", _ini_section("pytest", always=False)),
    ("setup.cfg", _ini_section("tool:pytest", always=False)),
)
