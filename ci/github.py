"""A small GitHub REST client on ``urllib.request``: the issue-comment calls ``mnemo-ci`` makes.

Every request has a timeout. A 5xx or 429 answer and a failed connection are retried with
exponential backoff; a timed-out request is retried too, except a POST (GitHub may have created
the comment, and a second one would break the one-sticky-comment promise). A rate limit (a 403 or
429 whose ``x-ratelimit-remaining`` is 0, or GitHub's "secondary rate limit" message) is waited out
until the reset time or the ``Retry-After`` GitHub gives, as long as the waits add up to at most
``max_wait`` seconds; past that it is one line naming when the limit resets. Any other 4xx answer
becomes a :class:`GitHubError` that says what to fix. The token travels only in the ``Authorization`` header,
which is not forwarded on redirects, and is scrubbed from every message. Listing follows the
``Link: <...>; rel="next"`` pages.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any
from urllib.parse import quote, urlsplit

from mnemo_core.errors import MnemoError
from mnemo_core.render import plain_text

API_VERSION = "2022-11-28"
USER_AGENT = "mnemo-ci"
PER_PAGE = 100  # GitHub's maximum page size
MAX_PAGES = 100  # 10,000 comments: past that the listing is not worth following
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_RETRIES = 3  # attempts after the first one
DEFAULT_BACKOFF_S = 1.0  # wait before the first retry; doubles with each retry
RETRY_AFTER_CAP_S = 60.0  # never wait longer than this on a Retry-After header
RETRY_STATUSES = frozenset({429})  # besides every 5xx
RATE_LIMIT_STATUSES = frozenset({403, 429})  # how GitHub answers a used-up quota
RATE_LIMIT_MAX_WAIT_S = 300.0  # wait out rate limits for at most this long in all: a CI minute costs
SECONDARY_LIMIT_WAIT_S = 60.0  # GitHub: wait at least a minute after a secondary limit without Retry-After
RESET_SLACK_S = 1.0  # the reset time is whole seconds: wait one more
MESSAGE_CHARS = 300  # GitHub's own explanation, quoted in an error, is cut to this length
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
_HINTS = {
    401: "GitHub rejected the token (401 Unauthorized): pass a valid one in GITHUB_TOKEN, "
    "e.g. `GITHUB_TOKEN: ${{ github.token }}`",
    403: "GitHub refused the request (403 Forbidden): the token may not write pull-request comments; "
    "give the job `permissions: pull-requests: write` (pull requests from forks only get a read-only "
    "token, see docs/ci.md)",
    404: "GitHub answered 404 Not Found: check GITHUB_REPOSITORY and the pull request number (a private "
    "repository also answers 404 to a token that cannot see it)",
    422: "GitHub rejected the comment (422 Unprocessable Entity)",
}


class GitHubError(MnemoError):
    """The GitHub API refused a request or could not be reached."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Answer:
    """A successful response: status, headers (lower-case names) and the decoded JSON body."""

    status: int
    headers: dict[str, str]
    data: Any


@dataclass(frozen=True, slots=True)
class _Failure:
    """A failed attempt: the error to raise if it is the last; whether to retry, and the least wait."""

    error: GitHubError
    retry: bool
    wait: float
    limited: bool = False  # a rate limit: its wait counts against ``max_wait``


@dataclass
class GitHub:
    """A client for one API root (``GITHUB_API_URL``) and one token."""

    api_url: str
    token: str = field(repr=False)
    timeout: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF_S
    max_wait: float = RATE_LIMIT_MAX_WAIT_S
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        if urlsplit(self.api_url).scheme not in ("http", "https"):
            raise GitHubError(f"GITHUB_API_URL must be an http(s) URL (got {self.api_url!r})")
        self.api_url = self.api_url.rstrip("/")

    # -- the calls mnemo-ci makes ------------------------------------------------------------
    def comments(self, repository: str, number: int) -> Iterator[dict[str, Any]]:
        """Every comment of an issue or pull request, oldest first, following pagination."""
        url: str | None = f"{self._repo(repository)}/issues/{number}/comments?per_page={PER_PAGE}"
        for _ in range(MAX_PAGES):
            if url is None:
                return
            answer = self.request("GET", url, what=f"listing the comments of #{number}")
            yield from answer.data if isinstance(answer.data, list) else []
            url = next_page(answer.headers.get("link", ""))

    def create_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        """A new comment on issue or pull request ``number``."""
        answer = self.request(
            "POST",
            f"{self._repo(repository)}/issues/{number}/comments",
            {"body": body},
            what=f"commenting on #{number}",
        )
        return dict(answer.data)

    def update_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        """Replace the body of an existing comment."""
        url = f"{self._repo(repository)}/issues/comments/{comment_id}"
        answer = self.request("PATCH", url, {"body": body}, what=f"updating comment {comment_id}")
        return dict(answer.data)

    # -- the transport -----------------------------------------------------------------------
    def request(self, method: str, url: str, payload: dict[str, Any] | None = None, what: str = "") -> Answer:
        """One API call with retries; ``url`` is absolute or relative to the API root."""
        if not url.startswith(("http://", "https://")):
            url = self.api_url + url
        attempt = 0
        waited = 0.0  # on rate limits
        while True:
            try:
                return self._once(method, url, payload)
            except urllib.error.HTTPError as exc:
                failure = self._http_failure(exc, what or method, attempt, self.max_wait - waited)
            except (TimeoutError, urllib.error.URLError) as exc:
                failure = self._network_failure(exc, method, url, what or method, attempt)
            if not failure.retry or attempt >= self.retries:
                raise failure.error
            pause = max(self.backoff * 2**attempt, failure.wait)
            if failure.limited:
                waited += pause
            self.sleep(pause)
            attempt += 1

    def _once(self, method: str, url: str, payload: dict[str, Any] | None) -> Answer:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", API_VERSION)
        request.add_header("User-Agent", USER_AGENT)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        request.add_unredirected_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            raw = response.read()
            headers = {k.lower(): v for k, v in response.headers.items()}
            return Answer(response.status, headers, json.loads(raw) if raw.strip() else None)

    def _http_failure(
        self, exc: urllib.error.HTTPError, what: str, attempt: int, may_wait: float
    ) -> _Failure:
        status = exc.code
        message = self._message(exc)
        limit = self._rate_limit(status, exc.headers, message)
        if limit is not None:
            wait, which = limit
            said = f" (GitHub says: {message})" if message else ""
            if wait > may_wait:
                text = (
                    f"GitHub's rate limit stopped the job while {what}: {which} frees up in {wait:.0f} s, "
                    f"longer than mnemo-ci waits ({self.max_wait:g} s in all); re-run the job then{said}"
                )
                return _Failure(GitHubError(text, status), False, 0.0)
            text = (
                f"GitHub kept answering with {which} while {what} after {attempt + 1} attempts; "
                f"re-run the job later{said}"
            )
            return _Failure(GitHubError(text, status), True, wait, limited=True)
        retry = status >= 500 or status in RETRY_STATUSES
        wait = min(_retry_after(exc.headers.get("Retry-After")), RETRY_AFTER_CAP_S)
        return _Failure(GitHubError(self._explain(status, message, what, attempt), status), retry, wait)

    def _rate_limit(self, status: int, headers: Message, message: str) -> tuple[float, str] | None:
        """``(seconds to wait, which limit)`` when the answer is a rate limit, else None."""
        if status not in RATE_LIMIT_STATUSES:
            return None
        retry_after = _retry_after(headers.get("Retry-After"))
        if headers.get("x-ratelimit-remaining") == "0":
            reset = _retry_after(headers.get("x-ratelimit-reset"))
            until_reset = reset - self.clock() if reset else SECONDARY_LIMIT_WAIT_S
            return max(retry_after, until_reset + RESET_SLACK_S, RESET_SLACK_S), "the token's API quota"
        if "secondary rate limit" in message.lower():
            return (retry_after or SECONDARY_LIMIT_WAIT_S), "a secondary rate limit"
        return None

    def _network_failure(self, exc: OSError, method: str, url: str, what: str, attempt: int) -> _Failure:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, TimeoutError):
            tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
            error = GitHubError(
                f"GitHub did not answer within {self.timeout:g} s while {what} ({tries}); re-run the job"
            )
            return _Failure(error, method != "POST", 0.0)  # a POST that timed out may have been carried out
        detail = self._scrub(plain_text(str(reason), MESSAGE_CHARS))
        return _Failure(
            GitHubError(f"cannot reach GitHub at {urlsplit(url).netloc} while {what}: {detail}"), True, 0.0
        )

    def _message(self, error: urllib.error.HTTPError) -> str:
        """GitHub's own explanation from an error body (``message`` and the first error), if any."""
        try:
            data = json.loads(error.read() or b"null")
        except (ValueError, OSError):
            return ""
        if not isinstance(data, dict):
            return ""
        parts = [str(data.get("message", ""))]
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            first = errors[0]
            parts.append(
                str(first.get("message") or first.get("code") or "")
                if isinstance(first, dict)
                else str(first)
            )
        return self._scrub(plain_text(": ".join(p for p in parts if p), MESSAGE_CHARS))

    def _explain(self, status: int, message: str, what: str, attempt: int) -> str:
        said = f" (GitHub says: {message})" if message else ""
        doing = f" while {what}"
        if status in _HINTS:
            return f"{_HINTS[status]}{doing}{said}"
        if status >= 500:
            return (
                f"GitHub kept failing (HTTP {status}){doing} after {attempt + 1} attempts{said}; "
                "re-run the job later"
            )
        return f"GitHub answered HTTP {status}{doing}{said}"

    def _scrub(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text

    def _repo(self, repository: str) -> str:
        owner, _, name = repository.partition("/")
        return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def next_page(link: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None on the last page."""
    match = _NEXT_LINK.search(link)
    return match.group(1) if match else None


def _retry_after(value: str | None) -> float:
    try:
        return float(value) if value else 0.0
    except ValueError:
        return 0.0


def sticky_comment(
    client: GitHub, repository: str, number: int, body: str, marker: str, create: bool = True
) -> tuple[str, dict[str, Any]]:
    """Create the pull request's comment that starts with ``marker``, or update it; returns
    ``("created" | "updated" | "skipped", comment)``. Of several such comments the first one a bot
    wrote (the Actions token's user) wins, else the first one. Without ``create`` an existing
    comment is still updated (so it does not go stale), but none is created."""
    ours = [c for c in client.comments(repository, number) if str(c.get("body", "")).startswith(marker)]
    if not ours:
        if not create:
            return "skipped", {}
        return "created", client.create_comment(repository, number, body)
    chosen = next((c for c in ours if (c.get("user") or {}).get("type") == "Bot"), ours[0])
    return "updated", client.update_comment(repository, int(chosen["id"]), body)
