// The client's request and command wiring against the real `caps lsp`,
// over vscode-jsonrpc (as vscode-languageclient talks to it).

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { CodeAction, CodeLens, SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver-protocol';

import {
  classifyError,
  runServerCommand,
  supportedCommands,
  unsupportedMessage,
  type CommandTransport,
} from '../../src/commands';
import { dryRunHints } from '../../src/dryrun';
import { confirmationFor, parseFixTitle } from '../../src/fixes';
import { fetchSymbols, functions, lensesFor, machines, type SymbolLike } from '../../src/lenses';
import { diagramType, highlightPath, pathOf } from '../../src/mermaid';
import { previewPage } from '../../src/preview';
import { renderExplain, renderRun } from '../../src/render';
import {
  allServerCommands,
  compileTargets,
  parseScenario,
  targetExtension,
  ServerCommand,
  type DryRunResult,
  type ServerCommandArgs,
  type ServerCommandName,
} from '../../src/protocol';
import { fileUri, findCaps, packageRoot, repoRoot, startSession, type Session } from '../helpers/caps';

const caps = findCaps();
const skip = caps === undefined ? 'no caps binary (set CAPS or install go)' : false;

const exampleFile = path.join(repoRoot, 'examples', 'insurance_claim.caps');
const exampleUri = fileUri(exampleFile);
const exampleText = readFileSync(exampleFile, 'utf8');
const exampleLines = exampleText.split('\n');

// The Neovim end-to-end fixture: `scord` is an unknown state.
const brokenUri = fileUri(path.join(repoRoot, 'build', 'vscode-test-claims.caps'));
const brokenText = `(module demo.claims
  (capsule "1")
  (machine Claim
    (context (score U32))
    (event Submit (score U32))
    (event Close)
    (initial open)
    (state open
      (on Submit (target scord) (assign (score event.score))))
    (state scored
      (on Close (target closed)))
    (state closed (type final))))
`;

/** One example of arguments per server command. */
const sampleArgs: { [K in ServerCommandName]: ServerCommandArgs[K] } = {
  'capsulang.run': { uri: exampleUri, mode: 'dry-run' },
  'capsulang.dryRun': { uri: exampleUri, machine: 'WarrantyClaim', events: [{ event: 'FileClaim', payload: {} }] },
  'capsulang.compile': { uri: exampleUri, target: 'wasm' },
  'capsulang.visualize': { uri: exampleUri, machine: 'WarrantyClaim', kind: 'machine' },
  'capsulang.explain': { code: 'E_UNKNOWN_STATE' },
  'capsulang.propose': { uri: exampleUri, reason: 'test' },
  'capsulang.assess': { uri: exampleUri, proposal: 'p1' },
  'capsulang.commit': { uri: exampleUri, proposal: 'p1' },
  'capsulang.rollback': { uri: exampleUri },
  'capsulang.previewSurface': { uri: exampleUri, surface: 'claim_intake' },
};

/** A dry-run result shaped like the WarrantyClaim scenario's expectations. */
function scenarioResult(): DryRunResult {
  const file = path.join(repoRoot, 'examples', 'scenarios', 'insurance_claim.WarrantyClaim.json');
  const text = readFileSync(file, 'utf8');
  const scenario = parseScenario(text);
  const raw = JSON.parse(text) as {
    events: Array<{ expect: { state: string; effects?: Array<{ effect: string; target?: string }> } }>;
  };
  let state = 'filed';
  const steps = scenario.events.map((e, i) => {
    const to = raw.events[i]?.expect.state ?? state;
    const step = { event: e.event, from: state, to, accepted: true, effects: raw.events[i]?.expect.effects ?? [] };
    state = to;
    return step;
  });
  return { machine: scenario.machine, initial: 'filed', final: state, steps };
}

/** The text of a single-line range in the example. */
function textAt(r: { start: { line: number; character: number }; end: { character: number } }): string {
  return (exampleLines[r.start.line] ?? '').slice(r.start.character, r.end.character);
}

describe('caps lsp wiring', { skip }, () => {
  let s: Session;
  let symbols: SymbolLike[];

  before(async () => {
    s = await startSession(caps as string);
    await s.open(exampleUri, exampleText);
    symbols = await fetchSymbols(s.transport, exampleUri);
  });

  after(async () => {
    if (s) assert.equal(await s.close(), 0, 'caps lsp exits with 0 after shutdown and exit');
  });

  it('initialize reports the server and the features the client relies on', () => {
    const c = s.initialize.capabilities;
    assert.equal(s.initialize.serverInfo?.name, 'caps lsp');
    assert.ok(c.documentSymbolProvider, 'document symbols (code lenses and dry-run hints use them)');
    assert.ok(c.semanticTokensProvider, 'semantic tokens');
    assert.ok(c.codeActionProvider, 'code actions');
    assert.ok(c.documentFormattingProvider, 'formatting');
  });

  it('gives every semantic token the server sends a TextMate fallback scope in package.json', async () => {
    const provider = s.initialize.capabilities.semanticTokensProvider as { legend: SemanticTokensLegend };
    const legend = provider.legend;
    const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
      contributes: { semanticTokenScopes: Array<{ language: string; scopes: Record<string, string[]> }> };
    };
    const scopes = manifest.contributes.semanticTokenScopes.find((x) => x.language === 'capsulang')?.scopes ?? {};
    for (const t of legend.tokenTypes) assert.ok(scopes[t], `semanticTokenScopes has no entry for "${t}"`);

    const tokens = (await s.connection.sendRequest('textDocument/semanticTokens/full', {
      textDocument: { uri: exampleUri },
    })) as SemanticTokens;
    assert.ok(tokens.data.length > 0);
    const seen = new Set<string>();
    for (let i = 0; i < tokens.data.length; i += 5) {
      const type = legend.tokenTypes[tokens.data[i + 3] ?? -1];
      assert.ok(type, `token type index ${tokens.data[i + 3]} is outside the legend`);
      const mods = legend.tokenModifiers.filter((_, bit) => ((tokens.data[i + 4] ?? 0) >> bit) & 1);
      seen.add(type);
      // true/false/none come as macro.defaultLibrary: they must look like constants.
      if (type === 'macro') assert.ok(scopes['macro.defaultLibrary']?.[0]?.startsWith('constant.language'));
      if (type === 'function' && mods.includes('defaultLibrary')) {
        assert.deepEqual(scopes['function.defaultLibrary'], ['support.function.effect.capsulang']);
      }
    }
    for (const t of ['keyword', 'class', 'enumMember', 'event', 'function', 'string', 'number', 'comment']) {
      assert.ok(seen.has(t), `the example has ${t} tokens`);
    }
  });

  it('sends the advertised workspace commands and reports the others as unsupported without a request', async () => {
    const advertised = new Set(s.initialize.capabilities.executeCommandProvider?.commands ?? []);
    assert.deepEqual(await supportedCommands(s.transport), advertised);
    const sent: string[] = [];
    const counting: CommandTransport = {
      ...s.transport,
      sendRequest: (method, params) => {
        sent.push(method);
        return s.transport.sendRequest(method, params);
      },
    };
    for (const name of allServerCommands) {
      sent.length = 0;
      const o = await runServerCommand(counting, name, sampleArgs[name]);
      if (advertised.has(name)) {
        // The governed commands act on a real workspace: with sample
        // arguments the server may rightly refuse (nothing to propose, no
        // such proposal); the wiring is one request and a mapped answer.
        const governed = ['capsulang.propose', 'capsulang.assess', 'capsulang.commit', 'capsulang.rollback'].includes(name);
        if (governed) assert.ok(o.kind === 'ok' || o.kind === 'failed', `${name}: ${JSON.stringify(o)}`);
        else assert.equal(o.kind, 'ok', `${name}: ${JSON.stringify(o)}`);
        assert.deepEqual(sent, ['workspace/executeCommand']);
        continue;
      }
      assert.equal(o.kind, 'unsupported', name);
      const message = o.kind === 'unsupported' ? o.message : '';
      assert.ok(message.includes('not supported by this server version'), message);
      assert.ok(message.includes(`caps lsp ${s.initialize.serverInfo?.version ?? ''}`.trim()), message);
      assert.ok(message.includes(name), message);
      assert.deepEqual(sent, [], `${name}: no request is sent`);
    }
  });

  it('capsulang.run: runs the examples and the client renders the report', async (t) => {
    if (!(await supportedCommands(s.transport)).has(ServerCommand.run)) return t.skip('the server has no capsulang.run');
    const o = await runServerCommand(s.transport, ServerCommand.run, { uri: exampleUri, mode: 'dry-run' });
    assert.equal(o.kind, 'ok');
    const r = o.kind === 'ok' ? o.value : undefined;
    assert.ok(r && r.passed >= 2 && r.failed === 0, JSON.stringify(r));
    assert.deepEqual(
      r?.examples.map((e) => e.call),
      ['(is_suspicious 12)', '(is_suspicious 70)'],
    );
    const report = renderRun(r as NonNullable<typeof r>, 'examples/insurance_claim.caps', 'dry-run');
    assert.equal(report[1], 'PASS examples/insurance_claim.caps:50:5: (is_suspicious 12)');
    assert.equal(report[report.length - 1], `${r?.passed} passed, 0 failed`);
  });

  it('capsulang.explain: the explanation renders as markdown', async (t) => {
    if (!(await supportedCommands(s.transport)).has(ServerCommand.explain)) return t.skip('the server has no capsulang.explain');
    const o = await runServerCommand(s.transport, ServerCommand.explain, { code: 'E_UNKNOWN_STATE' });
    assert.equal(o.kind, 'ok');
    const md = o.kind === 'ok' ? renderExplain(o.value) : '';
    assert.match(md, /^# E_UNKNOWN_STATE: /);
    assert.match(md, /## How to fix it/);
    const bad = await runServerCommand(s.transport, ServerCommand.explain, { code: 'E_NO_SUCH_CODE' });
    assert.equal(bad.kind, 'failed');
    assert.match(bad.kind === 'failed' ? bad.message : '', /Explain diagnostic code failed: .*E_NO_SUCH_CODE/);
  });

  it('capsulang.visualize: the Mermaid diagrams take the dry-run path highlight', async (t) => {
    if (!(await supportedCommands(s.transport)).has(ServerCommand.visualize)) return t.skip('the server has no capsulang.visualize');
    const path0 = pathOf(scenarioResult());
    const states = await runServerCommand(s.transport, ServerCommand.visualize, { uri: exampleUri, machine: 'WarrantyClaim', kind: 'machine' });
    assert.equal(states.kind, 'ok');
    const diagrams = highlightPath(states.kind === 'ok' ? states.value.mermaid : '', path0, 'WarrantyClaim');
    assert.equal(diagrams.length, 1);
    assert.equal(diagrams[0]?.title, 'WarrantyClaim');
    assert.equal(diagramType(diagrams[0]?.source ?? ''), 'state');
    assert.match(diagrams[0]?.source ?? '', /\n    class filed,under_assessment,manual_review,awaiting_adjuster capsVisited\n    class settled capsCurrent\n$/);

    const effects = await runServerCommand(s.transport, ServerCommand.visualize, { uri: exampleUri, kind: 'effects' });
    assert.equal(effects.kind, 'ok');
    const eff = highlightPath(effects.kind === 'ok' ? effects.value.mermaid : '', path0, 'WarrantyClaim');
    assert.equal(diagramType(eff[0]?.source ?? ''), 'flowchart');
    assert.match(eff[0]?.source ?? '', /class t_filed_FileClaim,[^ ]*t_awaiting_adjuster_AdjusterApprove[^ ]* capsVisited/);
  });

  it('capsulang.compile: text and binary artefacts and what was left out', async (t) => {
    if (!(await supportedCommands(s.transport)).has(ServerCommand.compile)) return t.skip('the server has no capsulang.compile');
    const wat = await runServerCommand(s.transport, ServerCommand.compile, { uri: exampleUri, target: 'wat' });
    assert.equal(wat.kind, 'ok');
    const w = wat.kind === 'ok' ? wat.value : undefined;
    assert.equal(w?.target, 'wat');
    assert.match(w?.artifacts[0]?.text ?? '', /\(module \$examples\.insurance_claim/);
    assert.ok(w?.unsupported.some((u) => u.declaration === 'archive_claim' && u.range !== undefined));
    const wasm = await runServerCommand(s.transport, ServerCommand.compile, { uri: exampleUri, target: 'wasm' });
    const b64 = wasm.kind === 'ok' ? wasm.value.artifacts[0]?.base64 : undefined;
    assert.ok(b64, 'binary artefacts come base64-encoded');
    assert.deepEqual([...Buffer.from(b64, 'base64').subarray(0, 4)], [0, 0x61, 0x73, 0x6d], 'a Wasm module');
    for (const target of compileTargets) assert.ok(targetExtension[target], `an extension for ${target}`);
  });

  it('capsulang.previewSurface: a lens above each surface renders it with the last dry run of its machine', async (t) => {
    if (!(await supportedCommands(s.transport)).has(ServerCommand.previewSurface)) return t.skip('the server has no capsulang.previewSurface');
    const lenses = (await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: exampleUri } })) as CodeLens[];
    const previews = lenses.filter((l) => l.command?.command === ServerCommand.previewSurface);
    assert.deepEqual(
      previews.map((l) => [textAt(l.range), l.command?.title, l.command?.arguments]),
      [
        ['claim_intake', '◧ Preview surface', [{ uri: exampleUri, surface: 'claim_intake' }]],
        ['adjuster_desk', '◧ Preview surface', [{ uri: exampleUri, surface: 'adjuster_desk' }]],
      ],
    );

    // What the lens runs (the extension intercepts it and opens the page).
    const args = previews[1]?.command?.arguments?.[0] as { uri: string; surface: string };
    const before = await runServerCommand(s.transport, ServerCommand.previewSurface, args);
    assert.equal(before.kind, 'ok', JSON.stringify(before));
    const d = before.kind === 'ok' ? before.value : undefined;
    assert.ok(d);
    // The sample dry-run of the wiring test above may have run: either way
    // the data is a full data model of WarrantyClaim.
    assert.deepEqual(Object.keys(d.data), ['claim_id', 'policy_id', 'claimed_cents', 'assessed_cents', 'fraud_score', 'assessments', 'settled_cents', 'denial_reason', 'state']);

    const dry = await runServerCommand(s.transport, ServerCommand.dryRun, {
      uri: exampleUri,
      machine: 'WarrantyClaim',
      events: [{ event: 'FileClaim', payload: { claim_id: 41, policy_id: 7, amount_cents: 125000 } }],
    });
    assert.equal(dry.kind, 'ok', JSON.stringify(dry));
    const after = await runServerCommand(s.transport, ServerCommand.previewSurface, args);
    const r = after.kind === 'ok' ? after.value : undefined;
    assert.ok(r, JSON.stringify(after));
    assert.equal(r.surface, 'adjuster_desk');
    assert.equal(r.title, 'Adjuster desk');
    assert.equal(r.machine, 'WarrantyClaim');
    assert.equal(r.source, 'dry-run');
    assert.equal(r.state, 'under_assessment');
    assert.deepEqual(r.data, {
      claim_id: '41', policy_id: '7', claimed_cents: '125000', assessed_cents: '0', fraud_score: 0,
      assessments: 1, settled_cents: '0', denial_reason: '', state: 'under_assessment',
    });
    assert.deepEqual(r.messages.map((m) => Object.keys(m)), [['version', 'createSurface'], ['version', 'updateComponents'], ['version', 'updateDataModel']]);
    assert.deepEqual(r.messages[2], { version: 'v0.9', updateDataModel: { surfaceId: 'adjuster_desk', path: '/', value: r.data } });
    assert.ok(r.html.startsWith('<section data-a2ui-surface="adjuster_desk" data-catalog="https://a2ui.org/specification/v0_9/basic_catalog.json"><h2>Adjuster desk</h2><dl><dt>claim_id</dt><dd data-path="/claim_id">41</dd>'), r.html);
    assert.ok(r.html.includes('<dt>state</dt><dd data-path="/state">under_assessment</dd></dl>'), r.html);
    assert.ok(r.html.endsWith('<form data-event="AdjusterDeny" data-requires-user-confirmation="false"><label>reason<input type="text" name="reason" value=""/></label><button type="submit">AdjusterDeny</button></form></section>'), r.html);

    // The page the webview shows.
    const page = previewPage(r, 'n0nce');
    assert.ok(page.includes(`<div class="surface" id="surface">${r.html}</div>`));
    assert.ok(page.includes('<p class="provenance" id="provenance">Data from the last dry run of WarrantyClaim, in state under_assessment.</p>'));
    assert.ok(page.includes('<summary>A2UI messages (3)</summary>'));

    const unknown = await runServerCommand(s.transport, ServerCommand.previewSurface, { uri: exampleUri, surface: 'adjuster_dsk' });
    assert.deepEqual(unknown, {
      kind: 'failed',
      message: 'Preview surface failed: module examples.insurance_claim has no surface `adjuster_dsk`; did you mean `adjuster_desk`?',
      code: -32602,
    });
  });

  it("maps the server's answer to an unknown command to 'unsupported'", async () => {
    const err = await s.connection
      .sendRequest('workspace/executeCommand', { command: 'capsulang.noSuchCommand', arguments: [{}] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err, 'the server rejects an unknown command');
    const o = classifyError(ServerCommand.dryRun, err, s.initialize.serverInfo);
    assert.deepEqual(o, { kind: 'unsupported', message: unsupportedMessage(ServerCommand.dryRun, s.initialize.serverInfo) });
  });

  it('builds code lenses on the declarations from the real document symbols', async () => {
    assert.deepEqual(machines(symbols).map((m) => m.name), ['WarrantyClaim']);
    assert.deepEqual(functions(symbols).map((f) => f.name), ['is_suspicious', 'archive_claim']);

    const every = new Set<string>(allServerCommands);
    const all = lensesFor(exampleUri, symbols, every, { showUnsupported: false });
    const byName = (lenses: ReturnType<typeof lensesFor>) => {
      const m = new Map<string, string[]>();
      for (const l of lenses) m.set(textAt(l.range), [...(m.get(textAt(l.range)) ?? []), l.serverCommand]);
      return Object.fromEntries(m);
    };
    assert.deepEqual(byName(all), {
      'examples.insurance_claim': ['capsulang.run', 'capsulang.compile', 'capsulang.propose', 'capsulang.assess', 'capsulang.commit'],
      is_suspicious: ['capsulang.run'],
      archive_claim: ['capsulang.run'],
      WarrantyClaim: ['capsulang.dryRun', 'capsulang.visualize'],
    });
    assert.ok(all.every((l) => l.supported && l.arguments[0].uri === exampleUri));
    assert.deepEqual(all.find((l) => l.serverCommand === ServerCommand.dryRun)?.arguments, [{ uri: exampleUri, machine: 'WarrantyClaim' }]);

    // With the server's own lenses, the per-function ones are the server's.
    if (s.initialize.capabilities.codeLensProvider) {
      const serverLenses = (await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: exampleUri } })) as CodeLens[];
      assert.ok(serverLenses.some((l) => l.command?.command === ServerCommand.run && textAt(l.range) === 'is_suspicious'));
      const combined = lensesFor(exampleUri, symbols, every, { showUnsupported: false, serverLenses });
      assert.deepEqual(Object.keys(byName(combined)), ['examples.insurance_claim', 'WarrantyClaim']);
    }

    // Commands the server lacks get no lens, unless asked to show them marked.
    const supported = await supportedCommands(s.transport);
    const shown = lensesFor(exampleUri, symbols, supported, { showUnsupported: false });
    assert.ok(shown.every((l) => supported.has(l.serverCommand)));
    const marked = lensesFor(exampleUri, symbols, supported, { showUnsupported: true });
    assert.equal(marked.length, all.length);
    for (const l of marked) assert.equal(l.title.endsWith('(unsupported)'), !supported.has(l.serverCommand));
  });

  it('places dry-run results on the transitions a scenario takes', () => {
    const result = scenarioResult();
    const hints = dryRunHints(symbols, result);
    assert.equal(hints.reduce((n, h) => n + h.steps.length, 0), result.steps.length, 'every step is placed');
    for (const h of hints) {
      const line = exampleLines[h.line] ?? '';
      for (const n of h.steps) {
        const step = result.steps[n - 1];
        assert.ok(step && line.includes(`(on ${step.event}`), `step ${n} (${step?.event}) is drawn on "${line.trim()}"`);
        assert.ok(h.text.includes(`#${n} ${step.event} → ${step.to}`));
      }
    }
    const path0 = pathOf(result);
    assert.deepEqual(path0.visited.slice(0, 3), ['filed', 'under_assessment', 'manual_review']);
    assert.equal(path0.current, 'settled');
  });

  it('reads the safety of the quick fixes and finds the code and documentation of diagnostics', async () => {
    await s.open(brokenUri, brokenText);
    const published = await s.waitForDiagnostics(brokenUri);
    const d = published.diagnostics.find((x) => x.code === 'E_UNKNOWN_STATE');
    assert.ok(d, 'E_UNKNOWN_STATE is reported');
    assert.ok(d.codeDescription?.href.includes('E_UNKNOWN_STATE') || d.codeDescription?.href, 'it links to its documentation');
    assert.equal(d.source, 'capsulang');

    const actions = (await s.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: brokenUri },
      range: d.range,
      context: { diagnostics: [d], only: ['quickfix'] },
    })) as CodeAction[];
    assert.ok(actions.length > 0);
    for (const a of actions) {
      const parsed = parseFixTitle(a.title);
      assert.ok(parsed.safety, `"${a.title}" carries a safety tag`);
      if (parsed.safety !== 'expands-authority') assert.equal(confirmationFor(a.title), undefined);
    }
    const preferred = actions.find((a) => a.isPreferred);
    assert.deepEqual(parseFixTitle(preferred?.title ?? ''), { label: 'Change `scord` to `scored`', safety: 'safe' });
  });

  it('keeps the server copy in step with incremental edits (capsulang/debug.documentText)', async () => {
    await s.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: brokenUri, version: 2 },
      contentChanges: [{ range: { start: { line: 8, character: 25 }, end: { line: 8, character: 30 } }, text: 'scored' }],
    });
    const r = (await s.connection.sendRequest('capsulang/debug.documentText', { textDocument: { uri: brokenUri } })) as {
      version: number;
      text: string;
    };
    assert.equal(r.version, 2);
    assert.equal(r.text, brokenText.replace('(target scord)', '(target scored)'));
  });

  it('asks the client to watch .caps files (dynamic registration, answered like vscode-languageclient)', async () => {
    for (let i = 0; i < 50 && !s.serverRequests.includes('client/registerCapability'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(s.serverRequests.includes('client/registerCapability'));
  });
});
