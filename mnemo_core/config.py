"""Project settings: defaults, then ``mnemo.toml`` or ``[tool.mnemo]`` in ``pyproject.toml``.

``mnemo.toml`` (keys at the top level) wins over ``pyproject.toml`` when both exist, as
``ruff.toml`` does for ruff: one file decides, nothing is merged. Keys may be spelled with ``_`` or
``-``. An unknown key is logged and ignored (a newer mnemo may know it); a known key with a wrong
type or value is a MnemoError naming the file and the key. Command-line options override the file
through :meth:`Config.override`.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from mnemo_core.defaults import DEFAULT_BUDGET, DEFAULT_DEPTH
from mnemo_core.errors import MnemoError
from mnemo_core.fsread import Refused, read_inside
from mnemo_core.model import RISK_LEVELS, RiskLevel

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

log = logging.getLogger(__name__)

MAX_CONFIG_BYTES = 1_000_000  # a settings file is a few lines; a pyproject with its tables a few KB
SHOWN_CHARS = 80  # of a bad value or key in a message: enough to recognise it, never megabytes
UNKNOWN_SHOWN = 5  # unknown keys named in the one warning about them
_told: set[str] = set()

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
    """The settings of the project at ``root``: ``mnemo.toml``, else ``[tool.mnemo]``, else defaults.
    Either file is read only when it is a regular file inside the repository (a link to a file
    elsewhere is refused, as every file mnemo reads from a repository), and at most
    ``MAX_CONFIG_BYTES`` of it."""
    own = _read_bytes(root, CONFIG_FILE)
    if own is not None:
        return _from_table(_parse(own, root / CONFIG_FILE), str(root / CONFIG_FILE))
    pyproject = root / PYPROJECT_FILE
    data = _read_bytes(root, PYPROJECT_FILE)
    if data is not None and b"mnemo" in data:  # parsing a pyproject costs more than a warm query's start
        table = _parse(data, pyproject).get("tool", {}).get("mnemo")
        if table is not None:
            if not isinstance(table, dict):
                raise MnemoError(f"{pyproject}: [tool.mnemo] must be a table")
            return _from_table(table, f"{pyproject} [tool.mnemo]")
    return Config()


def _read_bytes(root: Path, name: str) -> bytes | None:
    """The bytes of ``root/name``; None when there is no such file."""
    if not os.path.lexists(root / name):
        return None
    try:
        return read_inside(root, name, MAX_CONFIG_BYTES).data
    except Refused as exc:
        raise MnemoError(
            f"{root / name}: refused ({exc.reason}); settings are read from the repository only"
        ) from exc
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MnemoError(f"cannot read {root / name}: {exc.strerror}") from exc


def _parse(data: bytes, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MnemoError(f"{path} is not valid TOML: {shown(str(exc))}") from exc


def _from_table(table: dict[str, Any], where: str) -> Config:
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in SETTINGS:
            unknown.append(raw_key)
            continue
        _check(key, value, where)
        values[key] = value
    if unknown:
        names = ", ".join(f"'{shown(k)}'" for k in unknown[:UNKNOWN_SHOWN])
        more = f" and {len(unknown) - UNKNOWN_SHOWN} more" if len(unknown) > UNKNOWN_SHOWN else ""
        warning = f"{where}: unknown settings ignored: {names}{more} (known: {', '.join(SETTINGS)})"
        if warning not in _told:  # once per process, however often the settings are read
            _told.add(warning)
            log.warning("%s", warning)
    return replace(Config(), source=where, **values)


def shown(value: Any) -> str:
    """A value as an error message quotes it: its ``repr``, cut to ``SHOWN_CHARS``."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "\u2026"


def _check(key: str, value: Any, where: str) -> None:
    """Raise a MnemoError when ``value`` is not valid for setting ``key``."""
    if key == "fail_on":
        if value not in FAIL_ON_LEVELS:
            raise MnemoError(
                f"{where}: fail_on must be one of {', '.join(FAIL_ON_LEVELS)} (got {shown(repr(value))})"
            )
    elif key in ("require_tests", "memory"):
        if not isinstance(value, bool):
            raise MnemoError(f"{where}: {key} must be true or false (got {shown(repr(value))})")
    elif key in ("coverage", "coverage_commit"):
        if not isinstance(value, str) or not value.strip():
            raise MnemoError(f"{where}: {key} must be a non-empty string (got {shown(repr(value))})")
    elif key in ("max_callers", "depth", "budget"):
        least = 0 if key == "max_callers" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise MnemoError(
                f"{where}: {key} must be a whole number of at least {least} (got {shown(repr(value))})"
            )
    else:
        raise MnemoError(f"{where}: unknown setting '{shown(key)}'")
