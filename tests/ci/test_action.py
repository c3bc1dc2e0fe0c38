"""Tests for ci/action.yml, .pre-commit-hooks.yaml and the workflows in docs/ci.md: valid YAML that
uses only options mnemo-ci and the hook have."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ci.comment import build_parser as ci_parser
from ci.precommit import build_parser as hook_parser
from ci.workflow import OUTPUTS

ROOT = Path(__file__).resolve().parents[2]


def options(parser: Any) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def test_the_action_is_a_composite_that_passes_inputs_through_the_environment() -> None:
    action = yaml.safe_load((ROOT / "ci" / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    run = steps[-1]["run"]
    [install] = [s for s in steps if s.get("name") == "Install mnemo"]
    assert install["working-directory"] == "${{ runner.temp }}"  # `python -m` never sees the checkout
    [cache] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache["with"]["path"] == "${{ runner.temp }}/mnemo"  # the environment install creates
    assert install["if"] == f"steps.{cache['id']}.outputs.cache-hit != 'true'"
    assert "${{" not in run  # inputs arrive as environment variables, never pasted into the script
    assert set(re.findall(r"--[a-z-]+", run)) <= options(ci_parser())
    assert set(action["inputs"]) == {
        "path",
        "fail-on",
        "max-callers",
        "require-tests",
        "dry-run",
        "header",
        "skip-without-code",
        "coverage",
        "coverage-commit",
        "token",
        "python-version",
    }
    assert {name: out["value"] for name, out in action["outputs"].items()} == {
        name: f"${{{{ steps.{steps[-1]['id']}.outputs.{name} }}}}" for name in OUTPUTS
    }


def test_the_hook_manifest() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert (hook["id"], hook["entry"], hook["language"], hook["pass_filenames"]) == (
        "mnemo-blast-radius",
        "mnemo-precommit",
        "python",
        False,
    )
    assert hook["stages"] == ["pre-commit", "pre-push"] and hook["always_run"] and hook["verbose"]
    assert {"--fail-on", "--max-callers", "--require-tests"} <= options(hook_parser())


def test_the_documented_workflow_fetches_history_and_may_comment() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"), re.S)
    workflow = next(yaml.safe_load(b) for b in blocks if "jobs:" in b)
    assert workflow["permissions"]["pull-requests"] == "write"
    assert list(workflow[True]) == ["pull_request"]  # YAML 1.1 reads the key `on` as true
    checkout = workflow["jobs"]["blast-radius"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0
    for block in blocks:
        yaml.safe_load(block)
