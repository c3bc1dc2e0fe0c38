-- mnemo for Neovim 0.7+: starts one `mnemo-lsp` per git repository and shows its answers
-- (context for a task or a PR, blast radius, score breakdowns) in one result window and the
-- quickfix list. Code lenses come from the server through Neovim's LSP client; its hover card is
-- shown by :MnemoHover (or merged into K), so it never takes the place of another server's hover.
local M = {}

M.config = {
  cmd = { 'mnemo-lsp' },
  -- file extensions (without the dot) that start the server on their own after setup();
  -- nil: the languages the server indexes (lua/mnemo/languages.lua, as `mnemo-lsp --languages`)
  extensions = nil,
  budget = nil, -- tokens per answer; nil: the server's default
  open_quickfix = false, -- also open the quickfix window after an answer
  -- the root is the nearest directory upwards from the buffer's file holding one of these; never
  -- the current directory, never the home directory; a file outside any gets no server
  root_markers = { '.git' },
  -- 'separate': mnemo's card on :MnemoHover and hover_key only; 'merge': K shows every server's
  -- hover in one window, mnemo's last; 'lsp': mnemo answers K like any other server
  hover = 'separate',
  hover_key = '<leader>mh', -- false: no mapping
  -- 'notify': "indexing" and "index ready" as messages; 'none': leave progress to a statusline
  progress = 'notify',
  result_height = 15, -- lines of the one window that shows answers
  -- the server's settings (sent with `initialize` and as workspace/didChangeConfiguration):
  -- budget, depth, lens (true/false), hover (true/false); nil: the server's defaults
  settings = {},
}

M.state = {
  clients = {}, -- root -> client id
  ready = {}, -- client id -> true once the first index build has ended
  initialized = {}, -- client id -> true after `initialize`
  pending = {}, -- client id -> functions to run once initialized
  last = {}, -- kind ('task', 'pr', 'blast', 'explain', 'files', 'reindex', 'hover') -> the answer
  errors = {}, -- messages of failed commands, newest last
  result_win = nil, -- the window answers are shown in
  extensions = nil, -- set of extensions the server indexes, once asked
}

local INDEX_TOKEN = '^mnemo%-index'

local function notify(message, level)
  vim.notify('mnemo: ' .. message, level or vim.log.levels.INFO)
end

local function strip_slash(dir)
  return (dir:gsub('(.)/+$', '%1'))
end

-- The nearest directory holding one of the root markers, upwards from the buffer's file; nil for
-- a buffer without a file, a file outside any repository, or a root that is the home directory.
function M.find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  local home = strip_slash(vim.loop.os_homedir() or '')
  local dir = vim.fn.fnamemodify(name, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(M.config.root_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return strip_slash(dir) ~= home and strip_slash(dir) or nil
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

-- The extensions that start the server: the setting, else the languages the server indexes (data
-- shipped with the plugin: opening a file never waits for a process).
function M.extensions()
  if M.state.extensions == nil then
    local set = {}
    for _, extensions in pairs(M.config.extensions and { M.config.extensions } or require('mnemo.languages')) do
      for _, ext in ipairs(extensions) do
        set[ext] = true
      end
    end
    M.state.extensions = set
  end
  return M.state.extensions
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
  local indexing = value and type(result.token) == 'string' and result.token:match(INDEX_TOKEN)
  if indexing and value.kind == 'end' then
    M.state.ready[ctx.client_id] = true
  end
  if indexing and M.config.progress == 'notify' then
    if value.kind == 'begin' then
      notify((value.title or 'indexing'):gsub('^mnemo: ', '') .. '...')
    elseif value.kind == 'end' then
      notify('index ready' .. (value.message and (': ' .. value.message) or ''))
    end
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

-- Unless mnemo is to answer K itself, its hover is asked for only by mnemo's own commands.
local function keep_hover_apart(client)
  if M.config.hover == 'lsp' then
    return
  end
  if client.server_capabilities then
    client.server_capabilities.hoverProvider = false
  end
  if client.resolved_capabilities then -- Neovim 0.7
    client.resolved_capabilities.hover = false
  end
end

local function on_init(client)
  keep_hover_apart(client)
  M.state.initialized[client.id] = true
  for _, run in ipairs(M.state.pending[client.id] or {}) do
    run(client)
  end
  M.state.pending[client.id] = nil
end

local function on_attach(_, bufnr)
  pcall(vim.lsp.codelens.refresh)
  if M.config.hover_key then
    vim.keymap.set('n', M.config.hover_key, M.hover, { buffer = bufnr, desc = 'mnemo: the hover card' })
  end
  if M.config.hover == 'merge' then
    vim.keymap.set('n', 'K', M.hover_merged, { buffer = bufnr, desc = 'hover of every server, with mnemo' })
  end
  local group = vim.api.nvim_create_augroup('mnemo_lens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      pcall(vim.lsp.codelens.refresh)
    end,
  })
end

-- The settings as a JSON object, also when empty (an empty Lua table would encode as an array).
local function server_settings()
  return next(M.config.settings) == nil and vim.empty_dict() or M.config.settings
end

local function client_config(root)
  return {
    name = 'mnemo',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities(),
    init_options = server_settings(),
    settings = { mnemo = server_settings() },
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

--- Start (or reuse) the server of the buffer's repository and attach it; returns the client id,
--- or nil for a buffer outside any repository.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = M.find_root(bufnr)
  if root == nil then
    return nil
  end
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
  local root = M.find_root(bufnr or vim.api.nvim_get_current_buf())
  local id = root and M.state.clients[root]
  return id ~= nil and M.state.ready[id] == true
end

-- Run `send(client)` now, or once the client has answered `initialize`.
local function when_initialized(id, client, send)
  if M.state.initialized[id] then
    send(client)
  else
    M.state.pending[id] = M.state.pending[id] or {}
    table.insert(M.state.pending[id], send)
  end
end

--- Run a `mnemo.*` command with one argument object; `on_result(answer)` gets the server's answer.
function M.execute(command, arguments, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  if M.find_root(bufnr) == nil then
    notify('this buffer is not inside a git repository (root markers: ' .. table.concat(M.config.root_markers, ', ') .. ')', vim.log.levels.WARN)
    return
  end
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
  when_initialized(id, client, send)
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
  local win = M.state.result_win
  if win == nil or not vim.api.nvim_win_is_valid(win) then
    local code = vim.api.nvim_get_current_win()
    vim.cmd('botright ' .. M.config.result_height .. 'split')
    win = vim.api.nvim_get_current_win()
    M.state.result_win = win
    vim.api.nvim_set_current_win(code) -- the cursor stays in the code
  end
  vim.api.nvim_win_set_buf(win, bufnr) -- every answer reuses the one result window
  return bufnr
end

-- Hover ---------------------------------------------------------------------------------------
-- Markdown links read as their text: Neovim 0.7 shows them raw.
local function readable(lines)
  local out = {}
  for _, line in ipairs(lines) do
    table.insert(out, (line:gsub('%[([^%]]*)%]%(([^%)]*)%)', '%1')))
  end
  return out
end

-- The lines without the blank ones at either end (vim.lsp.util.trim_empty_lines is deprecated in
-- Neovim 0.11 and gone in 0.12).
local function trim_blank(lines)
  local first, last = 1, #lines
  while first <= last and vim.trim(lines[first]) == '' do
    first = first + 1
  end
  while last >= first and vim.trim(lines[last]) == '' do
    last = last - 1
  end
  return vim.list_slice(lines, first, last)
end

local function hover_lines(result)
  if not (result and result.contents) then
    return {}
  end
  return readable(trim_blank(vim.lsp.util.convert_input_to_markdown_lines(result.contents)))
end

local function float(lines)
  if #lines == 0 then
    notify('no hover information here')
    return
  end
  vim.lsp.util.open_floating_preview(lines, 'markdown', { border = 'rounded', focus_id = 'mnemo_hover' })
end

-- mnemo's hover card for the cursor: `on_lines(lines)` (empty when there is none).
local function mnemo_hover(on_lines)
  local bufnr = vim.api.nvim_get_current_buf()
  local id = M.attach(bufnr)
  local client = id and vim.lsp.get_client_by_id(id)
  if not client then
    on_lines({})
    return
  end
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  local function send(c)
    request(c, 'textDocument/hover', params, function(err, result)
      if err then
        table.insert(M.state.errors, err.message)
      end
      M.state.last.hover = hover_lines(result)
      on_lines(M.state.last.hover)
    end, bufnr)
  end
  when_initialized(id, client, send)
end

--- mnemo's hover card for the symbol at the cursor, in a floating window.
function M.hover()
  mnemo_hover(float)
end

--- Every server's hover for the cursor in one floating window, mnemo's card last.
function M.hover_merged()
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  local others, ours = nil, nil
  local function show()
    if others == nil or ours == nil then
      return
    end
    local lines = vim.deepcopy(others)
    if #lines > 0 and #ours > 0 then
      vim.list_extend(lines, { '', '---', '' })
    end
    float(vim.list_extend(lines, ours))
  end
  vim.lsp.buf_request_all(0, 'textDocument/hover', params, function(results)
    others = {}
    for _, response in pairs(results or {}) do
      vim.list_extend(others, hover_lines(response.result))
    end
    show()
  end)
  mnemo_hover(function(lines)
    ours = lines
    show()
  end)
end

local function where(s)
  return string.format('%s:%d', s.path, s.start_line)
end

-- A decorator, attribute or annotation line above a definition.
local ANNOTATION = { '^%s*@', '^%s*#%[', '^%s*%[' }
local DECORATOR_LINES = 30 -- read at most this far past a symbol's first line for the line naming it

local function annotation(text)
  for _, pattern in ipairs(ANNOTATION) do
    if text:match(pattern) then
      return true
    end
  end
  return false
end

-- The line that names a symbol: its first, or past its decorators (and their bracketed arguments)
-- the first naming it, where hover has something to say (as the server places its lenses).
function M.definition_line(filename, s)
  local lines = vim.fn.filereadable(filename) == 1 and vim.fn.readfile(filename, '', s.start_line + DECORATOR_LINES) or {}
  if lines[s.start_line] == nil or not annotation(lines[s.start_line]) then
    return s.start_line
  end
  local word = '\\V\\<' .. vim.fn.escape(s.name:match('([^.]+)$'), '\\') .. '\\>'
  local depth = 0 -- brackets a decorator opened and has not closed: its arguments go on
  for number = s.start_line, math.min(#lines, s.end_line) do
    local text = lines[number]
    if depth == 0 and not annotation(text) and vim.fn.match(text, word) >= 0 then
      return number
    end
    local _, opened = text:gsub('[%(%[{]', '')
    local _, closed = text:gsub('[%)%]}]', '')
    depth = math.max(0, depth + opened - closed)
  end
  return s.start_line
end

local function quickfix(title, answer, items)
  local entries = {}
  for _, item in ipairs(items) do
    local s = item.symbol
    local filename = answer.repo .. '/' .. s.path
    table.insert(entries, {
      filename = filename,
      lnum = M.definition_line(filename, s),
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
  command('MnemoHover', M.hover, { desc = "mnemo: the symbol's card (callers, tests, last change, score)" })
end

--- Configure, and start the server for the files of the languages it indexes that lie in a repository.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('mnemo', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = '*',
    callback = function(args)
      local ext = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ':e')
      if ext ~= '' and M.find_root(args.buf) ~= nil and M.extensions()[ext] then
        M.attach(args.buf)
      end
    end,
  })
end

return M
