"""Raw JSON-RPC against ``mnemo-lsp``: the TCP transport, and a client that goes away mid-request."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_session import SERVER, WAIT_S, frame, initialize, read_until, server_env


@pytest.mark.parametrize("closes_output", [False, True], ids=["stdin", "stdin-and-stdout"])
def test_the_client_closing_mid_request(repo: Path, tmp_path: Path, closes_output: bool) -> None:
    server = subprocess.Popen(
        SERVER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(tmp_path),
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.write(frame(initialize(repo)))
    server.stdin.flush()
    assert read_until(server.stdout, lambda m: m.get("id") == 1)["result"]["capabilities"]
    server.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    server.stdin.flush()
    read_until(
        server.stdout,
        lambda m: m.get("method") == "window/logMessage" and m["params"]["message"].startswith("index: "),
    )
    command = {"command": "mnemo.contextForTask", "arguments": [{"task": "helper"}]}
    for msg_id in range(2, 6):  # several requests in flight when the client goes
        server.stdin.write(
            frame({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand", "params": command})
        )
    server.stdin.flush()
    if closes_output:
        server.stdout.close()
    server.stdin.close()
    stderr = server.stderr.read()
    assert server.wait(timeout=WAIT_S) == 0
    assert b"Traceback" not in stderr, stderr.decode()


def test_tcp_transport(repo: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "--tcp", "--port", str(port)],
        stderr=subprocess.PIPE,
        env=server_env(tmp_path),
    )
    assert server.stderr is not None
    try:
        while b"Serving on" not in (line := server.stderr.readline()):
            assert line, "mnemo-lsp --tcp exited before listening"
        with (
            socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as connection,
            connection.makefile("rwb") as stream,
        ):
            stream.write(frame(initialize(repo)))
            stream.flush()
            result = read_until(stream, lambda m: m.get("id") == 1)["result"]
        assert result["serverInfo"]["name"] == "mnemo-lsp"
        assert "mnemo.contextForTask" in result["capabilities"]["executeCommandProvider"]["commands"]
    finally:
        server.kill()
        server.communicate(timeout=WAIT_S)
