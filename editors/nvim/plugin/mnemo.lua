-- mnemo: which code matters here. Commands that talk to `mnemo-lsp`; configure with
-- require('mnemo').setup({...}) (see lua/mnemo/init.lua).
if vim.g.loaded_mnemo then
  return
end
vim.g.loaded_mnemo = true

require('mnemo').create_commands()
