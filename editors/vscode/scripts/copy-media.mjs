#!/usr/bin/env node
// Copies the browser build of Mermaid (a devDependency) into media/vendor/,
// where the diagram webview loads it; the .vsix ships that one file rather
// than Mermaid's whole dependency tree.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendor = join(root, 'media', 'vendor');
const pkgDir = dirname(require.resolve('mermaid/package.json'));
const files = [
  [join(pkgDir, 'dist', 'mermaid.min.js'), join(vendor, 'mermaid.min.js')],
  [join(pkgDir, 'LICENSE'), join(vendor, 'mermaid.LICENSE')],
];
mkdirSync(vendor, { recursive: true });
for (const [from, to] of files) {
  if (!existsSync(from)) {
    console.error(`copy-media: ${from} is missing; run npm ci`);
    process.exit(1);
  }
  copyFileSync(from, to);
}
console.log(`copy-media: mermaid -> ${vendor}`);
