-- The file extensions (without the dot) of the languages mnemo-lsp indexes: data, so opening a
-- file never waits for a process. tests/editors/test_nvim_languages.py keeps it equal to
-- `mnemo-lsp --languages`; :checkhealth mnemo says when an installed server knows more.
return {
  c = { 'c' },
  cpp = { 'cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h', 'ipp', 'inl' },
  csharp = { 'cs' },
  go = { 'go' },
  java = { 'java' },
  javascript = { 'js', 'jsx', 'mjs', 'cjs' },
  kotlin = { 'kt', 'kts' },
  php = { 'php' },
  python = { 'py', 'pyi' },
  ruby = { 'rb', 'rake' },
  rust = { 'rs' },
  tsx = { 'tsx' },
  typescript = { 'ts', 'mts', 'cts' },
}
