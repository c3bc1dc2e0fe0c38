"""No entry point imports or runs the analysed repository's code, whatever the working directory:
modules planted under the names of what mnemo imports (``multiprocessing``, ``numpy``, ``json``, ...)
leave a marker when imported, and there must be none after the CLI, ``mnemo-ci``, ``mnemo-precommit``
(also through ``pre-commit try-repo``) and the language server worked on the repository."""

from __future__ import annotations

import sys

import pytest
from ci_helpers import (
    CHECKOUT,
    HOOK_ID,
    REPOSITORY,
    TOKEN,
    FakeGitHub,
    run_tool,
    write_event,
)
from helpers import git, write_files
from hostile_repos import BIN, Hostile, mnemo_env, run_in

from ci.comment import main as ci_main
from mnemo_core.cli import main


def test_the_cli_in_process_with_the_repository_as_working_directory(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(hostile.root)
    assert main(["index", "--full"]) == 0
    for args in (
        ["find", "step3"],
        ["task", "the pipeline step"],
        ["files", "app/mod2.py"],
        ["pr", "--base", hostile.pr.base],
    ):
        assert main(args) == 0, capsys.readouterr().err
    assert hostile.ran() == []


@pytest.mark.parametrize(
    "command",
    [
        ["mnemo", "index", "--full"],
        ["python", "-m", "mnemo_core.cli", "index", "--full"],
        ["python", "-m", "mnemo_core.cli", "pr", "--base", "main"],
        ["mnemo-ci", "--dry-run"],
        ["python", "-P", "-m", "ci", "--dry-run"],  # -P: ``python -m ci`` would find the planted ci/ first
        ["mnemo-precommit"],
    ],
    ids=lambda c: " ".join(c[:3]),
)
def test_entry_points_started_inside_the_repository(hostile: Hostile, command: list[str]) -> None:
    program = sys.executable if command[0] == "python" else str(BIN / command[0])
    event = write_event(hostile.root.parent / "event.json", 7, hostile.pr.base, hostile.pr.head)
    env = mnemo_env(
        GITHUB_EVENT_NAME="pull_request", GITHUB_EVENT_PATH=str(event), GITHUB_REPOSITORY=REPOSITORY
    )
    if command[0] == "mnemo-precommit":
        write_files(hostile.root, {"app/mod5.py": "def step5(x):\n    return x\n"})
        git(hostile.root, "add", "-A")
    done = run_in(hostile.root, program, *command[1:], env=env)
    assert done.returncode in (0, 5), done.stderr
    assert "Traceback" not in done.stderr and hostile.ran() == []


def test_the_ci_entrypoint_posting_to_github(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeGitHub()
    api.start()
    try:
        monkeypatch.chdir(hostile.root)
        env = {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_EVENT_PATH": str(
                write_event(hostile.root.parent / "event.json", 7, hostile.pr.base, hostile.pr.head)
            ),
            "GITHUB_API_URL": api.url,
            "GITHUB_TOKEN": TOKEN,
        }
        assert ci_main(["--backoff", "0.01"], env=env) in (0, 5), capsys.readouterr().err
        [posted] = api.comments[7]
        assert "step1" in posted["body"]
    finally:
        api.stop()
    assert hostile.ran() == []


@pytest.mark.slow  # the hook runs in this repository by default through its entry point (above)
def test_the_published_hook_through_pre_commit_try_repo(
    hostile: Hostile, try_repo_env: dict[str, str]
) -> None:
    head = git(CHECKOUT, "rev-parse", "HEAD").strip()
    write_files(
        hostile.root,
        {
            ".pre-commit-config.yaml": f"repos:\n- repo: {CHECKOUT}\n  rev: {head}\n"
            f"  hooks:\n  - id: {HOOK_ID}\n",
            "app/mod5.py": "def step5(x):\n    return x\n",
        },
    )
    git(hostile.root, "add", "-A")
    # pre-commit's console script: ``python -m pre_commit`` would itself import the planted modules
    done = run_tool(
        str(BIN / "pre-commit"),
        "try-repo",
        str(CHECKOUT),
        HOOK_ID,
        "--verbose",
        cwd=hostile.root,
        env=try_repo_env,
    )
    assert "mnemo: staged change: risk" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr and hostile.ran() == []
