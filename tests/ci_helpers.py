"""Builders for the CI and pre-commit tests (tests/ci): a fake GitHub REST API on 127.0.0.1 and a
throwaway repository with a pull request (base on ``main``, head on ``feature``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import commit, git, make_repo, write_files

TOKEN = "ghs_test0123456789SECRET"  # must never show up in any output
REPOSITORY = "acme/shop"
COMMENT_LIMIT = 65_536
CHECKOUT = Path(__file__).resolve().parents[1]  # this mnemo, as pre-commit installs it
HOOK_ID = "mnemo-blast-radius"
TRY_REPO_TIMEOUT_S = 300
SHUTDOWN_POLL_S = 0.02  # serve_forever checks for shutdown this often: fast teardown

SHOP = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def price(item):\n    return item * 2\n\n\n"
        "def total(items):\n    return sum(price(i) for i in items)\n"
    ),
    "shop/cart.py": "from shop.pricing import total\n\n\ndef checkout(items):\n    return total(items)\n",
    "tests/test_cart.py": (
        "from shop.cart import checkout\n\n\ndef test_checkout():\n    assert checkout([1]) == 2\n"
    ),
    "README.md": "# shop\n",
}


@dataclass
class Scripted:
    """A canned answer for the next request with this method (an error, a redirect or a slow reply)."""

    method: str
    status: int
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    """A request the fake API received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeGitHub:
    """The issue-comment endpoints of GitHub's REST API, with ``Link`` pagination and scripted failures."""

    def __init__(self, page_size: int = 2) -> None:
        self.page_size = page_size
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[Recorded] = []
        self.script: list[Scripted] = []
        self.next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail(
        self,
        method: str,
        status: int,
        times: int = 1,
        body: Any = None,
        delay: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next ``times`` requests of ``method`` with ``status`` (after ``delay`` seconds)."""
        self.script += [Scripted(method, status, body, delay, headers or {}) for _ in range(times)]

    def add_comment(self, number: int, body: str, user_type: str = "User") -> dict[str, Any]:
        """A comment already on the pull request (someone else's, or an old one of ours)."""
        with self._lock:
            self.next_id += 1
            comment = {
                "id": self.next_id,
                "body": body,
                "user": {"login": "someone", "type": user_type},
                "html_url": f"https://github.com/{REPOSITORY}/pull/{number}#issuecomment-{self.next_id}",
            }
            self.comments.setdefault(number, []).append(comment)
        return comment

    def start(self) -> None:
        threading.Thread(target=self._server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- the API ------------------------------------------------------------------------------
    def answer(
        self, method: str, raw_path: str, headers: dict[str, str], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """Route one request: a scripted answer first, then authentication, then the endpoints."""
        self.requests.append(Recorded(method, raw_path, headers, body))
        scripted = next((s for s in self.script if s.method == method), None)
        if scripted is not None:
            self.script.remove(scripted)
            time.sleep(scripted.delay)
            return scripted.status, scripted.body, scripted.headers
        if headers.get("authorization") != f"Bearer {TOKEN}":
            return 401, {"message": "Bad credentials"}, {}
        parts = urlsplit(raw_path).path.strip("/").split("/")
        if parts[:3] != ["repos", *REPOSITORY.split("/")] or len(parts) < 6 or parts[3] != "issues":
            return 404, {"message": "Not Found"}, {}
        if parts[4] == "comments" and method == "PATCH":
            return self._update(int(parts[5]), body)
        if parts[5] == "comments" and method == "GET":
            return self._list(int(parts[4]), raw_path)
        if parts[5] == "comments" and method == "POST":
            return self._create(int(parts[4]), body)
        return 404, {"message": "Not Found"}, {}

    def _list(self, number: int, raw_path: str) -> tuple[int, Any, dict[str, str]]:
        page = int(parse_qs(urlsplit(raw_path).query).get("page", ["1"])[0])
        items = self.comments.get(number, [])
        start = (page - 1) * self.page_size
        headers = {}
        if start + self.page_size < len(items):
            base = f"{self.url}/repos/{REPOSITORY}/issues/{number}/comments?per_page=100"
            last = (len(items) - 1) // self.page_size + 1
            headers["Link"] = f'<{base}&page={page + 1}>; rel="next", <{base}&page={last}>; rel="last"'
        return 200, items[start : start + self.page_size], headers

    def _create(self, number: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        text = body.get("body", "") if isinstance(body, dict) else ""
        if len(text) > COMMENT_LIMIT:
            return (
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "resource": "IssueComment",
                            "code": "custom",
                            "field": "body",
                            "message": "body is too long (maximum is 65536 characters)",
                        }
                    ],
                },
                {},
            )
        comment = self.add_comment(number, text, user_type="Bot")
        return 201, comment, {}

    def _update(self, comment_id: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = body["body"]
                    return 200, comment, {}
        return 404, {"message": "Not Found"}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                body = json.loads(raw) if raw else None
                status, payload, extra = api.answer(self.command, self.path, headers, body)
                data = json.dumps(payload).encode() if payload is not None else b""
                try:
                    self.send_response(status)
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_PATCH = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@dataclass
class PullRequestRepo:
    """A repository with ``main`` (the base) and ``feature`` (the head, checked out)."""

    root: Path
    base: str
    head: str

    def push(self, files: dict[str, str | None], message: str) -> str:
        """Another commit on the pull request's branch; returns its sha."""
        self.head = commit(self.root, files, message)
        return self.head


def make_pull_request(root: Path, files: dict[str, str | None], message: str = "change") -> PullRequestRepo:
    """``SHOP`` on main, then ``files`` committed on a feature branch (None deletes a file)."""
    make_repo(root, SHOP)
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    head = commit(root, files, message)
    return PullRequestRepo(root, base, head)


def write_event(path: Path, number: int, base: str, head: str, fork: bool = False) -> Path:
    """A ``pull_request`` event payload as GitHub writes it to GITHUB_EVENT_PATH (the fields used)."""
    head_repo = "contributor/shop" if fork else REPOSITORY
    event = {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "base": {"sha": base, "ref": "main", "repo": {"full_name": REPOSITORY}},
            "head": {"sha": head, "ref": "feature", "repo": {"full_name": head_repo}},
        },
    }
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def run_tool(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, check=False, env=env, timeout=TRY_REPO_TIMEOUT_S
    )


def try_repo_environment(home: Path) -> dict[str, str]:
    """The environment for ``pre-commit try-repo``: its own cache and home; the hook's virtualenv sees
    this interpreter's packages, so installing mnemo into it needs no download of numpy or
    tree-sitter (pip still builds mnemo's wheel)."""
    if not (CHECKOUT / ".git").exists() or not (CHECKOUT / ".pre-commit-hooks.yaml").exists():
        pytest.skip("try-repo needs this checkout to be a git repository with .pre-commit-hooks.yaml")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        HOME=str(home),
        PRE_COMMIT_HOME=str(home / "cache"),
        VIRTUALENV_SYSTEM_SITE_PACKAGES="1",
        GIT_AUTHOR_NAME="Ada Tester",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_COMMITTER_NAME="Ada Tester",
        GIT_COMMITTER_EMAIL="ada@example.com",
    )
    return env


def try_repo(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <this checkout> mnemo-blast-radius`` in ``root`` (a repository with a
    ``.pre-commit-config.yaml`` as a user would have it; try-repo runs the checkout's hook instead)."""
    head = git(CHECKOUT, "rev-parse", "HEAD").strip()
    write_files(
        root,
        {
            ".pre-commit-config.yaml": f"repos:\n- repo: {CHECKOUT}\n  rev: {head}\n  hooks:\n"
            f"  - id: {HOOK_ID}\n"
        },
    )
    git(root, "add", ".pre-commit-config.yaml")
    return run_tool(sys.executable, "-m", "pre_commit", "try-repo", str(CHECKOUT), HOOK_ID, cwd=root, env=env)
