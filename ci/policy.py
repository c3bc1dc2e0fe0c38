"""The team's rules for a change: which blast radius fails the pre-commit hook and the CI check.

Settings come from ``[tool.mnemo]`` or ``mnemo.toml`` (``mnemo_core.config``); the options added by
:func:`add_policy_arguments` override them for one run (hook ``args``, workflow flags).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from mnemo_core.config import FAIL_ON_LEVELS, Config
from mnemo_core.model import RISK_LEVELS, Impact

RISK_RANK: dict[str, int] = {level: rank for rank, level in enumerate(RISK_LEVELS)}
NAMES_LISTED = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """Whether a change passes, and each rule it breaks in words."""

    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """No rule is broken."""
        return not self.failures


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """``--fail-on``, ``--max-callers`` and ``--require-tests``: the settings, for one run."""
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON_LEVELS,
        help="fail at this risk or above (default: the config's fail_on, else high)",
    )
    parser.add_argument(
        "--max-callers", type=int, metavar="N", help="fail when more than N symbols depend on the change"
    )
    parser.add_argument(
        "--require-tests",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="fail when a changed symbol is reached by no test",
    )


def configured(config: Config, args: argparse.Namespace) -> Config:
    """The settings with the command-line options applied."""
    return config.override(
        fail_on=args.fail_on, max_callers=args.max_callers, require_tests=args.require_tests
    )


def evaluate(impact: Impact, config: Config) -> Outcome:
    """The rules ``impact`` breaks under ``config``."""
    failures = []
    if config.fail_on != "never" and RISK_RANK[impact.risk] >= RISK_RANK[config.fail_on]:
        failures.append(f"risk {impact.risk} is at or above fail_on = {config.fail_on}")
    if config.max_callers is not None and len(impact.callers) > config.max_callers:
        failures.append(
            f"{len(impact.callers)} impacted callers, more than max_callers = {config.max_callers}"
        )
    untested = [
        s.symbol.name
        for s in impact.changed
        if s.components.get("tests") == 0 and not s.components.get("dynamic")  # dynamic: possible tests
    ]
    if config.require_tests and untested:
        more = f" and {len(untested) - NAMES_LISTED} more" if len(untested) > NAMES_LISTED else ""
        failures.append(f"require_tests: no test reaches {', '.join(untested[:NAMES_LISTED])}{more}")
    return Outcome(tuple(failures))


def describe(outcome: Outcome, config: Config) -> str:
    """One line for the log: passed, or failed with every broken rule; and where the settings come from."""
    origin = f"settings from {config.source}" if config.source else "default settings"
    if outcome.passed:
        return f"passed ({origin}, fail_on = {config.fail_on})"
    return f"FAILED: {'; '.join(outcome.failures)} ({origin} and options)"
