-- :checkhealth capsulang
local M = {}

function M.check()
  local health = vim.health
  local cfg = require("capsulang").config
  health.start("capsulang")
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  local bin = cfg.cmd[1]
  if vim.fn.executable(bin) == 1 then
    local out = vim.fn.system({ bin, "version" })
    health.ok("caps: " .. vim.trim(out))
  else
    health.error("`" .. bin .. "` is not executable", { "install caps (make build) and put it on PATH, or set require('capsulang').setup({ cmd = { '/path/to/caps', 'lsp' } })" })
  end
  local clients = vim.lsp.get_clients({ name = "capsulang" })
  if #clients > 0 then
    health.ok("language server running (" .. #clients .. " client(s))")
  else
    health.info("no capsulang language server running (open a .caps file)")
  end
  local ts = require("capsulang.treesitter")
  local so = ts.parser_path()
  if vim.fn.filereadable(so) == 1 then
    health.ok("tree-sitter parser: " .. so)
    for _, q in ipairs(ts.queries) do
      local ok = pcall(vim.treesitter.query.get, "capsulang", q)
      if ok then health.ok("query " .. q) else health.warn("query " .. q .. " does not load") end
    end
  else
    health.warn("tree-sitter parser not built", { "it is compiled by setup() with a C compiler from " .. ts.grammar_dir(cfg) })
  end
end

return M
