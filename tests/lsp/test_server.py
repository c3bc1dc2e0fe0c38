"""The server's state and plumbing without a client: readiness, paths, error mapping, index jobs,
a stdout whose reader has gone."""

from __future__ import annotations

import ast
import io
import logging
from pathlib import Path

import pytest
from helpers import make_repo
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from lsp_server.cli import _skip_answered_errors, build_parser
from lsp_server.indexing import Job
from lsp_server.server import LENS_FILES_WARMED, BadArguments, ClientStdout, IndexBeingBuilt, MnemoServer
from mnemo_core.errors import MnemoError


@pytest.fixture
def server(tmp_path: Path) -> MnemoServer:
    make_repo(tmp_path)  # a folder outside git is served only once indexed deliberately (--plain)
    made = MnemoServer()
    made.add_folder(tmp_path.as_uri())
    return made


def test_readiness_says_why_it_cannot_answer(server: MnemoServer, tmp_path: Path) -> None:
    folder = server.primary()
    folder.checked.set()  # the first freshness check is over
    folder.built.set()  # (nobody builds it here: no waiting for the build either)
    folder.index.percent = 40
    with pytest.raises(IndexBeingBuilt, match=r"is being built \(40%\)"):
        server.require_index()
    assert server.require_index(partial=True) is folder
    assert server.partial_note(folder) == (
        "partial: the index is still being built (40%); this answer covers only what it held, "
        "ask again when it finishes"
    )
    folder.index.failure = "the index is being written by pid 7"
    with pytest.raises(IndexBeingBuilt, match="could not be built: the index is being written by pid 7"):
        server.require_index()
    folder.index.ready = True
    assert server.require_index() is folder
    server.remove_folder(tmp_path.as_uri())
    with pytest.raises(MnemoError, match="needs a workspace folder"):
        server.require_index()


def test_a_folder_outside_git_is_refused_until_indexed_deliberately(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(MnemoError, match="is not inside a git work tree"):
        MnemoServer().add_folder(plain.as_uri())
    assert not (plain / ".mnemo").exists()


def test_paths_inside_and_outside_the_workspace(server: MnemoServer, tmp_path: Path) -> None:
    assert server.relpath((tmp_path / "pkg" / "a.py").as_uri()) == "pkg/a.py"
    with pytest.raises(BadArguments, match="is outside the workspace"):
        server.relpath("file:///etc/hostname")
    assert server.inside("file:///etc/hostname") is None
    assert server.inside("untitled:Untitled-1") is None


def test_a_document_goes_to_the_deepest_folder_holding_it(server: MnemoServer, tmp_path: Path) -> None:
    inner = make_repo(tmp_path / "vendor" / "lib")
    assert server.add_folder(inner.as_uri()) is not None
    assert server.add_folder(tmp_path.as_uri()) is None  # served already
    folder, path = server.locate((inner / "a.py").as_uri())
    assert (folder.root, path) == (inner, "a.py")
    folder, path = server.locate((tmp_path / "vendor" / "b.py").as_uri())
    assert (folder.root, path) == (tmp_path, "vendor/b.py")
    assert server.primary().root == tmp_path  # the first folder the client named
    assert server.remove_folder(inner.as_uri()) is not None
    assert server.locate((inner / "a.py").as_uri())[1] == "vendor/lib/a.py"


def test_the_files_whose_lenses_were_shown_lately(server: MnemoServer) -> None:
    folder = server.primary()
    assert folder.lenses_shown() == []
    for path in ("a.py", "b.py", "a.py", *(f"f{i}.py" for i in range(LENS_FILES_WARMED - 2))):
        folder.lenses_shown(path)
    assert folder.lenses_shown() == ["b.py", "a.py", *(f"f{i}.py" for i in range(LENS_FILES_WARMED - 2))]
    folder.lenses_shown("new.py")  # the oldest goes
    assert folder.lenses_shown()[0] == "a.py" and folder.lenses_shown()[-1] == "new.py"
    assert len(folder.lenses_shown()) == LENS_FILES_WARMED


def test_failures_become_json_rpc_errors(server: MnemoServer) -> None:
    assert isinstance(server.rpc_error("cmd", BadArguments("bad")), JsonRpcInvalidParams)
    refused = server.rpc_error("cmd", MnemoError("no such ref"))
    assert (refused.code, refused.message) == (-32803, "cmd: no such ref")
    passed = JsonRpcException(message="as is", code=-32001)
    assert server.rpc_error("cmd", passed) is passed
    bug = server.rpc_error("cmd", ZeroDivisionError("division by zero"))
    assert isinstance(bug, JsonRpcInternalError) and "details are in the mnemo output" in bug.message


def test_index_jobs_merge() -> None:
    saved = Job(paths={"a.py"})
    merged = saved.merge(Job(paths={"b.py"}))
    assert (merged.paths, merged.full) == ({"a.py", "b.py"}, False)
    everything = merged.merge(Job(full=True, progress=True, title="rebuild"))
    assert (everything.paths, everything.full, everything.progress) == (None, True, True)
    assert everything.title == "rebuild"


def test_a_stdout_whose_reader_has_gone() -> None:
    class Broken(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            raise BrokenPipeError(32, "Broken pipe")

    stdout = ClientStdout(Broken())  # type: ignore[arg-type]
    stdout.write(b"Content-Length: 2\r\n\r\n{}")
    stdout.flush()
    assert stdout.gone


def test_answered_errors_are_not_logged_twice() -> None:
    answered = logging.LogRecord(
        "pygls.protocol.json_rpc", logging.ERROR, "", 0, 'Exception occurred for message "%s"', ("7",), None
    )
    other = logging.LogRecord("pygls.protocol.json_rpc", logging.ERROR, "", 0, "Error sending data", (), None)
    assert (_skip_answered_errors(answered), _skip_answered_errors(other)) == (False, True)


def test_the_command_line() -> None:
    args = build_parser().parse_args(["--tcp", "--port", "9000"])
    assert (args.tcp, args.host, args.port) == (True, "127.0.0.1", 9000)


def _imports_within(package: Path) -> dict[str, set[str]]:
    """Each module of the package -> the modules of the same package it imports (typing-only too)."""
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == package.name:
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{package.name}."):
                found.add((node.module or "").split(".")[1])
        graph[path.stem] = found
    return graph


def test_the_server_modules_import_each_other_without_a_cycle() -> None:
    graph = _imports_within(Path(__file__).resolve().parents[2] / "lsp_server")
    assert graph["server"] <= {"cards", "protocol", "settings"}  # features know the server, not the reverse
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
