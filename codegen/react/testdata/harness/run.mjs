// Renders the surfaces of a compiled React bundle (caps compile --target
// react, emitted to JavaScript by tsc) with react-dom/server, and checks
// that their user action handlers return typed actions without performing
// any effect.
//
//   node run.mjs OUT MANIFEST DATA
//
// OUT is the emitted JavaScript (OUT/<surface>.js), MANIFEST the bundle's
// manifest.json and DATA a JSON object {surface: data model value}. It
// prints {"surfaces": [{"surface", "html", "actions": [...]}]}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

const [outDir, manifestPath, dataPath] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const data = JSON.parse(readFileSync(dataPath, "utf8"));

// Any attempt at I/O is an effect the bundle must not perform.
const effects = [];
for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource"]) {
  globalThis[name] = function () {
    effects.push(name);
    throw new Error(`the bundle performed an effect: ${name}`);
  };
}

const pascal = (s) => {
  const p = s.replace(/(^|[_.-])([a-z0-9])/gi, (_, __, c) => c.toUpperCase()).replace(/[_.-]/g, "");
  return /^[A-Za-z]/.test(p) ? p : "S" + p;
};
const camel = (s) => {
  const p = pascal(s);
  return p[0].toLowerCase() + p.slice(1);
};

const out = [];
for (const s of manifest.surfaces) {
  const mod = await import(pathToFileURL(join(outDir, s.surface_id + ".js")).href);
  const P = pascal(s.surface_id), c = camel(s.surface_id);
  const onAction = (a) => {
    throw new Error(`rendering handed an action to the host: ${JSON.stringify(a)}`);
  };
  const html = renderToStaticMarkup(createElement(mod[P], { data: data[s.surface_id] ?? mod[c + "Defaults"], onAction }));
  const actions = [];
  for (const a of s.actions) {
    const form = mod[c + "InitialForms"][a.name];
    // what the component's form hands to onAction when it is submitted
    actions.push(mod[c + "Submit"][a.name](form));
  }
  out.push({ surface: s.surface_id, html, actions });
}
if (effects.length > 0) {
  throw new Error(`effects performed: ${effects.join(", ")}`);
}
process.stdout.write(JSON.stringify({ surfaces: out }, null, 2) + "\n");
