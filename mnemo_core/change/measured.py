"""What a change analysis says about measured evidence without loading the coverage reader.

Where coverage data is and which commit it was measured at (``CoverageSource``, chosen by
``coverage_source`` from an option or the ``coverage`` setting), what it found (``CoverageEvidence``),
which definitions of a name a change touched (``Touched``), and the labels of measured hops. The
reader itself (``change.coverage``: coverage.py's API, the extractor at the measured commit) loads
only when a change has coverage data to read, so a pre-commit hook without any never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mnemo_core.config import Config
from mnemo_core.errors import MnemoError
from mnemo_core.model import PathResolution

if TYPE_CHECKING:  # the walks load with the analysis: a kept answer (``change.answers``) needs none
    from mnemo_core.change.impact import ReachingTests

DEFAULT_COMMIT = "HEAD"  # coverage is usually taken on the checked-out commit
CO_RAN = "co-ran"  # the label of a new test's hop to a symbol the tests of its class ran (``CO_RUN_PEERS``)
CALLS_NEW = "calls, new since"  # the label of a measured caller's hop to a symbol the data never saw
COVERAGE_RESOLUTION: PathResolution = "coverage"  # a test's evidence when it ran the symbol's lines


@dataclass(frozen=True, slots=True)
class CoverageSource:
    """Where the coverage data is and the commit it was measured at (a ref, resolved later)."""

    path: Path
    commit: str = DEFAULT_COMMIT
    named_by: str = "--coverage"  # the option or setting that named it, for messages
    required: bool = True  # a missing file is an error (named by an option), else only a note
    is_map: bool = False  # mnemo's own coverage map (``covmap``) rather than a coverage.py file


@dataclass(frozen=True, slots=True)
class CoverageEvidence:
    """The tests of each changed symbol the coverage measured (empty: measured, no test ran it)."""

    commit: str
    tests: dict[int, ReachingTests]
    notes: tuple[str, ...]


class Touched(NamedTuple):
    """Which definitions of a symbol's name a change touched (ranks in source order), of how many."""

    ranks: frozenset[int]
    namesakes: int


def coverage_source(
    root: Path, config: Config, path: str | Path | None = None, commit: str | None = None
) -> CoverageSource | None:
    """The coverage data to use: ``path`` (an option, relative to the working directory), else the
    ``coverage`` setting (relative to the repository, and inside it); None when neither names one.
    The commit: ``commit``, else ``coverage_commit``, else ``HEAD``. A default ``.coverage`` is not
    picked up: one left by a plain ``pytest --cov`` has no per-test contexts and no commit."""
    at = commit or config.coverage_commit or DEFAULT_COMMIT
    if path is not None:
        return CoverageSource(Path(path).absolute(), at)
    if config.coverage is None:
        return None
    where = f"coverage in {config.source}"
    resolved = (root / config.coverage).resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise MnemoError(f"{where}: {config.coverage!r} is outside the repository")
    return CoverageSource(resolved, at, where, required=False)
