vim.filetype.add({ extension = { caps = "capsulang" } })
