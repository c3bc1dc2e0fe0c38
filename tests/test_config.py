"""Tests for mnemo_core/config.py: defaults, the two files, precedence, validation, overrides."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mnemo_core.config import Config, load_config
from mnemo_core.defaults import DEFAULT_BUDGET, DEFAULT_DEPTH
from mnemo_core.errors import MnemoError


def test_defaults_without_any_file(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config("high", None, False, DEFAULT_DEPTH, DEFAULT_BUDGET, None)


def test_pyproject_tool_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.mnemo]\nfail-on = "medium"\nmax_callers = 20\nrequire-tests = true\n'
        "depth = 2\nbudget = 4000\n",
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert (config.fail_on, config.max_callers, config.require_tests, config.depth, config.budget) == (
        "medium",
        20,
        True,
        2,
        4000,
    )
    assert config.source == f"{tmp_path / 'pyproject.toml'} [tool.mnemo]"


def test_pyproject_without_the_table_gives_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n", encoding="utf-8")
    assert load_config(tmp_path) == Config()


def test_mnemo_toml_wins_over_pyproject(tmp_path: Path) -> None:
    pyproject = '[tool.mnemo]\nfail_on = "low"\nmax_callers = 3\n'
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (tmp_path / "mnemo.toml").write_text('fail_on = "never"\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert (config.fail_on, config.max_callers) == ("never", None)
    assert config.source == str(tmp_path / "mnemo.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('fail_on = "critical"\n', "fail_on must be one of low, medium, high, never (got 'critical')"),
        ("max_callers = -1\n", "max_callers must be a whole number of at least 0 (got -1)"),
        ("depth = 0\n", "depth must be a whole number of at least 1 (got 0)"),
        ('budget = "8k"\n', "budget must be a whole number of at least 1 (got '8k')"),
        ("depth = true\n", "depth must be a whole number of at least 1 (got True)"),
        ('require_tests = "yes"\n', "require_tests must be true or false (got 'yes')"),
        ("fail_on = \n", "is not valid TOML"),
        ("coverage = 1\n", "coverage must be a non-empty string (got 1)"),
        ('coverage_commit = ""\n', "coverage_commit must be a non-empty string (got '')"),
    ],
)
def test_bad_values_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "mnemo.toml").write_text(text, encoding="utf-8")
    with pytest.raises(MnemoError, match=r"mnemo\.toml") as info:
        load_config(tmp_path)
    assert message in str(info.value)


def test_the_coverage_settings(tmp_path: Path) -> None:
    (tmp_path / "mnemo.toml").write_text('coverage = "cov/.coverage"\ncoverage-commit = "main"\n')
    config = load_config(tmp_path)
    assert (config.coverage, config.coverage_commit) == ("cov/.coverage", "main")


def test_a_non_table_tool_mnemo_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\nmnemo = "high"\n', encoding="utf-8")
    with pytest.raises(MnemoError, match=r"\[tool.mnemo\] must be a table"):
        load_config(tmp_path)


def test_unknown_keys_are_logged_and_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "mnemo.toml").write_text('fail_on = "low"\nfail_onn = "high"\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mnemo_core.config"):
        config = load_config(tmp_path)
    assert config.fail_on == "low"
    assert "unknown settings ignored: 'fail_onn'" in caplog.text


def test_override_skips_options_not_given_and_checks_the_rest() -> None:
    config = Config(fail_on="medium", max_callers=5).override(fail_on=None, max_callers=9, require_tests=True)
    assert (config.fail_on, config.max_callers, config.require_tests) == ("medium", 9, True)
    with pytest.raises(MnemoError, match="the command line: max_callers must be"):
        Config().override(max_callers=-2)
