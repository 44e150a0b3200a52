// Drives the pinned Noir toolchain for caps noir-compile and caps
// noir-execute (cmd/caps), and for the tests of codegen/noir.
//
//   node run.mjs version
//   node run.mjs compile DIR          compiles the Nargo project in DIR with
//                                     noir_wasm; writes DIR/target/NAME.json
//   node run.mjs execute DIR INPUTS   runs the compiled program on the
//                                     inputs (a JSON file) with noir_js (ACVM)
//   node run.mjs execute-many DIR     reads one JSON input map per stdin line
//                                     and prints one result per line
//
// Every command prints one JSON object per result on stdout: {"ok": true,
// ...} or {"ok": false, "error": "..."}; it exits with 0 unless the
// command itself is malformed or the toolchain cannot load.
import { readFile, writeFile, mkdir, rename } from "node:fs/promises";
import { readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";

// The toolchain logs progress with console.log; stdout carries only our
// JSON results.
console.log = (...args) => process.stderr.write(args.join(" ") + "\n");
const [cmd, dir, inputsPath] = process.argv.slice(2);

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function message(e) {
  if (e === null || e === undefined) return "unknown error";
  if (typeof e === "string") return e;
  if (Array.isArray(e.diagnostics) && e.diagnostics.length > 0) {
    return e.diagnostics.map((d) => d.message + (d.secondaries ? d.secondaries.map((s) => ": " + s.message).join("") : "")).join("; ");
  }
  return e.message || String(e);
}

const here = path.dirname(new URL(import.meta.url).pathname);
function versions() {
  const v = (p) => JSON.parse(readFileSync(path.join(here, "node_modules", "@noir-lang", p, "package.json"), "utf8")).version;
  return { noir_wasm: v("noir_wasm"), noir_js: v("noir_js") };
}

async function artifactPath(d) {
  const toml = await readFile(path.join(d, "Nargo.toml"), "utf8");
  const m = toml.match(/^\s*name\s*=\s*"([^"]+)"/m);
  if (!m) throw new Error("Nargo.toml has no package name");
  return path.join(d, "target", m[1] + ".json");
}

async function compile(d) {
  const { compile_program, createFileManager } = await import("@noir-lang/noir_wasm");
  const logs = [];
  const fm = createFileManager(path.resolve(d));
  let res;
  try {
    res = await compile_program(fm, undefined, (m) => logs.push(String(m)), () => {});
  } catch (e) {
    out({ ok: false, error: message(e), log: logs });
    return;
  }
  const program = res.program;
  const dest = await artifactPath(d);
  await mkdir(path.dirname(dest), { recursive: true });
  const tmp = dest + ".tmp";
  await writeFile(tmp, JSON.stringify(program));
  await rename(tmp, dest);
  const warnings = (res.warnings || []).map((w) => w.message || String(w));
  out({ ok: true, artifact: dest, noir_version: program.noir_version, abi: program.abi, warnings, ...versions() });
}

async function executor(d) {
  const { Noir } = await import("@noir-lang/noir_js");
  const program = JSON.parse(await readFile(await artifactPath(d), "utf8"));
  const noir = new Noir(program);
  return async (inputs) => {
    try {
      const { witness, returnValue } = await noir.execute(inputs);
      return { ok: true, satisfied: true, witness_bytes: witness.length, return_value: returnValue ?? null };
    } catch (e) {
      return { ok: true, satisfied: false, error: message(e) };
    }
  };
}

try {
  switch (cmd) {
    case "version":
      out({ ok: true, ...versions() });
      break;
    case "compile":
      await compile(dir);
      break;
    case "execute": {
      const run = await executor(dir);
      out(await run(JSON.parse(await readFile(inputsPath, "utf8"))));
      break;
    }
    case "execute-many": {
      const run = await executor(dir);
      const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
      for await (const line of rl) {
        if (line.trim() === "") continue;
        out(await run(JSON.parse(line)));
      }
      break;
    }
    default:
      process.stderr.write("usage: node run.mjs version | compile DIR | execute DIR INPUTS.json | execute-many DIR\n");
      process.exit(2);
  }
} catch (e) {
  out({ ok: false, error: message(e) });
}
