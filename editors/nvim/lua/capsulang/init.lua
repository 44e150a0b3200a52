-- capsulang: Neovim support for Capsulang (filetype, language server).
local M = {}

M.config = {
  -- the caps binary; found on PATH by default
  cmd = { "caps", "lsp" },
  -- extra settings passed to vim.lsp.start
  lsp = {},
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
  local group = vim.api.nvim_create_augroup("capsulang", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "capsulang",
    callback = function(args) M.start(args.buf) end,
  })
  -- buffers already open
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[buf].filetype == "capsulang" then M.start(buf) end
  end
end

return M
