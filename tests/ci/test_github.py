"""Tests for ci/github.py against a real HTTP server on 127.0.0.1 (tests/ci_helpers.FakeGitHub)."""

from __future__ import annotations

import socket

import pytest
from ci_helpers import REPOSITORY, TOKEN, FakeGitHub

from ci.github import GitHub, GitHubError, next_page, sticky_comment

MARKER = "<!-- mnemo:blast-radius -->"
BACKOFF = 0.01


NOW = 1_800_000_000.0  # the clock of the rate-limit tests
SECONDARY = {
    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
}


def client(api: FakeGitHub, token: str = TOKEN, **options: float) -> tuple[GitHub, list[float]]:
    """A client of the fake API whose sleeps are recorded instead of slept, at a fixed clock."""
    slept: list[float] = []
    settings = {"timeout": 2.0, "retries": 3, "backoff": BACKOFF, "max_wait": 300.0, **options}
    made = GitHub(
        api.url,
        token,
        timeout=settings["timeout"],
        retries=int(settings["retries"]),
        backoff=settings["backoff"],
        max_wait=settings["max_wait"],
        sleep=slept.append,
        clock=lambda: NOW,
    )
    return made, slept


def quota_used_up(resets_in: float) -> dict[str, str]:
    """The headers of GitHub's answer when the token's quota is spent until ``resets_in`` seconds."""
    return {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW + resets_in))}


def test_first_run_creates_then_updates_the_same_comment(github: FakeGitHub) -> None:
    gh, _ = client(github)
    action, first = sticky_comment(gh, REPOSITORY, 7, f"{MARKER}\nv1", MARKER)
    assert action == "created"
    action, second = sticky_comment(gh, REPOSITORY, 7, f"{MARKER}\nv2", MARKER)
    assert (action, second["id"]) == ("updated", first["id"])
    assert [c["body"] for c in github.comments[7]] == [f"{MARKER}\nv2"]
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in github.requests)
    assert github.requests[1].headers["x-github-api-version"] == "2022-11-28"


def test_the_lookup_follows_link_pagination_and_prefers_a_bot_comment(github: FakeGitHub) -> None:
    for i in range(5):
        github.add_comment(3, f"review comment {i}")
    github.add_comment(3, f"{MARKER}\nquoted by a person", user_type="User")
    ours = github.add_comment(3, f"{MARKER}\nold", user_type="Bot")
    gh, _ = client(github)
    action, comment = sticky_comment(gh, REPOSITORY, 3, f"{MARKER}\nnew", MARKER)
    assert (action, comment["id"]) == ("updated", ours["id"])
    pages = [r.path for r in github.requests if r.method == "GET"]
    assert len(pages) == 4 and pages[-1].endswith("page=4")  # 7 comments, 2 per page


def test_next_page() -> None:
    link = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"'
    assert next_page(link) == "https://api.github.com/x?page=2"
    assert next_page('<https://api.github.com/x?page=1>; rel="prev"') is None
    assert next_page("") is None


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, "GitHub rejected the token (401 Unauthorized)"),
        (403, "give the job `permissions: pull-requests: write`"),
        (404, "GitHub answered 404 Not Found: check GITHUB_REPOSITORY and the pull request number"),
        (
            422,
            "GitHub rejected the comment (422 Unprocessable Entity) while commenting on #7 "
            "(GitHub says: Validation Failed: body is too long",
        ),
    ],
)
def test_client_errors_are_one_clear_line_without_retries(
    github: FakeGitHub, status: int, expected: str
) -> None:
    body = {
        "message": "Validation Failed" if status == 422 else f"echo {TOKEN}",
        "errors": [{"message": "body is too long (maximum is 65536 characters)"}],
    }
    github.fail("POST", status, body=body)
    gh, slept = client(github)
    with pytest.raises(GitHubError) as info:
        gh.create_comment(REPOSITORY, 7, "x")
    assert info.value.status == status
    assert expected in str(info.value)
    assert TOKEN not in str(info.value) and "\n" not in str(info.value)
    assert slept == [] and len(github.requests) == 1


def test_server_errors_are_retried_with_exponential_backoff(github: FakeGitHub) -> None:
    github.fail("GET", 502, times=2)
    github.fail("GET", 503)
    gh, slept = client(github)
    assert list(gh.comments(REPOSITORY, 1)) == []
    assert slept == [BACKOFF, BACKOFF * 2, BACKOFF * 4]


def test_server_errors_give_up_after_the_retries(github: FakeGitHub) -> None:
    github.fail("PATCH", 500, times=10, body={"message": "Server Error"})
    gh, slept = client(github, retries=2)
    with pytest.raises(
        GitHubError,
        match=r"GitHub kept failing \(HTTP 500\) while updating comment 5 after "
        r"3 attempts \(GitHub says: Server Error\); re-run the job later",
    ):
        gh.update_comment(REPOSITORY, 5, "x")
    assert len(slept) == 2 and len(github.requests) == 3


def test_rate_limits_are_retried_after_the_time_github_asks_for(github: FakeGitHub) -> None:
    github.fail("GET", 429, headers={"Retry-After": "3"})
    gh, slept = client(github)
    assert list(gh.comments(REPOSITORY, 1)) == []
    assert slept == [3.0]


def test_a_slow_answer_times_out_and_is_retried(github: FakeGitHub) -> None:
    github.fail("GET", 200, body=[], delay=1.0, times=2)
    gh, slept = client(github, timeout=0.2, retries=1)
    with pytest.raises(
        GitHubError,
        match=r"GitHub did not answer within 0\.2 s while listing the comments "
        r"of #4 \(2 attempts\); re-run the job",
    ):
        list(gh.comments(REPOSITORY, 4))
    assert slept == [BACKOFF]


def test_a_timed_out_post_is_not_repeated(github: FakeGitHub) -> None:
    github.fail("POST", 201, body={"id": 1}, delay=1.0)
    gh, slept = client(github, timeout=0.2)
    with pytest.raises(GitHubError, match=r"did not answer within 0\.2 s while commenting on #4"):
        gh.create_comment(REPOSITORY, 4, "x")
    assert slept == [] and len(github.requests) == 1


def test_an_unreachable_api_is_retried_then_named() -> None:
    with socket.socket() as probe:  # a port nobody listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    slept: list[float] = []
    gh = GitHub(f"http://127.0.0.1:{port}", TOKEN, retries=1, backoff=BACKOFF, sleep=slept.append)
    with pytest.raises(GitHubError, match=rf"cannot reach GitHub at 127\.0\.0\.1:{port} while listing"):
        list(gh.comments(REPOSITORY, 4))
    assert slept == [BACKOFF]


def test_the_token_is_not_sent_along_a_redirect(github: FakeGitHub) -> None:
    github.fail("GET", 307, headers={"Location": f"{github.url}/repos/{REPOSITORY}/issues/2/comments"})
    gh, _ = client(github)
    with pytest.raises(GitHubError, match="401"):
        list(gh.comments(REPOSITORY, 2))
    assert [("authorization" in r.headers) for r in github.requests] == [True, False]


def test_the_api_url_must_be_http() -> None:
    with pytest.raises(GitHubError, match="GITHUB_API_URL must be an http"):
        GitHub("file:///etc/passwd", TOKEN)
    assert TOKEN not in repr(GitHub("https://api.github.com", TOKEN))


def test_a_used_up_quota_is_waited_out_until_it_resets(github: FakeGitHub) -> None:
    github.fail("GET", 403, body={"message": "API rate limit exceeded"}, headers=quota_used_up(30))
    gh, slept = client(github)
    assert list(gh.comments(REPOSITORY, 1)) == []
    assert slept == [31.0]  # the reset second, then one more


def test_a_quota_that_resets_too_late_is_one_line_naming_it_not_a_permission_problem(
    github: FakeGitHub,
) -> None:
    github.fail("POST", 403, body={"message": "API rate limit exceeded"}, headers=quota_used_up(1800))
    gh, slept = client(github)
    with pytest.raises(GitHubError) as info:
        gh.create_comment(REPOSITORY, 7, "x")
    text = str(info.value)
    assert "rate limit stopped the job while commenting on #7" in text
    assert "frees up in 1801 s" in text and "permissions" not in text and "\n" not in text
    assert slept == [] and len(github.requests) == 1


@pytest.mark.parametrize(("status", "retry_after", "expected"), [(403, None, 60.0), (429, "5", 5.0)])
def test_a_secondary_rate_limit_waits_as_github_asks(
    github: FakeGitHub, status: int, retry_after: str | None, expected: float
) -> None:
    github.fail("PATCH", status, body=SECONDARY, headers={"Retry-After": retry_after} if retry_after else {})
    github.add_comment(2, "mine", user_type="Bot")
    gh, slept = client(github)
    assert gh.update_comment(REPOSITORY, 1001, "new")["body"] == "new"
    assert slept == [expected]


def test_rate_limit_waits_are_bounded_in_all(github: FakeGitHub) -> None:
    github.fail("GET", 403, body=SECONDARY, times=3)
    gh, slept = client(github, max_wait=100.0)
    with pytest.raises(
        GitHubError, match=r"a secondary rate limit frees up in 60 s, longer than mnemo-ci waits"
    ):
        list(gh.comments(REPOSITORY, 1))
    assert slept == [60.0] and len(github.requests) == 2
