// The authoring UI: plain JavaScript over the JSON API under /api/
// (runtime/session/webui). Every change goes through the API; the page
// keeps only what it shows.
"use strict";

const $ = (sel) => document.querySelector(sel);
const ui = {
  session: null,   // the SessionView shown
  events: [],      // the dry run's events so far
  dry: null,       // the last DryRunView
  proposal: null,  // the id of the last proposal
};

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data;
  try {
    data = await r.json();
  } catch (_) {
    data = { error: `the server answered ${r.status} ${r.statusText} without JSON` };
  }
  if (!r.ok) {
    const e = new Error(data.error || r.statusText);
    e.data = data;
    throw e;
  }
  return data;
}

function showError(e) {
  const box = $("#error");
  let text = e.message;
  const d = e.data || {};
  for (const p of d.problems || []) text += `\n  at ${p.instance || "/"} (schema #${p.schema}): ${p.message}`;
  for (const u of d.unmet || []) text += `\n  unmet: ${u.rule || ""} ${u.message || JSON.stringify(u)}`;
  if (d.attempt) text += `\n(the description and the model's answer are kept in ${d.attempt})`;
  box.textContent = text;
  box.hidden = false;
}

function clearError() {
  $("#error").hidden = true;
  $("#error").textContent = "";
}

// run wraps a button's work: errors are shown, the button is disabled
// while the call runs, and the input stays where it was.
function run(button, fn) {
  return async () => {
    clearError();
    button.disabled = true;
    try {
      await fn();
    } catch (e) {
      showError(e);
    } finally {
      button.disabled = false;
      if (button.id === "assess") button.disabled = !ui.proposal;
    }
  };
}

function by() {
  return $("#by").value.trim();
}

function enableSessionPanels(on) {
  for (const s of document.querySelectorAll(".needs-session")) s.classList.toggle("disabled", !on);
}

async function loadWorkspace() {
  const w = await api("GET", "/api/workspace");
  $("#workspace").textContent = `workspace ${w.root}`;
  $("#model").textContent = w.bridge ? `no model: ${w.bridge}` : `model ${w.model}`;
  const sel = $("#sessions");
  sel.replaceChildren(...w.sessions.map((s) =>
    el("option", { value: s.id, selected: s.current }, s.problem ? `${s.id} (does not verify)` : `${s.id}: ${s.target}, ${s.steps} step(s)`)));
  return w;
}

function list(ul, items, render) {
  ul.replaceChildren(...(items.length ? items.map(render) : [el("li", { class: "none" }, "none")]));
}

function showSession(v) {
  const first = !ui.session || ui.session.session !== v.session;
  ui.session = v;
  enableSessionPanels(true);
  $("#session-status").textContent = `session ${v.session} on ${v.target} (${v.base_exists ? "an existing file" : "a new file"}), ${v.step} step(s)` +
    (v.proposal ? `, proposed as ${v.proposal}` : "");
  const d = v.delta || {};
  list($("#requirements"), d.requirements || [], (r) => el("li", {}, r));
  list($("#assumptions"), d.assumptions || [], (a) => el("li", {}, a));
  list($("#declarations"), d.declarations || [], (x) => el("li", {}, `${x.kind} ${x.name}`, x.doc ? el("span", { class: "hint" }, ` — ${x.doc}`) : null));
  list($("#holes"), v.holes, (h) => {
    if (h.answer) return el("li", { class: "answered", "data-hole": h.id }, `${h.id}: ${h.question} = ${h.answer}`);
    const input = el("input", { class: "answer", size: 30, "aria-label": `answer to ${h.id}` });
    const btn = el("button", { class: "resolve" }, "Resolve");
    btn.addEventListener("click", run(btn, async () => {
      showSession(await api("POST", `/api/sessions/${v.session}/resolve`, { hole: h.id, answer: input.value, by: by() }));
    }));
    return el("li", { class: "open", "data-hole": h.id }, `${h.id}: ${h.question} `, input, " ", btn);
  });
  list($("#steps"), v.steps, (s) => el("li", {}, `${s.kind}` +
    (s.kind === "delta" ? ` ${s.delta_hash.slice(0, 19)}` + (s.model ? ` from ${s.model}` : "") : "") +
    (s.kind === "resolve" ? ` ${s.hole} = ${s.answer}` : "") +
    (s.kind === "propose" ? ` ${s.proposal}` : "") + (s.by ? ` (by ${s.by})` : "")));
  $("#source-path").textContent = v.target;
  $("#source").value = v.source;
  showDiagnostics(v);
  // machines
  const msel = $("#machine");
  const keep = msel.value;
  msel.replaceChildren(...v.machines.map((m) => el("option", { value: m.name }, m.name)));
  if (v.machines.some((m) => m.name === keep)) msel.value = keep;
  const ssel = $("#surface");
  const keepS = ssel.value;
  ssel.replaceChildren(...v.surfaces.map((s) => el("option", { value: s }, s)));
  if (v.surfaces.includes(keepS)) ssel.value = keepS;
  if (first) ui.events = [];
  refreshRun().catch(showError);
  loadWorkspace().catch(showError);
}

function showDiagnostics(c) {
  $("#diag-summary").textContent = `${c.errors} error(s), ${c.warnings} warning(s)` + (c.semantic_hash ? `, semantic hash ${c.semantic_hash.slice(0, 19)}` : "");
  list($("#diagnostics"), c.diagnostics, (d) => el("li", { class: d.severity, "data-code": d.code || "" },
    `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity}${d.code ? " " + d.code : ""}: ${d.message}`));
}

// Live diagnostics: the edited source is checked as the target file.
let checkTimer = null;
let checkSeq = 0;
function scheduleCheck() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(async () => {
    const seq = ++checkSeq;
    try {
      const c = await api("POST", "/api/check", { path: ui.session.target, source: $("#source").value });
      if (seq === checkSeq) showDiagnostics(c);
    } catch (e) {
      showError(e);
    }
  }, 250);
}

function machineView() {
  const name = $("#machine").value;
  return ui.session ? ui.session.machines.find((m) => m.name === name) : null;
}

// refreshRun redraws the diagram, replays the dry run's events and
// renders the surface from the run's context.
async function refreshRun() {
  const m = machineView();
  $("#diagram").innerHTML = m ? m.svg : "";
  ui.dry = null;
  if (m && ui.session.errors === 0) {
    ui.dry = await api("POST", `/api/sessions/${ui.session.session}/dryrun`, { machine: m.name, events: ui.events });
  }
  showRun();
  await renderSurface();
}

function showRun() {
  const r = ui.dry;
  const next = $("#next-events");
  if (!r) {
    next.replaceChildren(el("span", { class: "hint" }, ui.session && ui.session.errors ? "fix the errors to run a machine" : "no machine"));
    $("#dry-state").textContent = "";
    $("#dry-steps").replaceChildren();
    return;
  }
  const svg = $("#diagram svg");
  if (svg) {
    for (const n of svg.querySelectorAll(".visited, .current, .taken")) n.classList.remove("visited", "current", "taken");
    const mark = (sel, cls) => { const n = svg.querySelector(sel); if (n) n.classList.add(cls); };
    mark(`[data-state="${r.initial}"]`, "visited");
    for (const s of r.steps) {
      if (!s.accepted) continue;
      mark(`[data-transition="${s.transition}"]`, "taken");
      mark(`[data-state="${s.to}"]`, "visited");
    }
    mark(`[data-state="${r.state}"]`, "current");
  }
  next.replaceChildren(...(r.next.length ? r.next.map((ev) => {
    const b = el("button", { class: "event", "data-event": ev }, ev);
    b.addEventListener("click", run(b, () => step(ev)));
    return b;
  }) : [el("span", { class: "hint" }, `no transitions out of ${r.state}`)]));
  $("#dry-state").textContent = `state ${r.state} (${r.status}), context ${JSON.stringify(r.context)}`;
  list($("#dry-steps"), r.steps, (s) => el("li", { class: s.accepted ? "accepted" : "refused" },
    `${s.event}: ${s.from} → ${s.to}` + (s.defaulted.length ? ` (defaulted: ${s.defaulted.join(", ")})` : "") +
    s.effects.map((e) => `; ${e.effect}${e.target ? " " + e.target : ""}: ${e.status}`).join("") +
    (s.error ? ` — ${s.code}: ${s.error}` : "")));
}

async function step(event, payload) {
  if (payload === undefined) {
    const text = $("#payload").value.trim() || "{}";
    try {
      payload = JSON.parse(text);
    } catch (e) {
      throw new Error(`the payload is not JSON (${e.message}); write an object such as {"amount": 150}`);
    }
  }
  ui.events.push({ event, payload });
  await refreshRun();
  if (ui.dry && ui.dry.blocked) {
    ui.events.pop(); // keep the run where it was; the refusal stays listed until the next step
    const shown = ui.dry;
    await refreshRun();
    ui.dry = shown;
    showRun();
  }
}

// ---- A2UI rendering (the basic catalog components the envelopes use)

function pointerGet(obj, path) {
  if (!path || path === "/") return obj;
  let cur = obj;
  for (const part of path.split("/").slice(1)) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur === null || typeof cur !== "object") return undefined;
    cur = cur[key];
  }
  return cur;
}

function pointerSet(obj, path, value) {
  const parts = path.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (cur[p] === null || typeof cur[p] !== "object") cur[p] = {};
    cur = cur[p];
  }
  cur[parts[parts.length - 1]] = value;
}

function resolveValue(v, data) {
  if (v && typeof v === "object" && "path" in v) {
    const x = pointerGet(data, v.path);
    return x === undefined || x === null ? "" : typeof x === "object" ? JSON.stringify(x) : x;
  }
  return v === undefined ? "" : v;
}

function renderSurfaceMessages(messages) {
  const s = { id: null, components: {}, data: {} };
  for (const m of messages) {
    if (m.createSurface) s.id = m.createSurface.surfaceId;
    if (m.updateComponents) for (const c of m.updateComponents.components) s.components[c.id] = c;
    if (m.updateDataModel) {
      if (m.updateDataModel.path === "/") s.data = m.updateDataModel.value;
      else pointerSet(s.data, m.updateDataModel.path, m.updateDataModel.value);
    }
    if (m.deleteSurface) return el("p", { class: "hint" }, "the surface was deleted");
  }
  const render = (id) => {
    const c = s.components[id];
    if (!c) return el("div", { class: "a2ui-unknown" }, `missing component ${id}`);
    const attrs = { "data-component": c.component, "data-id": c.id };
    switch (c.component) {
      case "Card": return el("div", { ...attrs, class: "a2ui-card" }, render(c.child));
      case "Column": return el("div", { ...attrs, class: "a2ui-column" }, ...(c.children || []).map(render));
      case "Row": return el("div", { ...attrs, class: "a2ui-row" }, ...(c.children || []).map(render));
      case "Text": {
        const text = resolveValue(c.text, s.data);
        if (c.variant === "h1" || c.variant === "h2" || c.variant === "h3") return el(c.variant, attrs, text);
        return el("span", { ...attrs, class: c.variant === "caption" ? "a2ui-caption" : "a2ui-text" }, text);
      }
      case "CheckBox": {
        const box = el("input", { type: "checkbox" });
        box.checked = !!resolveValue(c.value, s.data);
        if (c.value && c.value.path) box.addEventListener("change", () => pointerSet(s.data, c.value.path, box.checked));
        return el("label", attrs, box, " ", resolveValue(c.label, s.data));
      }
      case "TextField": {
        const input = el("input", { type: "text" });
        input.value = resolveValue(c.value, s.data);
        if (c.value && c.value.path) input.addEventListener("input", () => pointerSet(s.data, c.value.path, input.value));
        return el("label", attrs, resolveValue(c.label, s.data), " ", input);
      }
      case "Button": {
        const b = el("button", { ...attrs, class: c.variant === "primary" ? "primary" : "" }, render(c.child));
        b.addEventListener("click", run(b, () => surfaceAction(c.action, s)));
        return b;
      }
      default:
        return el("div", { ...attrs, class: "a2ui-unknown" }, `unsupported component ${c.component}`);
    }
  };
  return render("root");
}

// surfaceAction: a button's event goes to the dry run when the machine
// waits for it; any other action is only logged (the UI runs nothing).
async function surfaceAction(action, s) {
  const name = action && action.event ? action.event.name : "";
  const context = {};
  for (const [k, b] of Object.entries((action && action.event && action.event.context) || {})) context[k] = pointerGet(s.data, b.path);
  if (ui.dry && ui.dry.next.includes(name)) {
    $("#surface-log").append(el("li", {}, `${s.id}: ${name} → dry run`));
    await step(name, context);
    return;
  }
  $("#surface-log").append(el("li", {}, `${s.id}: action ${name} ${JSON.stringify(context)} (not an event the machine waits for; nothing runs)`));
}

async function renderSurface() {
  const name = $("#surface").value;
  const view = $("#surface-view");
  if (!name || !ui.session || ui.session.errors) {
    view.replaceChildren(el("p", { class: "hint" }, name ? "fix the errors to render the surface" : "no surface"));
    return;
  }
  const body = { surface: name };
  if (ui.dry) body.context = ui.dry.context;
  const sv = await api("POST", `/api/sessions/${ui.session.session}/surface`, body);
  view.replaceChildren(renderSurfaceMessages(sv.messages));
}

// ---- propose, assess, commit

function showAssessment(a) {
  $("#assessment").hidden = false;
  const v = $("#verdict");
  v.textContent = a.verdict;
  v.className = a.verdict;
  $("#confidence").textContent = `(confidence ${a.confidence})`;
  list($("#reasons"), a.reasons, (r) => el("li", { class: r.level }, `${r.level}: ${r.message}`));
  const rows = [];
  for (const [change, items] of [["added", a.authority_delta.added], ["removed", a.authority_delta.removed]]) {
    for (const x of items || []) rows.push(el("tr", { class: change }, el("td", {}, change === "added" ? "+" : "−"), el("td", {}, x.kind), el("td", {}, x.name), el("td", {}, x.in), el("td", {}, x.path)));
  }
  $("#authority tbody").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 5 }, "no change of authority"))]));
  const need = a.approvals_required || [];
  $("#approvals-required").textContent = need.length
    ? "approval needed: " + need.map((x) => `${x.role || "any approver"} (${x.reason})`).join("; ")
    : "no approval needed";
}

function wire() {
  $("#start").addEventListener("click", run($("#start"), async () => {
    const v = await api("POST", "/api/sessions", { target: $("#target").value.trim(), id: $("#session-id").value.trim(), by: by() });
    ui.events = [];
    ui.proposal = null;
    showSession(v);
  }));
  $("#open").addEventListener("click", run($("#open"), async () => {
    if (!$("#sessions").value) throw new Error("no session to open: start one");
    ui.events = [];
    showSession(await api("GET", `/api/sessions/${$("#sessions").value}`));
  }));
  $("#describe").addEventListener("click", run($("#describe"), async () => {
    showSession(await api("POST", `/api/sessions/${ui.session.session}/describe`, { text: $("#description").value, by: by() }));
  }));
  $("#apply").addEventListener("click", run($("#apply"), async () => {
    let delta;
    try {
      delta = JSON.parse($("#delta-json").value);
    } catch (e) {
      throw new Error(`the delta is not JSON: ${e.message}`);
    }
    showSession(await api("POST", `/api/sessions/${ui.session.session}/apply`, { delta, by: by() }));
  }));
  $("#source").addEventListener("input", scheduleCheck);
  $("#revert").addEventListener("click", () => {
    $("#source").value = ui.session.source;
    showDiagnostics(ui.session);
  });
  $("#machine").addEventListener("change", () => { ui.events = []; refreshRun().catch(showError); });
  $("#reset").addEventListener("click", run($("#reset"), async () => { ui.events = []; await refreshRun(); }));
  $("#surface").addEventListener("change", () => renderSurface().catch(showError));
  $("#propose").addEventListener("click", run($("#propose"), async () => {
    const p = await api("POST", `/api/sessions/${ui.session.session}/propose`, { by: by() });
    ui.proposal = p.id;
    $("#proposal").textContent = `proposal ${p.id}: ` + p.files.map((f) => `${f.path} (+${f.added} −${f.removed})`).join(", ") +
      (p.open_holes.length ? `; ${p.open_holes.length} open hole(s)` : "");
    $("#assess").disabled = false;
    $("#assessment").hidden = true;
    $("#commit-result").textContent = "";
    showSession(await api("GET", `/api/sessions/${ui.session.session}`));
  }));
  $("#assess").addEventListener("click", run($("#assess"), async () => {
    showAssessment(await api("POST", `/api/proposals/${ui.proposal}/assess`, {}));
  }));
  $("#commit").addEventListener("click", run($("#commit"), async () => {
    const who = $("#approver").value.trim();
    const c = await api("POST", `/api/proposals/${ui.proposal}/commit`, { approvals: who ? [who] : [] });
    $("#commit-result").textContent = `committed ${c.proposal} as ${c.event}: ${c.files.join(", ")}` +
      (c.approvals.length ? ` (approved by ${c.approvals.join(", ")})` : "") + `; undo: ${c.undo}`;
  }));
}

wire();
enableSessionPanels(false);
loadWorkspace().catch(showError);
