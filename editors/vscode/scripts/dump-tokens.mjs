#!/usr/bin/env node
// Prints the TextMate scopes of every token of a .caps file, one line per
// token: a debugging aid for writing grammar fixtures.
//
//   node scripts/dump-tokens.mjs FILE
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const here = dirname(fileURLToPath(import.meta.url));
const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/dump-tokens.mjs FILE');
  process.exit(2);
}
const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (s) => new oniguruma.OnigScanner(s),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scope) =>
    scope === 'source.capsulang'
      ? vsctm.parseRawGrammar(readFileSync(join(here, '..', 'syntaxes', 'capsulang.tmLanguage.json'), 'utf8'), 'x.json')
      : null,
});
const grammar = await registry.loadGrammar('source.capsulang');
let stack = vsctm.INITIAL;
readFileSync(file, 'utf8').split(/\r?\n/).forEach((line, i) => {
  const r = grammar.tokenizeLine(line, stack);
  for (const t of r.tokens) {
    const text = line.slice(t.startIndex, t.endIndex);
    if (text.trim() === '') continue;
    const scopes = t.scopes.filter((s) => s !== 'source.capsulang').join(' ');
    console.log(`${i + 1}:${t.startIndex}\t${JSON.stringify(text)}\t${scopes}`);
  }
  stack = r.ruleStack;
});
