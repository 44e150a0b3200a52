// package.json and language-configuration.json against the code.

import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { CAPSULE_CONTRACT_PATTERN, ClientCommand, InternalCommand, LANGUAGE_ID } from '../../src/ids';
import { allServerCommands, compileTargets, runModes } from '../../src/protocol';
import { packageRoot } from '../helpers/caps';

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  contributes: {
    languages: Array<{ id: string; extensions: string[]; configuration: string }>;
    grammars: Array<{ language: string; scopeName: string; path: string }>;
    commands: Array<{ command: string; title: string; category: string }>;
    menus: Record<string, Array<{ command: string }>>;
    configuration: { properties: Record<string, { default?: unknown; enum?: string[] }> };
  };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as Manifest;
const langConfig = JSON.parse(readFileSync(path.join(packageRoot, 'language-configuration.json'), 'utf8')) as {
  wordPattern: string;
  indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
  comments: { lineComment: string };
  autoClosingPairs: Array<{ open: string; close: string }>;
};

function sources(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? readFileSync(path.join(dir, e.name), 'utf8') : ''))
    .join('\n');
}

describe('package.json', () => {
  it('contributes exactly the client commands, none named like a server command', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(contributed, Object.values(ClientCommand).sort());
    for (const c of [...contributed, ...Object.values<string>(InternalCommand)]) {
      assert.ok(!(allServerCommands as readonly string[]).includes(c), `${c} would clash with the server's command`);
    }
    for (const c of manifest.contributes.commands) assert.equal(c.category, 'Capsulang');
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const i of items) assert.ok((contributed as string[]).includes(i.command), `${menu}: ${i.command}`);
    }
  });

  it('declares the language, grammar and entry point', () => {
    const lang = manifest.contributes.languages.find((l) => l.id === LANGUAGE_ID);
    assert.deepEqual(lang?.extensions, ['.caps']);
    const grammar = manifest.contributes.grammars[0];
    assert.equal(grammar?.scopeName, 'source.capsulang');
    const g = JSON.parse(readFileSync(path.join(packageRoot, grammar?.path ?? ''), 'utf8')) as { scopeName: string };
    assert.equal(g.scopeName, 'source.capsulang');
    assert.equal(manifest.main, './dist/extension.js');
    assert.ok(manifest.activationEvents.includes(`onLanguage:${LANGUAGE_ID}`));
    assert.ok(manifest.activationEvents.includes(`workspaceContains:${CAPSULE_CONTRACT_PATTERN}`));
  });

  it('declares every setting the code reads, with sane defaults', () => {
    const props = manifest.contributes.configuration.properties;
    const read = new Set<string>();
    for (const m of sources(path.join(packageRoot, 'src')).matchAll(/\.get<[^>]+>\('([a-zA-Z]+\.[\w.]+)'/g)) {
      read.add(`capsulang.${m[1]}`);
    }
    assert.ok(read.size >= 6, [...read].join(', '));
    for (const k of read) assert.ok(props[k], `${k} is read but not declared`);
    assert.ok(props['capsulang.trace.server'], 'trace level (read by vscode-languageclient)');
    assert.deepEqual(props['capsulang.run.defaultMode']?.enum, [...runModes, 'ask']);
    assert.deepEqual(props['capsulang.compile.targets']?.default, [...compileTargets]);
  });

  it('pins every dependency to an exact version', () => {
    for (const [name, v] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      assert.match(v, /^\d+\.\d+\.\d+$/, `${name}@${v} is not pinned`);
    }
  });
});

describe('language-configuration.json', () => {
  const word = new RegExp(langConfig.wordPattern, 'g');

  it('takes - . : as part of a symbol', () => {
    const text = '(db.write claims_db.archive) (on-error manual_review) contract:NoRemoteShell 30m -7 "x"';
    assert.deepEqual(text.match(word), ['db.write', 'claims_db.archive', 'on-error', 'manual_review', 'contract:NoRemoteShell', '30m', '-7', 'x']);
  });

  it('comments with ; and closes ( and "', () => {
    assert.equal(langConfig.comments.lineComment, ';');
    assert.deepEqual(langConfig.autoClosingPairs.map((p) => p.open + p.close), ['()', '""']);
  });

  it('indents after a line that leaves a list open', () => {
    const inc = new RegExp(langConfig.indentationRules.increaseIndentPattern);
    for (const l of ['(module a.b', '  (state open', '  (state open (on Submit', '(f (g 1) "("', '(machine M ; a comment (']) {
      assert.ok(inc.test(l), l);
    }
    for (const l of ['(x 1)', '(on E (target x))', '; (comment', '(s ")(")', '']) assert.ok(!inc.test(l), l);
    assert.ok(new RegExp(langConfig.indentationRules.decreaseIndentPattern).test('  )'));
  });
});
