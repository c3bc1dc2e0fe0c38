-- :checkhealth mnemo — is the server there, which languages it indexes, which repository the
-- current buffer belongs to, and which servers run.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  local mnemo = require('mnemo')
  start('mnemo')
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor))
  else
    error('Neovim 0.7 or newer is needed')
  end
  local cmd = mnemo.config.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    error(cmd[1] .. ' is not on PATH', { 'pip install mnemo (or set cmd in require("mnemo").setup)' })
    return
  end
  local version = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { '--version' }))
  if vim.v.shell_error ~= 0 then
    error(table.concat(cmd, ' ') .. ' --version failed: ' .. vim.trim(version))
    return
  end
  ok(vim.trim(version))
  local extensions = vim.tbl_keys(mnemo.extensions())
  table.sort(extensions)
  if #extensions == 0 then
    warn('no file extensions are set: no buffer starts the server on its own')
  else
    ok('starts on its own for: .' .. table.concat(extensions, ' .'))
  end
  -- the plugin's list is data; a newer server may index more (checkhealth may wait for a process)
  local ok_json, languages = pcall(vim.fn.json_decode, vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { '--languages' })))
  local unknown = {}
  for _, server_extensions in pairs(ok_json and type(languages) == 'table' and languages or {}) do
    for _, ext in ipairs(server_extensions) do
      if not mnemo.extensions()[(ext:gsub('^%.', ''))] then
        table.insert(unknown, ext)
      end
    end
  end
  if #unknown > 0 then
    table.sort(unknown)
    info('the server also indexes ' .. table.concat(unknown, ' ') .. ' (add them to extensions in setup())')
  end
  -- :checkhealth shows its report in a buffer of its own: the buffer it was asked from is the alternate
  local asked_from = vim.fn.bufnr('#') ~= -1 and vim.fn.bufnr('#') or 0
  local root = mnemo.find_root(asked_from)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(asked_from), ':~:.')
  if root then
    ok(name .. ' belongs to ' .. root)
  else
    info(name .. ' is in no repository (root markers: ' .. table.concat(mnemo.config.root_markers, ', ') .. '): no server for it')
  end
  for served, id in pairs(mnemo.state.clients) do
    local client = vim.lsp.get_client_by_id(id)
    local state = client == nil and 'stopped' or (mnemo.state.ready[id] and 'index ready' or 'indexing')
    info(string.format('server %d for %s: %s', id, served, state))
  end
  info('hover: ' .. mnemo.config.hover .. ', progress: ' .. mnemo.config.progress)
end

return M
