#!/usr/bin/env node
// Bundles the extension and its runtime dependencies (vscode-languageclient
// and what it pulls in) into one file, dist/extension.js, with esbuild; the
// .vsix ships that file instead of out/ and node_modules/. `vscode` is
// provided by the host and stays external. Type checking is tsc's job
// (npm run compile); this only bundles.
import { build } from 'esbuild';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'extension.js');
const result = await build({
  entryPoints: [join(root, 'src', 'extension.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: true,
  sourcemap: false,
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
});
const inputs = Object.keys(result.metafile.inputs).length;
console.log(`bundle: ${inputs} modules -> dist/extension.js (${Math.round(statSync(outfile).size / 1024)} KiB)`);
