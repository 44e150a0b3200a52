-- init.lua of the full-screen test (screen_test.go): the plugin from
-- CAPS_PLUGIN with the server CAPS_SERVER, diagnostics as virtual text.
vim.opt.runtimepath:prepend(assert(os.getenv("CAPS_PLUGIN")))
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.opt.signcolumn = "yes"
vim.cmd("filetype on")
vim.cmd("runtime! ftdetect/*.lua")
vim.diagnostic.config({ virtual_text = { prefix = "■" }, signs = true, underline = true })
require("capsulang").setup({ cmd = { assert(os.getenv("CAPS_SERVER")), "lsp" }, treesitter = false })
