"""Tests for ci/comment.py (``mnemo-ci``) end to end: a real repository, a synthetic pull_request
event and the fake GitHub API on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ci_helpers import REPOSITORY, SHOP, TOKEN, FakeGitHub, PullRequestRepo, make_pull_request, write_event
from helpers import git

from ci.comment import main
from ci.guard import EXIT_POLICY
from ci.workflow import OUTPUTS
from mnemo_core.boundary import EXIT_ERROR
from mnemo_core.cli import main as mnemo_main
from mnemo_core.render_review import MARKER

NUMBER = 12
MODIFIED = {"shop/pricing.py": SHOP["shop/pricing.py"].replace("item * 2", "item * 3")}
DELETED = {"shop/pricing.py": "def total(items):\n    return sum(price(i) for i in items)\n"}
FAST = ["--backoff", "0.01", "--timeout", "5"]


def environment(
    pr: PullRequestRepo, tmp_path: Path, api: FakeGitHub | None = None, **overrides: str
) -> dict[str, str]:
    """The variables GitHub Actions sets for a pull_request job (no token without an API)."""
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(write_event(tmp_path / "event.json", NUMBER, pr.base, pr.head)),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    if api is not None:
        env.update(GITHUB_API_URL=api.url, GITHUB_TOKEN=TOKEN)
    env.update(overrides)
    return env


def run(
    pr: PullRequestRepo, env: dict[str, str], capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """``mnemo-ci`` on the pull request's checkout: (exit code, stdout, stderr); the token never shows."""
    code = main(["--repo", str(pr.root), *FAST, *args], env=env)
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return code, out, err


def test_first_run_creates_the_comment_and_the_next_push_updates_it(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    code, _, err = run(pr, environment(pr, tmp_path, github), capsys)
    assert code == 0, err
    assert "mnemo-ci: created comment https://github.com/acme/shop/pull/12#issuecomment-" in err
    assert f"mnemo-ci: #{NUMBER}: risk low, 1 changed, 2 impacted, 1 tests; passed" in err
    [comment] = github.comments[NUMBER]
    body = comment["body"]
    assert body.startswith(MARKER)
    assert f"[`price`](https://github.com/acme/shop/blob/{pr.head}/shop/pricing.py#L1-L2)" in body
    assert "tests/test_cart.py::test_checkout" in body and "pytest tests/test_cart.py::test_checkout" in body
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == body + "\n"

    pr.push({"shop/cart.py": SHOP["shop/cart.py"] + "\n\ndef empty():\n    return checkout([])\n"}, "empty")
    code, _, err = run(pr, environment(pr, tmp_path, github), capsys)
    assert code == 0, err
    assert "mnemo-ci: updated comment" in err
    [updated] = github.comments[NUMBER]
    assert updated["id"] == comment["id"] and "`empty`" in updated["body"] and pr.head in updated["body"]
    assert [r.method for r in github.requests] == ["GET", "POST", "GET", "PATCH"]


def test_dry_run_prints_what_mnemo_pr_markdown_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    code, out, _ = run(pr, environment(pr, tmp_path), capsys, "--dry-run")
    assert code == 0
    links = f"https://github.com/{REPOSITORY}/blob/{pr.head}"
    assert (
        mnemo_main(
            [
                "pr",
                "--repo",
                str(pr.root),
                "--base",
                pr.base,
                "--head",
                pr.head,
                "--format",
                "markdown",
                "--links",
                links,
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == out
    assert out.startswith(MARKER)


def test_a_deleted_function_still_called_fails_the_check_after_commenting(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", DELETED)
    code, _, err = run(pr, environment(pr, tmp_path, github), capsys)
    assert code == EXIT_POLICY
    assert "FAILED: risk high is at or above fail_on = high" in err
    body = github.comments[NUMBER][0]["body"]
    assert "mnemo: high risk" in body
    assert "price was deleted but is still referenced (1): shop/pricing.py:2" in body
    code, _, err = run(pr, environment(pr, tmp_path, github), capsys, "--fail-on", "never")
    assert code == 0 and "passed" in err


def test_a_change_without_code_gets_a_short_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = {"README.md": "# shop\n\nMore words.\n", "docs/guide.md": "# guide\n"}
    pr = make_pull_request(tmp_path / "shop", docs)
    code, out, _ = run(pr, environment(pr, tmp_path), capsys, "--dry-run")
    assert code == 0
    assert "mnemo: no code symbols changed" in out and "changes 2 files" in out and len(out) < 1500


def test_a_pull_request_from_a_fork_writes_the_job_summary_only(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    env = environment(pr, tmp_path, github)
    write_event(Path(env["GITHUB_EVENT_PATH"]), NUMBER, pr.base, pr.head, fork=True)
    code, _, err = run(pr, env, capsys)
    assert code == 0
    assert "comes from a fork" in err and github.requests == []
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").startswith(MARKER)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "GitHub rejected the token (401 Unauthorized)"),
        (403, "give the job `permissions: pull-requests: write`"),
        (404, "GitHub answered 404 Not Found"),
        (502, "GitHub kept failing (HTTP 502) while listing the comments of #12 after 4 attempts"),
    ],
)
def test_api_errors_exit_4_with_one_line(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str], status: int, message: str
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    github.fail("GET", status, times=4, body={"message": f"nope {TOKEN}"})
    code, _, err = run(pr, environment(pr, tmp_path, github), capsys)
    assert code == 4
    [line] = err.splitlines()
    assert line.startswith("mnemo-ci: error: ") and message in line


def test_a_wrong_token_is_reported_not_shown(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    code, _, err = run(pr, environment(pr, tmp_path, github, GITHUB_TOKEN="ghs_wrong_token_value"), capsys)
    assert code == 4 and "401 Unauthorized" in err and "ghs_wrong_token_value" not in err


def test_an_unwritable_job_summary_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    env = environment(pr, tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "no" / "such" / "summary.md"))
    code, _, err = run(pr, env, capsys, "--dry-run")
    assert code == EXIT_ERROR and "cannot write the job summary GITHUB_STEP_SUMMARY=" in err


def test_missing_variables_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--repo", str(tmp_path)], env={"GITHUB_EVENT_NAME": "pull_request"})
    err = capsys.readouterr().err
    assert code == EXIT_ERROR
    assert "missing environment variables GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_TOKEN" in err
    assert main(["--repo", str(tmp_path), "--dry-run"], env={"GITHUB_EVENT_PATH": "x"}) == EXIT_ERROR
    assert "missing environment variable GITHUB_REPOSITORY:" in capsys.readouterr().err


def test_an_event_that_is_not_a_pull_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    env = environment(pr, tmp_path, GITHUB_EVENT_NAME="push")
    Path(env["GITHUB_EVENT_PATH"]).write_text('{"ref": "refs/heads/main", "after": "abc"}', encoding="utf-8")
    code, _, err = run(pr, env, capsys, "--dry-run")
    assert code == EXIT_ERROR
    assert "this is a 'push' event, not a pull request: run mnemo-ci on `pull_request` events" in err


def test_a_shallow_checkout_without_the_base_says_to_fetch_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    shallow = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{pr.root}", str(shallow))
    checkout = PullRequestRepo(shallow, pr.base, pr.head)
    code, _, err = run(checkout, environment(pr, tmp_path), capsys, "--dry-run")
    assert code == EXIT_ERROR
    assert "shallow clone" in err and "fetch-depth: 0" in err


def test_python_dash_m_ci_is_the_same_entrypoint(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ci", "--help"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0 and "usage: mnemo-ci" in done.stdout and "--dry-run" in done.stdout


def outputs(tmp_path: Path) -> dict[str, str]:
    """The step outputs mnemo-ci appended to GITHUB_OUTPUT."""
    lines = (tmp_path / "output.txt").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_two_headers_keep_two_sticky_comments(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    env = environment(pr, tmp_path, github)
    assert run(pr, env, capsys)[0] == 0
    assert run(pr, env, capsys, "--header", "strict", "--fail-on", "never")[0] == 0
    default, strict = github.comments[NUMBER]
    assert default["body"].startswith(MARKER) and strict["body"].startswith(
        "<!-- mnemo:blast-radius:strict -->"
    )
    pr.push({"shop/cart.py": SHOP["shop/cart.py"] + "\n\ndef empty():\n    return checkout([])\n"}, "empty")
    env = environment(pr, tmp_path, github)
    assert run(pr, env, capsys, "--header", "strict")[0] == 0
    assert run(pr, env, capsys)[0] == 0
    assert [c["id"] for c in github.comments[NUMBER]] == [default["id"], strict["id"]]
    assert all("`empty`" in c["body"] for c in github.comments[NUMBER])


def test_a_header_that_could_end_the_marker_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", MODIFIED)
    code, out, err = run(pr, environment(pr, tmp_path), capsys, "--dry-run", "--header", "x --> <b>")
    assert code != 0 and out == ""
    [line] = err.splitlines()
    assert "a comment header is letters, digits" in line


def test_a_change_without_code_can_skip_the_comment_but_updates_an_earlier_one(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", {"README.md": "# shop\n\nMore words.\n"})
    env = environment(pr, tmp_path, github, GITHUB_OUTPUT=str(tmp_path / "output.txt"))
    code, _, err = run(pr, env, capsys, "--skip-without-code")
    assert code == 0 and "not commenting" in err
    assert github.comments.get(NUMBER, []) == []
    assert outputs(tmp_path)["comment-action"] == "skipped"
    ours = github.add_comment(NUMBER, f"{MARKER}\nan earlier verdict", user_type="Bot")
    (tmp_path / "output.txt").unlink()
    assert run(pr, env, capsys, "--skip-without-code")[0] == 0
    assert "no code symbols changed" in github.comments[NUMBER][0]["body"]
    assert tuple(outputs(tmp_path)) == OUTPUTS
    assert outputs(tmp_path) == {
        "risk": "low",
        "changed": "0",
        "impacted": "0",
        "tests": "0",
        "passed": "true",
        "comment-action": "updated",
        "comment-url": ours["html_url"],
    }


def test_in_actions_a_deleted_function_annotates_the_lines_still_using_it(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = make_pull_request(tmp_path / "shop", DELETED)
    env = environment(pr, tmp_path, github, GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(tmp_path / "output.txt"))
    code, out, _ = run(pr, env, capsys)
    assert code == EXIT_POLICY
    assert out.splitlines() == [
        "::error file=shop/pricing.py,line=2,title=mnemo%3A dangling reference::price was deleted or renamed"
        " by this change but is still used here (in total)"
    ]
    found = outputs(tmp_path)
    assert (found["risk"], found["passed"], found["comment-action"]) == ("high", "false", "created")
    assert found["comment-url"].startswith("https://github.com/acme/shop/pull/12#issuecomment-")
    code, out, _ = run(pr, environment(pr, tmp_path, github), capsys)
    assert out == ""  # outside Actions: no workflow commands
