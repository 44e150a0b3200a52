// activate() in node with a recorded stand-in for the `vscode` module: the
// commands it registers, and what the user sees when caps is missing. It
// runs twice: on the compiled sources (out/src) and on the bundle that
// the .vsix ships (dist/extension.js, npm run bundle), which must work on
// its own, with nothing but `vscode` from outside.

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Module = require('node:module');
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { packageRoot } from '../helpers/caps';
import { createVscodeMock } from '../helpers/vscode-mock';

type Extension = typeof import('../../src/extension');

interface Loader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
}

const entries: Array<[string, string]> = [
  ['compiled sources', '../../src/extension'],
  ['the bundle (dist/extension.js)', path.join(packageRoot, 'dist', 'extension.js')],
];

for (const [label, entry] of entries) describe(`activate (vscode stand-in): ${label}`, () => {
  const { vscode, rec } = createVscodeMock();
  const loader = Module as unknown as Loader;
  const original = loader._load;
  let ext: Extension;
  const context = { subscriptions: [] as Array<{ dispose(): unknown }>, extensionUri: { path: packageRoot } };

  before(async () => {
    loader._load = function (request, parent, isMain) {
      if (request === 'vscode') return vscode;
      if (entry.endsWith('dist/extension.js') && request.startsWith('vscode-')) {
        throw new Error(`the bundle requires ${request}; it must be bundled`);
      }
      return original.call(this, request, parent, isMain);
    };
    rec.settings['capsulang.server.path'] = '/nonexistent/bin/caps';
    ext = require(entry) as Extension;
    await ext.activate(context as never);
  });

  after(() => {
    loader._load = original;
  });

  it('registers every command package.json contributes', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string }> };
    };
    for (const c of manifest.contributes.commands) assert.ok(rec.commands.has(c.command), `${c.command} is registered`);
    assert.ok(rec.commands.has('capsulang.internal.applyGuardedFix'));
  });

  it('says clearly that caps is missing and where to set it', () => {
    const err = rec.messages.find((m) => m.level === 'error');
    assert.ok(err, 'an error message is shown');
    assert.match(err.text, /The Capsulang language server was not found at \/nonexistent\/bin\/caps \("capsulang\.server\.path"\)/);
    assert.deepEqual(err.items, ['Open Settings', 'Show Output']);
    assert.equal(rec.statusBar[0]?.text, '$(warning) Capsulang');
    assert.ok(rec.statusBar[0]?.visible);
    assert.ok(rec.output.get('Capsulang Language Server')?.some((l) => l.includes('/nonexistent/bin/caps')));
  });

  it('answers a command with "not running" instead of failing', async () => {
    rec.messages.length = 0;
    await rec.commands.get('capsulang.explainDiagnostic')?.('E_UNKNOWN_STATE');
    assert.deepEqual(
      rec.messages.map((m) => [m.level, m.items]),
      [['error', ['Show Output', 'Restart']]],
    );
    assert.match(rec.messages[0]?.text ?? '', /The Capsulang language server is not running/);
  });

  it('frees everything on deactivate', async () => {
    await ext.deactivate();
    for (const d of context.subscriptions) d.dispose();
    assert.equal(rec.commands.size, 0, 'every command is unregistered');
    assert.ok(rec.statusBar.every((s) => s.disposed), 'the status bar item is gone');
  });
});
