"""Folding in the task ranking, through the real index and ``mnemo task``: one answer per overload
set, constructors in their class, types a step behind their methods (``mnemo why`` says so)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import make_repo

from mnemo_core.cli import main
from mnemo_core.model import Symbol
from mnemo_core.retrieve.fold import SIZE_BOUNDS, SIZE_REFERENCE_LINES, TYPE_DEMOTION, size_factor

JAVA = """package web;

class Response {
    private int status;

    Response() { this.status = 200; }

    Response(int status) { this.status = status; }

    Response header(String name) { return header(name, ""); }

    Response header(String name, String value) { return this; }

    Response header(String name, java.util.List<String> values) { return this; }
}
"""
CSHARP = """namespace Web {
    public class Response {
        private int status;
        public Response() { status = 200; }
        public Response(int status) { this.status = status; }
        public Response Header(string name) { return this; }
    }
}
"""


def task_json(repo: Path, text: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["task", "--no-memory", "--repo", str(repo), "--format", "json", "--limit", "50", text]) == 0
    symbols: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["symbols"]
    return symbols


@pytest.mark.parametrize(
    ("path", "source", "task", "overloaded"),
    [
        ("src/web/Response.java", JAVA, "set a response header with a status", "Response.header"),
        ("src/Web/Response.cs", CSHARP, "set a response Header with a status", "Response.Header"),
    ],
)
def test_overloads_and_constructors_fold_into_one_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, source: str, task: str, overloaded: str
) -> None:
    repo = make_repo(tmp_path / "repo", {path: source})
    names = [s["name"] for s in task_json(repo, task, capsys)]
    assert names.count(overloaded) == 1
    assert "Response.Response" not in names  # the constructors answer as their class
    assert "Response" in names


CONSTRUCTED = {
    "typescript": (
        "src/response.ts",
        """export class Response {
  status: number;
  constructor(status: number) { this.status = status; }
  header(name: string): Response { return this; }
}
""",
        "Response.constructor",
    ),
    "ruby": (
        "lib/web/response.rb",
        """class Response
  def initialize(status)
    @status = status
  end

  def header(name)
    self
  end
end
""",
        "Response.initialize",
    ),
    "php": (
        "src/Response.php",
        """<?php
class Response {
    private $status;
    public function __construct($status) { $this->status = $status; }
    public function header($name) { return $this; }
}
""",
        "Response.__construct",
    ),
    "cpp": (
        "src/response.cpp",
        """class Response {
public:
    Response() : status(200) {}
    Response(int status) : status(status) {}
    Response& header(const char* name) { return *this; }
    Response& header(const char* name, const char* value) { return *this; }
private:
    int status;
};
""",
        "Response.Response",
    ),
}


@pytest.mark.parametrize("language", sorted(CONSTRUCTED))
def test_a_constructor_answers_as_its_class_in_every_convention(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], language: str
) -> None:
    path, source, constructor = CONSTRUCTED[language]
    repo = make_repo(tmp_path / "repo", {path: source})
    names = [s["name"] for s in task_json(repo, "set a response header with a status", capsys)]
    assert constructor not in names
    assert "Response" in names
    assert names.count("Response.header") == 1  # C++'s two overloads are one answer


def test_an_overload_the_task_names_stays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", {"src/web/Response.java": JAVA})
    names = [s["name"] for s in task_json(repo, "header with a List of values or one value", capsys)]
    assert names.count("Response.header") == 2  # the List one, and the one taking one value


PY_TIMEOUT = """import sys


class Client:
    @property
    def timeout(self):
        \"\"\"The read timeout of the client, in seconds.\"\"\"
        return self._timeout

    @timeout.setter
    def timeout(self, value):
        \"\"\"Set the read timeout of the client.\"\"\"
        self._timeout = value


if sys.platform == "win32":
    def read_timeout(client):
        return client.timeout * 2
else:
    def read_timeout(client):
        return client.timeout
"""


def test_a_python_property_and_a_conditional_definition_are_one_answer_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"net/client.py": PY_TIMEOUT})
    names = [s["name"] for s in task_json(repo, "change the read timeout of the client", capsys)]
    assert names.count("Client.timeout") == 1  # the getter and the setter: one answer
    assert names.count("read_timeout") == 1  # the two platforms' definitions: one answer


GO_SERVER = """package web

// Server serves requests with a router.
type Server struct{ router map[string]string }

// Serve answers a request through the server's router.
func (s *Server) Serve(path string) string { return s.router[path] }
"""
PY_SERVER = '''class Server:
    """Serves requests with a router."""

    def serve(self, path):
        """Answer a request through the server's router."""
        return self.router[path]
'''


def test_a_type_steps_back_for_its_methods_except_in_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"web/server.go": GO_SERVER, "shop/server.py": PY_SERVER})
    task = "serve a request through the server router"

    def multipliers(handle: str) -> dict[str, float]:
        assert main(["why", "--repo", str(repo), "--format", "json", "--task", task, handle]) == 0
        found: dict[str, float] = json.loads(capsys.readouterr().out)["multipliers"]
        return found

    assert multipliers("web/server.go:Server")["type"] == TYPE_DEMOTION
    assert "type" not in multipliers("web/server.go:Server.Serve")
    assert "type" not in multipliers("shop/server.py:Server")  # Python's classes: the kind prior only
    names = [s["name"] for s in task_json(repo, task, capsys) if s["path"] == "web/server.go"]
    assert names.index("Server.Serve") < names.index("Server")


SYMBOL = Symbol(1, "a.go", "f", "function", "go", "func f()", "", 1, 1, 10, False, False, True)


def go_retry(lines: int) -> str:
    body = "".join(f"\tattempts = attempts + {i} // retry the upload\n" for i in range(lines))
    return f"func UploadRetry(attempts int) int {{\n{body}\treturn attempts\n}}\n"


GO_UPLOAD = f"""package upload

// RetryCount is how often an upload is tried.
func RetryCount() int {{ return 3 }}

{go_retry(30)}"""
PY_UPLOAD = f"""def retry_count():
    return 3


def upload_retry(attempts):
{"".join(f"    attempts = attempts + {i}  # retry the upload{chr(10)}" for i in range(30))}    return attempts
"""


def test_a_long_function_steps_ahead_of_a_one_liner_except_in_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert size_factor(replace(SYMBOL, end_line=1)) == SIZE_BOUNDS[0]
    assert size_factor(replace(SYMBOL, end_line=SIZE_REFERENCE_LINES)) == 1.0
    assert size_factor(replace(SYMBOL, end_line=500)) == SIZE_BOUNDS[1]
    repo = make_repo(tmp_path / "repo", {"upload/upload.go": GO_UPLOAD, "shop/upload.py": PY_UPLOAD})

    def multipliers(handle: str) -> dict[str, float]:
        argv = ["why", "--repo", str(repo), "--format", "json", "--task", "retry the upload", handle]
        assert main(argv) == 0
        found: dict[str, float] = json.loads(capsys.readouterr().out)["multipliers"]
        return found

    assert multipliers("upload/upload.go:RetryCount")["size"] == SIZE_BOUNDS[0]
    assert multipliers("upload/upload.go:UploadRetry")["size"] == SIZE_BOUNDS[1]
    assert "size" not in multipliers("shop/upload.py:upload_retry")
