-- Tree-sitter support: compile tree-sitter-capsulang's parser into
-- Neovim's data folder, register it for the capsulang filetype and load the
-- grammar's queries (highlights, folds, indents, locals, textobjects,
-- injections).
local M = {}

local function plugin_root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

--- The tree-sitter-capsulang folder: the configured one, or the one beside
--- editors/ in the repository this plugin comes from.
function M.grammar_dir(cfg)
  if cfg and cfg.grammar_dir then return cfg.grammar_dir end
  return vim.fn.fnamemodify(plugin_root() .. "/../../tree-sitter-capsulang", ":p"):gsub("/$", "")
end

function M.parser_path()
  return vim.fn.stdpath("data") .. "/capsulang/parser/capsulang.so"
end

M.queries = { "highlights", "folds", "indents", "locals", "textobjects", "injections" }

--- Compile the parser when it is missing or older than parser.c.
function M.build(cfg)
  local dir = M.grammar_dir(cfg)
  local src = dir .. "/src/parser.c"
  if vim.fn.filereadable(src) ~= 1 then
    return nil, "tree-sitter-capsulang not found at " .. dir .. " (set grammar_dir in setup)"
  end
  local so = M.parser_path()
  if vim.fn.filereadable(so) == 1 and vim.fn.getftime(so) >= vim.fn.getftime(src) then
    return so
  end
  vim.fn.mkdir(vim.fn.fnamemodify(so, ":h"), "p")
  local cc = (cfg and cfg.cc) or vim.env.CC or "cc"
  local r = vim.system({ cc, "-shared", "-fPIC", "-O2", "-I", dir .. "/src", src, "-o", so }):wait()
  if r.code ~= 0 then
    return nil, "compiling the parser with " .. cc .. " failed: " .. (r.stderr or "")
  end
  return so
end

--- Register the parser and queries; returns true or nil, err.
function M.setup(cfg)
  local so, err = M.build(cfg)
  if not so then return nil, err end
  vim.treesitter.language.add("capsulang", { path = so })
  vim.treesitter.language.register("capsulang", "capsulang")
  local dir = M.grammar_dir(cfg)
  for _, q in ipairs(M.queries) do
    local f = dir .. "/queries/" .. q .. ".scm"
    if vim.fn.filereadable(f) == 1 then
      local ok, qerr = pcall(vim.treesitter.query.set, "capsulang", q, table.concat(vim.fn.readfile(f), "\n"))
      if not ok then return nil, q .. ".scm: " .. tostring(qerr) end
    end
  end
  return true
end

return M
