"""The language server on a hostile repository: started inside it, it imports none of its modules;
requests it cannot use get an answer (never silence); ``exit`` follows the LSP's exit codes."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from hostile_repos import BIN, Hostile, mnemo_env
from lsp_session import WAIT_S, frame, initialize, make_client, read_until, start, wait_for_index
from pytest_lsp import ClientServerConfig


def server_in(root: Path, *args: str) -> list[str]:
    """``mnemo-lsp`` as an editor starts it, with ``root`` as its working directory. (``python -m
    lsp_server`` there would import the planted ``lsp_server/`` before any of mnemo's code.)"""
    return ["env", "-C", str(root), str(BIN / "mnemo-lsp"), *args]


@pytest.mark.asyncio
async def test_a_session_inside_the_repository_runs_none_of_its_code(hostile: Hostile) -> None:
    config = ClientServerConfig(
        server_command=server_in(hostile.root),
        client_factory=make_client,
        server_env=mnemo_env(HOME=str(hostile.root.parent)),
    )
    client = await config.start()
    session = await start(client, hostile.root)
    await wait_for_index(client)
    card = await session.hover("app/mod3.py", 3, 5)
    assert card is not None and card.startswith("**function** `step3`")
    assert await session.lenses("app/mod3.py")
    answer = await session.execute("mnemo.contextForTask", {"task": "pipeline step"})
    assert answer["symbols"]
    await client.shutdown_session()
    await client.stop()
    assert hostile.ran() == []


def started(root: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        server_in(root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=mnemo_env(HOME=str(root.parent)),
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(frame(initialize(root)))
    server.stdin.flush()
    assert read_until(server.stdout, lambda m: m.get("id") == 1)["result"]["capabilities"]
    return server


def send(server: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert server.stdin is not None
    server.stdin.write(frame({"jsonrpc": "2.0", **message}))
    server.stdin.flush()


@pytest.mark.parametrize(
    "position", [{"line": -1, "character": 0}, {"line": 0, "character": -4}, {"line": "one", "character": 0}]
)
def test_a_request_with_an_unusable_position_is_answered(
    hostile: Hostile, position: dict[str, object]
) -> None:
    server = started(hostile.root)
    assert server.stdout is not None and server.stderr is not None
    uri = (hostile.root / "app/mod3.py").as_uri()
    for msg_id, method in ((2, "textDocument/hover"), (3, "textDocument/definition")):
        send(
            server,
            {"id": msg_id, "method": method, "params": {"textDocument": {"uri": uri}, "position": position}},
        )
    for msg_id in (2, 3):
        answer = read_until(server.stdout, lambda m, i=msg_id: m.get("id") == i)
        assert answer["error"]["code"] == -32602 and "invalid parameters" in answer["error"]["message"]
    send(server, {"id": 4, "method": "shutdown"})
    send(server, {"method": "exit"})
    assert server.wait(timeout=WAIT_S) == 0
    assert b"Traceback" not in server.stderr.read()


@pytest.mark.parametrize(("shutdown", "code"), [(True, 0), (False, 1)])
def test_exit_codes_follow_the_lsp(hostile: Hostile, shutdown: bool, code: int) -> None:
    server = started(hostile.root)
    assert server.stdout is not None and server.stderr is not None
    if shutdown:
        send(server, {"id": 2, "method": "shutdown"})
        assert read_until(server.stdout, lambda m: m.get("id") == 2)["result"] is None
    send(server, {"method": "exit"})
    assert server.wait(timeout=WAIT_S) == code
    assert b"Traceback" not in server.stderr.read()


def test_exit_over_tcp_without_a_traceback(hostile: Hostile) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        server_in(hostile.root, "--tcp", "--port", str(port)),
        stderr=subprocess.PIPE,
        env=mnemo_env(HOME=str(hostile.root.parent)),
    )
    assert server.stderr is not None
    try:
        while b"Serving on" not in (line := server.stderr.readline()):
            assert line, "mnemo-lsp --tcp exited before listening"
        with (
            socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as connection,
            connection.makefile("rwb") as stream,
        ):
            stream.write(frame(initialize(hostile.root)))
            stream.flush()
            read_until(stream, lambda m: m.get("id") == 1)
            stream.write(frame({"jsonrpc": "2.0", "method": "exit"}))
            stream.flush()
            assert server.wait(timeout=WAIT_S) == 1  # no shutdown first
    finally:
        server.kill()
    assert b"Traceback" not in server.stderr.read()
    assert hostile.ran() == []
