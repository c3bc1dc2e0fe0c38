"""Project settings: defaults, then ``mnemo.toml`` or ``[tool.mnemo]`` in ``pyproject.toml``.

``mnemo.toml`` (keys at the top level) wins over ``pyproject.toml`` when both exist, as
``ruff.toml`` does for ruff: one file decides, nothing is merged. Keys may be spelled with ``_`` or
``-``. An unknown key is logged and ignored (a newer mnemo may know it); a known key with a wrong
type or value is a MnemoError naming the file and the key. Command-line options override the file
through :meth:`Config.override`.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from mnemo_core.errors import MnemoError
from mnemo_core.model import RISK_LEVELS, RiskLevel
from mnemo_core.pipelines import DEFAULT_BUDGET, DEFAULT_DEPTH

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

log = logging.getLogger(__name__)

CONFIG_FILE = "mnemo.toml"
PYPROJECT_FILE = "pyproject.toml"
FailOn = RiskLevel | Literal["never"]  # "never": report, never fail
FAIL_ON_LEVELS: tuple[FailOn, ...] = (*RISK_LEVELS, "never")
DEFAULT_FAIL_ON: FailOn = "high"  # a still-referenced deleted symbol or a huge blast radius stops the change


@dataclass(frozen=True, slots=True)
class Config:
    """The settings the hook and the CI check act on."""

    fail_on: FailOn = DEFAULT_FAIL_ON  # a risk at or above this level fails; "never" only reports
    max_callers: int | None = None  # more impacted callers than this fails; None: no limit
    require_tests: bool = False  # fail when a changed symbol is reached by no test
    depth: int = DEFAULT_DEPTH  # caller hops of the blast radius
    budget: int = DEFAULT_BUDGET  # token budget of the answer
    source: str | None = None  # the file the settings came from; None: defaults only
    coverage: str | None = None  # a coverage.py data file with per-test contexts, repository-relative
    coverage_commit: str | None = None  # the commit it was taken at; None: HEAD
    memory: bool = True  # remember the session and the tasks in .mnemo/memory.db (false: nothing written)

    def override(self, **values: Any) -> Config:
        """A copy with the given values, skipping those that are None (options not given)."""
        given = {key: value for key, value in values.items() if value is not None}
        for key, value in given.items():
            _check(key, value, "the command line")
        return replace(self, **given)


SETTINGS = tuple(f.name for f in fields(Config) if f.name != "source")


def load_config(root: Path) -> Config:
    """The settings of the project at ``root``: ``mnemo.toml``, else ``[tool.mnemo]``, else defaults."""
    own = root / CONFIG_FILE
    if own.is_file():
        return _from_table(_read(own), str(own))
    pyproject = root / PYPROJECT_FILE
    if pyproject.is_file() and _mentions_mnemo(pyproject):
        table = _read(pyproject).get("tool", {}).get("mnemo")
        if table is not None:
            if not isinstance(table, dict):
                raise MnemoError(f"{pyproject}: [tool.mnemo] must be a table")
            return _from_table(table, f"{pyproject} [tool.mnemo]")
    return Config()


def _mentions_mnemo(path: Path) -> bool:
    """Whether the file can hold a ``[tool.mnemo]`` table at all: most pyproject files do not, and
    parsing one costs more than the rest of a warm query's start."""
    try:
        return b"mnemo" in path.read_bytes()
    except OSError as exc:
        raise MnemoError(f"cannot read {path}: {exc.strerror}") from exc


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise MnemoError(f"{path} is not valid TOML: {exc}") from exc
    except OSError as exc:
        raise MnemoError(f"cannot read {path}: {exc.strerror}") from exc


def _from_table(table: dict[str, Any], where: str) -> Config:
    values: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in SETTINGS:
            log.warning("%s: unknown setting '%s' ignored (known: %s)", where, raw_key, ", ".join(SETTINGS))
            continue
        _check(key, value, where)
        values[key] = value
    return replace(Config(), source=where, **values)


def _check(key: str, value: Any, where: str) -> None:
    """Raise a MnemoError when ``value`` is not valid for setting ``key``."""
    if key == "fail_on":
        if value not in FAIL_ON_LEVELS:
            raise MnemoError(f"{where}: fail_on must be one of {', '.join(FAIL_ON_LEVELS)} (got {value!r})")
    elif key in ("require_tests", "memory"):
        if not isinstance(value, bool):
            raise MnemoError(f"{where}: {key} must be true or false (got {value!r})")
    elif key in ("coverage", "coverage_commit"):
        if not isinstance(value, str) or not value.strip():
            raise MnemoError(f"{where}: {key} must be a non-empty string (got {value!r})")
    elif key in ("max_callers", "depth", "budget"):
        least = 0 if key == "max_callers" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise MnemoError(f"{where}: {key} must be a whole number of at least {least} (got {value!r})")
    else:
        raise MnemoError(f"{where}: unknown setting '{key}'")
