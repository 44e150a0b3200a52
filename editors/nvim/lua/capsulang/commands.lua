-- User commands for Capsulang buffers: each one asks the language server
-- (workspace/executeCommand) and shows the JSON result in a readable form.
local M = {}

M.ns = vim.api.nvim_create_namespace("capsulang_dryrun")

local function client_for(bufnr)
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = bufnr, name = "capsulang" })) do
    return c
  end
  return nil
end

--- Run a server command synchronously; returns the result or nil, err.
function M.execute(bufnr, command, args, timeout)
  local client = client_for(bufnr)
  if not client then
    return nil, "caps lsp is not running for this buffer"
  end
  local res = client.request_sync("workspace/executeCommand", { command = command, arguments = { args } }, timeout or 10000, bufnr)
  if not res then
    return nil, command .. ": no answer from caps lsp"
  end
  if res.err then
    return nil, command .. ": " .. (res.err.message or vim.inspect(res.err))
  end
  return res.result, nil
end

--- Show lines in a scratch buffer in a split.
function M.show(title, lines, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = "wipe"
  if filetype then vim.bo[buf].filetype = filetype end
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  return buf
end

local function uri(bufnr) return vim.uri_from_bufnr(bufnr) end

local function fail(err) vim.notify("capsulang: " .. err, vim.log.levels.ERROR) end

-- the machine under the cursor, or the first one
local function machine_at_cursor(bufnr)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local name
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local m = line:match("%(machine%s+([%w_%-]+)")
    if m and (i <= row or not name) then name = m end
  end
  return name
end

--- :CapsDryRun [MACHINE] — dry-run a machine and draw each step as virtual
--- text at the transition it took.
function M.dry_run(bufnr, machine)
  machine = machine ~= "" and machine or machine_at_cursor(bufnr)
  local res, err = M.execute(bufnr, "capsulang.dryRun", { uri = uri(bufnr), machine = machine })
  if not res then return fail(err) end
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  for _, run in ipairs(res.runs or {}) do
    for _, st in ipairs(run.steps or {}) do
      if st.range then
        local text
        if st.accepted then
          text = "⇒ " .. st.to
          local effs = {}
          for _, e in ipairs(st.effects or {}) do
            table.insert(effs, e.effect .. ((e.target and e.target ~= "") and (" " .. e.target) or ""))
          end
          if #effs > 0 then text = text .. " · " .. table.concat(effs, ", ") end
        else
          text = "✗ " .. (st.code or "refused") .. ": " .. (st.error or "")
        end
        vim.api.nvim_buf_set_extmark(bufnr, M.ns, st.range["end"].line, 0, {
          virt_text = { { text, st.accepted and "Comment" or "DiagnosticWarn" } },
          virt_text_pos = "eol",
        })
      end
    end
  end
  return res
end

--- :CapsRun [FUNCTION] — run the examples (of one function, or all).
function M.run(bufnr, fn)
  local res, err = M.execute(bufnr, "capsulang.run", { uri = uri(bufnr), ["function"] = fn ~= "" and fn or nil })
  if not res then return fail(err) end
  local lines = { string.format("%d passed, %d failed", res.passed or 0, res.failed or 0) }
  for _, e in ipairs(res.examples or {}) do
    if e.passed then
      table.insert(lines, "PASS " .. e.call)
    else
      table.insert(lines, "FAIL " .. e.call .. ": expected " .. (e.expected or "?") .. ", got " .. (e.got or e.error or "?"))
    end
  end
  M.show("capsulang://examples", lines)
  return res
end

--- :CapsExplain CODE — explain a diagnostic code (the one under the cursor
--- when none is given).
function M.explain(bufnr, code)
  if code == "" then
    local d = vim.diagnostic.get(bufnr, { lnum = vim.api.nvim_win_get_cursor(0)[1] - 1 })[1]
    code = d and d.code or ""
  end
  local res, err = M.execute(bufnr, "capsulang.explain", { code = code })
  if not res then return fail(err) end
  local lines = { "# " .. res.code .. " (" .. (res.severity or "") .. "): " .. (res.title or ""), "", res.summary or "", "", "## Example", "" }
  vim.list_extend(lines, vim.split(res.example or "", "\n"))
  vim.list_extend(lines, { "## Fix", "", res.fix or "", "" })
  vim.list_extend(lines, vim.split(res.fixed or "", "\n"))
  vim.list_extend(lines, { "", res.url or "" })
  M.show("capsulang://explain/" .. res.code, lines, "markdown")
  return res
end

--- :CapsDiagram [machine|effects] — the Mermaid text of the buffer's machines.
function M.diagram(bufnr, kind)
  local res, err = M.execute(bufnr, "capsulang.visualize", { uri = uri(bufnr), kind = kind ~= "" and kind or "machine" })
  if not res then return fail(err) end
  M.show("capsulang://diagram", vim.split(res.mermaid or "", "\n"), "mermaid")
  return res
end

--- :CapsCompile TARGET — compile the buffer; text artefacts open in a split.
function M.compile(bufnr, target)
  local res, err = M.execute(bufnr, "capsulang.compile", { uri = uri(bufnr), target = target ~= "" and target or nil }, 30000)
  if not res then return fail(err) end
  if res.plans then
    local lines = { "target           ready   status" }
    for _, p in ipairs(res.plans) do
      table.insert(lines, string.format("%-16s %-7s %s", p.target, tostring(p.ready), p.status))
    end
    M.show("capsulang://compile-plan", lines)
    return res
  end
  local lines = {}
  for _, a in ipairs(res.artifacts or {}) do
    if a.text then vim.list_extend(lines, vim.split(a.text, "\n")) else table.insert(lines, "(binary artefact " .. (a.name or "") .. ", " .. #(a.base64 or "") .. " base64 bytes)") end
  end
  M.show("capsulang://compile/" .. (res.target or target), lines)
  return res
end

--- :CapsPropose [REASON] — propose the buffer's text as the successor of
--- the saved file and show the assessment.
function M.propose(bufnr, reason)
  local res, err = M.execute(bufnr, "capsulang.propose", { uri = uri(bufnr), reason = reason ~= "" and reason or nil }, 60000)
  if not res then return fail(err) end
  local lines = { "proposal " .. res.id .. ": " .. res.verdict, res.summary or "", "" }
  for _, f in ipairs(res.findings or {}) do table.insert(lines, "- [" .. f.severity .. "] " .. f.message) end
  if res.authority and #res.authority.added > 0 then
    table.insert(lines, "")
    table.insert(lines, "authority gained:")
    for _, a in ipairs(res.authority.added) do table.insert(lines, "  + " .. a) end
  end
  table.insert(lines, "")
  vim.list_extend(lines, vim.split(res.diff or "", "\n"))
  table.insert(lines, "")
  table.insert(lines, "commit with :lua require('capsulang.commands').commit(0, '" .. res.id .. "')")
  M.show("capsulang://proposal/" .. res.id, lines, "diff")
  return res
end

--- :CapsProtocolPlan [json] — the buffer's protocol plan (MCP ports, A2A
--- agents, A2UI surfaces, protocol effects and who emits them) in a
--- scratch buffer: the summary of `caps protocol-plan`, or with `json` the
--- plan of `caps protocol-plan --json`, indented.
function M.protocol_plan(bufnr, form)
  if form ~= "" and form ~= "json" then
    return fail("use :CapsProtocolPlan for the summary or :CapsProtocolPlan json for the plan")
  end
  local res, err = M.execute(bufnr, "capsulang.protocolPlan", { uri = uri(bufnr) })
  if not res then return fail(err) end
  if form == "json" then
    M.show("capsulang://protocol-plan.json", vim.split(vim.trim(res.json or ""), "\n"), "json")
  else
    local lines = vim.split(vim.trim(res.text or ""), "\n")
    vim.list_extend(lines, { "", "the plan as JSON: :CapsProtocolPlan json" })
    M.show("capsulang://protocol-plan", lines)
  end
  return res
end

function M.commit(bufnr, id, approve)
  local res, err = M.execute(bufnr == 0 and vim.api.nvim_get_current_buf() or bufnr, "capsulang.commit", { uri = uri(bufnr), id = id, approve = approve })
  if not res then return fail(err) end
  vim.notify("capsulang: committed " .. id .. " as " .. res.event_id)
  return res
end

function M.register()
  local function cmd(name, fn, desc, complete)
    vim.api.nvim_create_user_command(name, function(o) fn(vim.api.nvim_get_current_buf(), o.args) end, { nargs = "?", desc = desc, complete = complete })
  end
  cmd("CapsRun", M.run, "Capsulang: run function examples")
  cmd("CapsDryRun", M.dry_run, "Capsulang: dry-run a machine (virtual text at each transition)")
  cmd("CapsCompile", M.compile, "Capsulang: compile (no target: list targets)", function() return { "wat", "wasm", "riscv64", "xstate", "scxml", "mermaid" } end)
  cmd("CapsDiagram", M.diagram, "Capsulang: Mermaid diagram of the machines", function() return { "machine", "effects" } end)
  cmd("CapsExplain", M.explain, "Capsulang: explain a diagnostic code")
  cmd("CapsPropose", M.propose, "Capsulang: propose the buffer as a successor and assess it")
  cmd("CapsProtocolPlan", M.protocol_plan, "Capsulang: protocol plan (ports, agents, surfaces, protocol effects)", function() return { "json" } end)
end

return M
