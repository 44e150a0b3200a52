-- capsulang: Neovim support for Capsulang (filetype, language server).
local M = {}

M.config = {
  -- the caps binary; found on PATH by default
  cmd = { "caps", "lsp" },
  -- extra settings passed to vim.lsp.start
  lsp = {},
  -- tree-sitter highlighting, folds and indents from tree-sitter-capsulang
  -- (compiled with a C compiler on first use)
  treesitter = true,
  -- where tree-sitter-capsulang is (default: beside editors/ in this repo)
  grammar_dir = nil,
}

local function root_dir(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find({ ".caps", ".git" }, { upward = true, path = vim.fs.dirname(path) })[1]
  return found and vim.fs.dirname(found) or vim.fs.dirname(path)
end

--- Start (or reuse) the language server for a buffer.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.fn.executable(M.config.cmd[1]) ~= 1 then
    vim.notify_once("capsulang: `" .. M.config.cmd[1] .. "` not found; install caps or set require('capsulang').setup({ cmd = {...} })", vim.log.levels.WARN)
    return nil
  end
  local cfg = vim.tbl_deep_extend("force", {
    name = "capsulang",
    cmd = M.config.cmd,
    root_dir = root_dir(bufnr),
  }, M.config.lsp)
  return vim.lsp.start(cfg, { bufnr = bufnr })
end

--- Configure the plugin and start the server for Capsulang buffers.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  require("capsulang.commands").register()
  local ts_ok = false
  if M.config.treesitter then
    local ok, err = require("capsulang.treesitter").setup(M.config)
    if ok then
      ts_ok = true
    else
      vim.notify("capsulang: tree-sitter support disabled: " .. err, vim.log.levels.WARN)
    end
  end
  local group = vim.api.nvim_create_augroup("capsulang", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "capsulang",
    callback = function(args)
      if ts_ok then
        pcall(vim.treesitter.start, args.buf, "capsulang")
        vim.wo.foldmethod, vim.wo.foldexpr = "expr", "v:lua.vim.treesitter.foldexpr()"
        vim.wo.foldenable = false
      end
      M.start(args.buf)
    end,
  })
  -- Capsule contracts (docs/capsule.md) stay YAML buffers; the server
  -- gives them diagnostics, hovers and the "Compile capsule" lens.
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    pattern = "*.capsule.yaml",
    callback = function(args) M.start(args.buf) end,
  })
  -- buffers already open
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[buf].filetype == "capsulang" or vim.api.nvim_buf_get_name(buf):match("%.capsule%.yaml$") then M.start(buf) end
  end
end

return M
