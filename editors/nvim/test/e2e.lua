-- Headless end-to-end test of caps lsp in a real Neovim.
-- Usage: nvim --headless -u NONE -c "luafile editors/nvim/test/e2e.lua"
-- Environment: CAPS (the caps binary), CAPS_E2E_FILE (a scratch .caps path),
-- CAPS_PLUGIN (editors/nvim). Prints "N passed, M failed" and exits 0 or 1.
local caps = assert(os.getenv("CAPS"), "CAPS not set")
local file = assert(os.getenv("CAPS_E2E_FILE"), "CAPS_E2E_FILE not set")
vim.opt.runtimepath:prepend(assert(os.getenv("CAPS_PLUGIN")))
vim.cmd("filetype on")
vim.cmd("runtime! ftdetect/*.lua")

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    print("ok   " .. name)
  else
    failed = failed + 1
    print("FAIL " .. name .. (detail and (": " .. vim.inspect(detail)) or ""))
  end
end
local function finish()
  print(string.format("%d passed, %d failed", passed, failed))
  vim.cmd(failed == 0 and "qa!" or "cquit! 1")
end

local ok, err = pcall(function()
  require("capsulang").setup({ cmd = { caps, "lsp" } })
  vim.cmd("edit " .. file)
  check("filetype detected", vim.bo.filetype == "capsulang", vim.bo.filetype)

  local bufnr = vim.api.nvim_get_current_buf()
  local got = vim.wait(10000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  local diags = vim.diagnostic.get(bufnr)
  check("diagnostics arrive", got, diags)
  local d = diags[1] or {}
  check("diagnostic code and range", d.code == "E_UNKNOWN_STATE" and d.lnum == 8 and d.col == 25 and d.end_col == 30, d)

  -- go to definition from the use of `scored` on line 9 (0-based 8)
  local client = vim.lsp.get_clients({ bufnr = bufnr })[1]
  check("client attached", client ~= nil)
  local params = vim.lsp.util.make_position_params()
  params.position = { line = 10, character = 26 } -- `closed` in (target closed)
  local res = client.request_sync("textDocument/definition", params, 5000, bufnr)
  local loc = res and res.result and res.result[1]
  check("definition", loc and loc.range.start.line == 11 and loc.range.start.character == 11, res)
  if loc then
    vim.lsp.util.jump_to_location(loc, client.offset_encoding)
    local cur = vim.api.nvim_win_get_cursor(0)
    check("cursor moved to the definition", cur[1] == 12 and cur[2] == 11, cur)
  end

  -- apply the preferred quick fix for the diagnostic and see it clear
  local ca = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 8, character = 26 }, ["end"] = { line = 8, character = 26 } },
    context = { diagnostics = {} },
  }, 5000, bufnr)
  local actions = (ca and ca.result) or {}
  local preferred
  for _, a in ipairs(actions) do
    if a.isPreferred then preferred = a end
  end
  check("preferred quick fix offered", preferred ~= nil and preferred.title == "Change `scord` to `scored` [safe]", actions)
  if preferred then
    vim.lsp.util.apply_workspace_edit(preferred.edit, client.offset_encoding)
    local line = vim.api.nvim_buf_get_lines(bufnr, 8, 9, false)[1]
    check("edit applied", line:find("(target scored)", 1, true) ~= nil, line)
    local cleared = vim.wait(10000, function() return #vim.diagnostic.get(bufnr) == 0 end, 20)
    check("diagnostic clears", cleared, vim.diagnostic.get(bufnr))
  end

  -- :CapsDryRun draws each step as virtual text at its transition
  local cmds = require("capsulang.commands")
  vim.api.nvim_set_current_buf(bufnr)
  local run = cmds.dry_run(bufnr, "Claim")
  local marks = vim.api.nvim_buf_get_extmarks(bufnr, cmds.ns, 0, -1, { details = true })
  local texts = {}
  for _, m in ipairs(marks) do table.insert(texts, (m[2] + 1) .. ":" .. m[4].virt_text[1][1]) end
  check("dry-run virtual text", #marks == 2 and texts[1] == "9:⇒ scored" and texts[2] == "11:⇒ closed", { texts = texts, run = run })
  check(":CapsDryRun registered", vim.fn.exists(":CapsDryRun") == 2)

  -- tree-sitter highlighting from the grammar's queries
  vim.api.nvim_set_current_buf(bufnr)
  local function captures(row, col)
    local names = {}
    for _, c in ipairs(vim.treesitter.get_captures_at_pos(bufnr, row, col)) do table.insert(names, c.capture) end
    return table.concat(names, ",")
  end
  local kw, st, ev = captures(2, 3), captures(9, 11), captures(8, 11)
  check("tree-sitter highlights", kw:find("keyword.type", 1, true) ~= nil and st:find("label", 1, true) ~= nil and ev:find("constructor", 1, true) ~= nil, { machine = kw, state = st, event = ev })

  -- :checkhealth capsulang reports no errors
  vim.cmd("checkhealth capsulang")
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check("checkhealth", health:find("caps: caps", 1, true) ~= nil and health:find("tree-sitter parser:", 1, true) ~= nil and health:find("ERROR", 1, true) == nil, health)

  -- :CapsExplain opens the explanation
  local ex = cmds.explain(bufnr, "E_UNKNOWN_STATE")
  local first = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]
  check("explain", ex ~= nil and first:find("# E_UNKNOWN_STATE", 1, true) == 1, first)

  -- :CapsProtocolPlan shows the protocol plan in a scratch buffer
  local protocol_file = os.getenv("CAPS_E2E_PROTOCOL")
  if protocol_file then
    check(":CapsProtocolPlan registered", vim.fn.exists(":CapsProtocolPlan") == 2)
    vim.cmd("edit " .. protocol_file)
    local pb = vim.api.nvim_get_current_buf()
    vim.wait(10000, function() return #vim.lsp.get_clients({ bufnr = pb }) > 0 end, 20)
    vim.cmd("CapsProtocolPlan")
    local plan_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    check("protocol plan summary", vim.deep_equal(plan_lines, {
      "protocol plan of module demo.releases",
      "port ci (mcp 2025-06-18); tools deploy",
      "surface release_ui (a2ui v0.9) bound to Release; data change_id state; actions approve (confirmed by the user), Go",
      "2 protocol effects:",
      "  mcp.call ci.deploy: Release idle on Go",
      "  a2ui.emit release_ui: Release idle on Go",
      "1 surface with A2UI envelopes",
      "",
      "the plan as JSON: :CapsProtocolPlan json",
    }) and vim.api.nvim_buf_get_name(0) == "capsulang://protocol-plan" and vim.bo.buftype == "nofile", plan_lines)
    vim.cmd("close")
    vim.api.nvim_set_current_buf(pb)
    vim.cmd("CapsProtocolPlan json")
    local json_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    local decoded = vim.json.decode(table.concat(json_lines, "\n"))
    check("protocol plan json", json_lines[1] == "{" and json_lines[2] == '  "module": "demo.releases",' and vim.bo.filetype == "json"
      and decoded.effects[2].effect == "a2ui.emit" and decoded.effects[2].emitted_by[1].event == "Go"
      and decoded.surfaces[1].actions[1].requires_user_confirmation == true, json_lines)
    vim.cmd("close")
    vim.api.nvim_set_current_buf(pb)
    local before = #vim.api.nvim_list_bufs()
    local notified
    local notify = vim.notify
    vim.notify = function(msg) notified = msg end
    vim.cmd("CapsProtocolPlan yaml")
    vim.notify = notify
    check("protocol plan bad argument", notified == "capsulang: use :CapsProtocolPlan for the summary or :CapsProtocolPlan json for the plan" and #vim.api.nvim_list_bufs() == before, notified)
  end

  -- a Capsule contract gets the server too, as a YAML buffer
  local contract = os.getenv("CAPS_E2E_CAPSULE")
  if contract then
    vim.cmd("edit " .. contract)
    local cb = vim.api.nvim_get_current_buf()
    local arrived = vim.wait(10000, function() return #vim.diagnostic.get(cb) > 0 end, 20)
    local cd = vim.diagnostic.get(cb)[1] or {}
    check("contract diagnostics", arrived and cd.code == "E_CAPSULE_DEFAULT_ALLOW" and cd.lnum == 13 and cd.col == 11, vim.diagnostic.get(cb))
    local cc = vim.lsp.get_clients({ bufnr = cb })[1]
    check("contract attached to the same server", cc ~= nil and cc.id == client.id)
    local hov = cc and cc.request_sync("textDocument/hover", {
      textDocument = { uri = vim.uri_from_bufnr(cb) }, position = { line = 13, character = 4 },
    }, 5000, cb)
    local value = hov and hov.result and hov.result.contents.value or ""
    check("contract hover", value:find("**`runtime.network`**", 1, true) == 1, hov)
    local lens = cc and cc.request_sync("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(cb) } }, 5000, cb)
    local l = lens and lens.result and lens.result[1]
    check("compile capsule lens", l ~= nil and l.command.command == "capsulang.compileCapsule", lens)
  end
end)
if not ok then
  failed = failed + 1
  print("FAIL error: " .. tostring(err))
end
finish()
