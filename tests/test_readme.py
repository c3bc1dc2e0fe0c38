"""The README tells the truth: every command in its table takes ``--repo`` and ``--format json`` and
answers with ``"schema": 1``; the first command installs no dev tools and ``.ci/run`` runs its test
command; the pre-commit and CI snippets (README and docs/ci.md) work as pasted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import commit, make_repo, write_files

from ci.comment import build_parser as ci_parser
from mnemo_core.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS_CI = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
FILES = {
    "shop/cart.py": (
        "from shop.pricing import total\n\nclass Cart:\n    def checkout(self):\n"
        "        return total(self.items())\n    def items(self):\n        return []\n"
    ),
    "shop/pricing.py": "def total(items):\n    return sum(items)\n",
    "tests/test_pricing.py": (
        "from shop.pricing import total\n\ndef test_total():\n    assert total([1]) == 1\n"
    ),
}
ARGUMENTS = {  # what each command of the table is given besides --repo and --format
    "index": [],
    "stats": [],
    "find": ["total"],
    "callers": ["total"],
    "callees": ["Cart.checkout"],
    "history": ["total"],
    "task": ["cart checkout total"],
    "why": ["--task", "cart checkout total", "total"],
    "feedback": ["--task", "cart checkout total", "--used", "total", "--useless", "Cart.items"],
    "pr": ["--base", "HEAD~1"],
    "files": ["shop/pricing.py"],
    "tests": ["--base", "HEAD~1"],
    "coverage": ["show"],
}


def table_commands() -> list[str]:
    """The commands of the README's command table (``| `mnemo VERB ...` | ... |``)."""
    return re.findall(r"^\| `mnemo (\w+)", README, re.M)


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("readme") / "r", FILES)
    edited = FILES["shop/pricing.py"].replace("sum(items)", "sum(items) + 0")
    commit(root, {"shop/pricing.py": edited}, "edit")
    return root


def test_the_table_lists_every_command() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(sub.choices, dict)
    assert sorted(table_commands()) == sorted(sub.choices) == sorted(ARGUMENTS)


@pytest.mark.parametrize("command", table_commands())
def test_every_command_takes_repo_and_answers_json_with_a_schema(
    command: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, *ARGUMENTS[command], "--repo", str(repo), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert isinstance(answer, dict) and answer["schema"] == 1
    assert main([command, *ARGUMENTS[command], "--repo", str(repo), "--format", "text"]) == 0
    assert capsys.readouterr().out.strip()


def test_the_first_command_installs_no_dev_tools_and_ci_runs_the_test_command() -> None:
    first = re.search(r"```bash\n(.*?)```", README, re.S)
    assert first is not None
    install, test = first.group(1).strip().splitlines()
    assert install.startswith("pip install . && mnemo index . && mnemo task ")
    assert test == "python -m pytest -q"
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^python3 -m pytest -q(\s|$)", ci_run, re.M)


def test_no_snippet_has_a_placeholder_to_fill_in() -> None:
    for block in [*yaml_blocks(README), *yaml_blocks(DOCS_CI)]:
        assert "OWNER" not in block, block
        yaml.safe_load(block)


def test_the_documented_workflow_installs_mnemo_outside_the_checkout() -> None:
    workflow = next(yaml.safe_load(b) for b in yaml_blocks(DOCS_CI) if "jobs:" in b)
    steps = workflow["jobs"]["blast-radius"]["steps"]
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert install["working-directory"] == "${{ runner.temp }}"
    assert '"$MNEMO_SOURCE"' in install["run"] and "vars.MNEMO_SOURCE" in install["env"]["MNEMO_SOURCE"]
    command = steps[-1]["run"].split("#")[0].split()
    assert command[0] == "$RUNNER_TEMP/mnemo/bin/mnemo-ci"
    known = {flag for action in ci_parser()._actions for flag in action.option_strings}
    assert {word for word in command if word.startswith("--")} <= known


def test_the_pre_commit_snippet_runs_as_pasted(tmp_path: Path) -> None:
    readme_config = next(b for b in yaml_blocks(README) if "repos:" in b)
    assert readme_config in yaml_blocks(DOCS_CI)  # one snippet, the same in both places
    root = make_repo(tmp_path / "user", FILES)
    write_files(root, {".pre-commit-config.yaml": readme_config})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        HOME=str(tmp_path),
        PRE_COMMIT_HOME=str(tmp_path / "cache"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # mnemo-precommit
    )
    write_files(root, {"shop/pricing.py": FILES["shop/pricing.py"].replace("sum(items)", "sum(items) + 1")})
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run"], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mnemo blast radius" in done.stdout and "1 changed symbol" in done.stdout
