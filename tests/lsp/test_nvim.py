"""Neovim as the real client: the plugin in ``editors/nvim`` starts ``mnemo-lsp`` on the fixture
repository, runs ``:MnemoTask``, ``:MnemoBlast``, ``:MnemoExplain`` and ``:MnemoPR``, hovers a
function and reads its code lenses; a Lua script writes what Neovim received to a JSON file that the
test checks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_session import WAIT_S, git_workspace, server_env

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"
NVIM = shutil.which("nvim")
WAIT_MS = int(WAIT_S * 1000)

pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed; .ci/run installs it")

SCRIPT = """
local out = {}
local function check(ok, what) if not ok then table.insert(out.failures, what) end end
out.failures = {}
vim.opt.runtimepath:prepend(%(plugin)s)
vim.cmd('runtime plugin/mnemo.lua')
local mnemo = require('mnemo')
mnemo.setup({ cmd = %(cmd)s })
vim.cmd('edit ' .. %(file)s)
mnemo.attach(0)
check(vim.wait(%(wait)d, function() return mnemo.is_ready() end, 10), 'the index was never ready')

vim.cmd('MnemoTask double a number in helper')
check(vim.wait(%(wait)d, function() return mnemo.state.last.task ~= nil end, 10), 'no answer to MnemoTask')
out.task = mnemo.state.last.task
out.task_buffer = vim.api.nvim_buf_get_lines(vim.fn.bufnr('mnemo://task'), 0, -1, false)
out.quickfix = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(out.quickfix, { file = vim.fn.bufname(item.bufnr), line = item.lnum, text = item.text })
end

vim.api.nvim_win_set_cursor(0, { 4, 5 })
local position = vim.lsp.util.make_position_params(0, 'utf-16')
local hover = vim.lsp.buf_request_sync(0, 'textDocument/hover', position, %(wait)d)
for _, response in pairs(hover or {}) do
  if response.result then out.hover = response.result.contents.value end
end

vim.api.nvim_win_set_cursor(0, { 10, 12 })
vim.cmd('MnemoBlast')
check(vim.wait(%(wait)d, function() return mnemo.state.last.blast ~= nil end, 10), 'no answer to MnemoBlast')
out.blast = mnemo.state.last.blast

vim.cmd('MnemoExplain')
local explained = vim.wait(%(wait)d, function() return mnemo.state.last.explain ~= nil end, 10)
check(explained, 'no answer to MnemoExplain')
out.explain = mnemo.state.last.explain and mnemo.state.last.explain.text

vim.cmd('MnemoPR HEAD~1')
check(vim.wait(%(wait)d, function() return mnemo.state.last.pr ~= nil end, 10), 'no answer to MnemoPR')
out.pr = mnemo.state.last.pr
out.pr_quickfix = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(out.pr_quickfix, item.text)
end

vim.lsp.codelens.refresh()
local bufnr = vim.api.nvim_get_current_buf()
check(vim.wait(%(wait)d, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 10), 'no code lenses')
out.lenses = {}
for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
  out.lenses[tostring(lens.range.start.line)] = lens.command and lens.command.title
end
out.errors = mnemo.state.errors
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def lua(value: object) -> str:
    """A Lua literal for a string or a list of strings."""
    if isinstance(value, list):
        return "{ " + ", ".join(lua(v) for v in value) + " }"
    return json.dumps(str(value))


def run_neovim(root: Path, home: Path) -> dict[str, Any]:
    out = home / "nvim-out.json"
    script = home / "drive.lua"
    script.write_text(
        SCRIPT
        % {
            "plugin": lua(PLUGIN),
            "cmd": lua([sys.executable, "-m", "lsp_server"]),
            "file": lua(root / "app/core.py"),
            "out": lua(out),
            "wait": WAIT_MS,
        }
    )
    assert NVIM is not None
    done = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
        env={**server_env(home), "XDG_STATE_HOME": str(home), "XDG_CACHE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=4 * WAIT_S,
        cwd=root,
    )
    assert out.exists(), f"Neovim wrote nothing (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads(out.read_text())


def test_neovim_drives_the_server(tmp_path: Path) -> None:
    root = git_workspace(tmp_path / "ws")
    got = run_neovim(root, tmp_path)
    assert got["failures"] == [] and got["errors"] == []

    assert got["task"]["mode"] == "task" and got["task"]["symbols"][0]["name"] == "helper"
    assert got["task_buffer"][0] == "# mnemo: double a number in helper"
    assert any(line.startswith("1. helper  (function, score ") for line in got["task_buffer"])
    first = got["quickfix"][0]
    assert (first["file"].endswith("app/core.py"), first["line"]) == (True, 4)
    assert first["text"].startswith("1. helper — ")

    assert got["hover"].startswith("**function** `helper`")
    assert "Bo Maker · tweak helper" in got["hover"]
    assert "**Task** “double a number in helper”: rank 1" in got["hover"]

    assert got["blast"]["query"] == "app/core.py:helper"
    assert {s["name"] for s in got["blast"]["impact"]["tests"]} == {"test_main", "test_box"}
    assert "task: double a number in helper" in got["explain"]
    assert got["lenses"]["3"].startswith("1 caller · 2 tests · changed ")

    assert [s["name"] for s in got["pr"]["impact"]["changed"]] == ["helper"]
    assert got["pr_quickfix"][0].startswith("[changed] helper — modified")
    assert any(text.startswith("[tests] test_") for text in got["pr_quickfix"])
