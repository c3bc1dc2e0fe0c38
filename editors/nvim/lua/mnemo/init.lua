-- mnemo for Neovim 0.7+: starts `mnemo-lsp` for the buffer's repository and shows its answers
-- (context for a task or a PR, blast radius, score breakdowns) in a scratch buffer and the
-- quickfix list. Hover cards and code lenses come from the server through Neovim's LSP client.
local M = {}

M.config = {
  cmd = { 'mnemo-lsp' },
  -- filetypes that start the server on their own (after setup()); the commands start it anywhere
  filetypes = { 'python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact', 'go', 'rust', 'java' },
  budget = nil, -- tokens per answer; nil: the server's default
  open_quickfix = false, -- also open the quickfix window after an answer
  root_markers = { '.git', '.mnemo', 'pyproject.toml', 'package.json', 'go.mod', 'Cargo.toml' },
}

M.state = {
  clients = {}, -- root -> client id
  ready = {}, -- client id -> true once the first index build has ended
  initialized = {}, -- client id -> true after `initialize`
  pending = {}, -- client id -> functions to run once initialized
  last = {}, -- kind ('task', 'pr', 'blast', 'explain', 'files', 'reindex') -> the server's answer
  errors = {}, -- messages of failed commands, newest last
}

local INDEX_TOKEN = '^mnemo%-index'

local function notify(message, level)
  vim.notify('mnemo: ' .. message, level or vim.log.levels.INFO)
end

-- The directory holding one of the root markers, upwards from the buffer's file.
local function find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.loop.cwd()
  while dir and dir ~= '' do
    for _, marker in ipairs(M.config.root_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.loop.cwd()
end

-- Neovim 0.11 made client methods take `self`; older versions take none.
local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function on_progress(err, result, ctx, config)
  local value = result and result.value
  if value and value.kind == 'end' and type(result.token) == 'string' and result.token:match(INDEX_TOKEN) then
    M.state.ready[ctx.client_id] = true
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, config)
  end
end

local function on_lens_refresh()
  pcall(vim.lsp.codelens.refresh)
  return vim.NIL
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.showDocument = { support = false } -- answers go to a scratch buffer instead
  caps.window.workDoneProgress = true
  caps.workspace = caps.workspace or {}
  caps.workspace.codeLens = { refreshSupport = true }
  return caps
end

local function on_init(client)
  M.state.initialized[client.id] = true
  for _, run in ipairs(M.state.pending[client.id] or {}) do
    run(client)
  end
  M.state.pending[client.id] = nil
end

local function on_attach(_, bufnr)
  pcall(vim.lsp.codelens.refresh)
  local group = vim.api.nvim_create_augroup('mnemo_lens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      pcall(vim.lsp.codelens.refresh)
    end,
  })
end

local function client_config(root)
  return {
    name = 'mnemo',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities(),
    handlers = { ['$/progress'] = on_progress, ['workspace/codeLens/refresh'] = on_lens_refresh },
    commands = {
      ['mnemo.blastRadius'] = function(command)
        M.execute('mnemo.blastRadius', command.arguments and command.arguments[1] or {}, M.show_impact('blast'))
      end,
    },
    on_init = on_init,
    on_attach = on_attach,
  }
end

--- Start (or reuse) the server of the buffer's repository and attach it; returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = find_root(bufnr)
  local id = M.state.clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    if vim.lsp.start then
      id = vim.lsp.start(client_config(root), { bufnr = bufnr })
    else
      id = vim.lsp.start_client(client_config(root))
    end
    M.state.clients[root] = id
  end
  if id and not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- Whether the index of the current buffer's repository has been built.
function M.is_ready(bufnr)
  local id = M.state.clients[find_root(bufnr or vim.api.nvim_get_current_buf())]
  return id ~= nil and M.state.ready[id] == true
end

--- Run a `mnemo.*` command with one argument object; `on_result(answer)` gets the server's answer.
function M.execute(command, arguments, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local id = M.attach(bufnr)
  local client = id and vim.lsp.get_client_by_id(id)
  if not client then
    notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
    return
  end
  if next(arguments) == nil then
    arguments = vim.empty_dict() -- an object, not the empty array an empty table encodes to
  end
  local function send(c)
    request(c, 'workspace/executeCommand', { command = command, arguments = { arguments } }, function(err, answer)
      if err then
        table.insert(M.state.errors, err.message)
        notify(err.message, vim.log.levels.ERROR)
        return
      end
      on_result(answer)
    end, bufnr)
  end
  if M.state.initialized[id] then
    send(client)
  else
    M.state.pending[id] = M.state.pending[id] or {}
    table.insert(M.state.pending[id], send)
  end
end

-- Results -------------------------------------------------------------------------------------
local function scratch(kind, lines)
  local name = 'mnemo://' .. kind
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
    vim.api.nvim_buf_set_option(bufnr, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(bufnr, 'bufhidden', 'hide')
    vim.api.nvim_buf_set_option(bufnr, 'swapfile', false)
    vim.api.nvim_buf_set_option(bufnr, 'filetype', 'markdown')
  end
  vim.api.nvim_buf_set_option(bufnr, 'modifiable', true)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(bufnr, 'modifiable', false)
  if vim.fn.bufwinid(bufnr) == -1 then
    local code = vim.api.nvim_get_current_win()
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
    vim.api.nvim_set_current_win(code) -- the cursor stays in the code
  end
  return bufnr
end

local function where(s)
  return string.format('%s:%d', s.path, s.start_line)
end

local function quickfix(title, answer, items)
  local entries = {}
  for _, item in ipairs(items) do
    local s = item.symbol
    table.insert(entries, {
      filename = answer.repo .. '/' .. s.path,
      lnum = s.start_line,
      text = item.label .. s.name .. ' — ' .. table.concat(s.reasons or {}, '; '),
    })
  end
  vim.fn.setqflist({}, ' ', { title = title, items = entries })
  if M.config.open_quickfix then
    vim.cmd('botright copen')
  end
end

local function symbol_lines(rank, s)
  return {
    string.format('%d. %s  (%s, score %.3f)  %s', rank, s.name, s.kind, s.score, where(s)),
    '   ' .. table.concat(s.reasons or {}, '; '),
  }
end

local function header(answer)
  local lines = {
    '# mnemo: ' .. answer.query,
    string.format('%d symbols, %d of %d tokens', #answer.symbols, answer.used_tokens, answer.budget_tokens),
  }
  for _, note in ipairs(answer.notes or {}) do
    table.insert(lines, '> ' .. note)
  end
  table.insert(lines, 'report: ' .. (answer.report or ''))
  return lines
end

--- Show a ranked answer (a task, or any pack) in `mnemo://<kind>` and the quickfix list.
function M.show_pack(kind)
  return function(answer)
    M.state.last[kind] = answer
    local lines, items = header(answer), {}
    table.insert(lines, '')
    for rank, s in ipairs(answer.symbols) do
      vim.list_extend(lines, symbol_lines(rank, s))
      table.insert(items, { symbol = s, label = rank .. '. ' })
    end
    scratch(kind, lines)
    quickfix('mnemo: ' .. answer.query, answer, items)
  end
end

--- Show an answer with an impact section (PR, files, blast radius).
function M.show_impact(kind)
  return function(answer)
    M.state.last[kind] = answer
    local impact = answer.impact or { changed = {}, callers = {}, tests = {}, reasons = {} }
    local lines, items = header(answer), {}
    table.insert(lines, '')
    table.insert(lines, string.format('risk: %s', impact.risk or 'low'))
    for _, reason in ipairs(impact.reasons or {}) do
      table.insert(lines, '  - ' .. reason)
    end
    for _, section in ipairs({ 'changed', 'callers', 'tests' }) do
      table.insert(lines, '')
      table.insert(lines, string.format('## %s (%d)', section, #impact[section]))
      for rank, s in ipairs(impact[section]) do
        vim.list_extend(lines, symbol_lines(rank, s))
        table.insert(items, { symbol = s, label = '[' .. section .. '] ' })
      end
    end
    scratch(kind, lines)
    quickfix('mnemo: ' .. answer.query, answer, items)
  end
end

local function show_explanation(answer)
  M.state.last.explain = answer
  local lines = vim.split(answer.text, '\n', { plain = true })
  table.insert(lines, '')
  table.insert(lines, 'report: ' .. (answer.report or ''))
  scratch('explain', lines)
end

local function cursor_arguments()
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  return { uri = params.textDocument.uri, position = params.position }
end

local function with_budget(arguments)
  if M.config.budget then
    arguments.budget = M.config.budget
  end
  return arguments
end

-- Commands ------------------------------------------------------------------------------------
function M.task(text)
  M.execute('mnemo.contextForTask', with_budget({ task = text }), M.show_pack('task'))
end

function M.pr(base)
  M.execute('mnemo.contextForPR', with_budget({ base = base }), M.show_impact('pr'))
end

function M.files(paths)
  local uris = {}
  for _, path in ipairs(paths) do
    table.insert(uris, vim.uri_from_fname(vim.fn.fnamemodify(path, ':p')))
  end
  M.execute('mnemo.contextForFiles', with_budget({ uris = uris }), M.show_impact('files'))
end

function M.blast()
  M.execute('mnemo.blastRadius', with_budget(cursor_arguments()), M.show_impact('blast'))
end

function M.explain(task)
  local arguments = cursor_arguments()
  arguments.task = task
  M.execute('mnemo.explain', arguments, show_explanation)
end

function M.reindex()
  M.execute('mnemo.reindex', {}, function(answer)
    M.state.last.reindex = answer
    notify(string.format('index rebuilt: %d files, %d symbols', answer.files, answer.symbols))
  end)
end

function M.create_commands()
  local command = vim.api.nvim_create_user_command
  command('MnemoTask', function(opts)
    M.task(opts.args)
  end, { nargs = '+', desc = 'mnemo: the code that matters for a task' })
  command('MnemoPR', function(opts)
    M.pr(opts.args ~= '' and opts.args or nil)
  end, { nargs = '?', desc = 'mnemo: the blast radius of this branch against BASE (default: the main branch)' })
  command('MnemoFiles', function(opts)
    M.files(#opts.fargs > 0 and opts.fargs or { vim.api.nvim_buf_get_name(0) })
  end, { nargs = '*', complete = 'file', desc = 'mnemo: the context of files (default: this one)' })
  command('MnemoBlast', M.blast, { desc = 'mnemo: callers and tests of the symbol at the cursor' })
  command('MnemoExplain', function(opts)
    M.explain(opts.args ~= '' and opts.args or nil)
  end, { nargs = '*', desc = 'mnemo: why the symbol at the cursor ranks where it does for TASK (default: the last task)' })
  command('MnemoReindex', M.reindex, { desc = 'mnemo: rebuild the index' })
end

--- Configure, and start the server for buffers of the supported filetypes.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('mnemo', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
end

return M
