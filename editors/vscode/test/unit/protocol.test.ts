import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { classifyError, executeCommandParams, unsupportedMessage } from '../../src/commands';
import { escapeHtml, previewPage, previewProvenance } from '../../src/preview';
import { parseResult, parseScenario, ResultShapeError, ServerCommand } from '../../src/protocol';
import { repoRoot } from '../helpers/caps';

describe('result validation', () => {
  it('fills in what a dry-run result may leave out', () => {
    const r = parseResult[ServerCommand.dryRun]({
      machine: 'M',
      steps: [
        { event: 'A', from: 's0', to: 's1', effects: ['db.write'] },
        { event: 'B', from: 's1', to: 's1', accepted: false, error: 'guard failed', range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } } },
      ],
    });
    assert.equal(r.initial, 's0');
    assert.equal(r.final, 's1');
    assert.deepEqual(r.steps[0]?.effects, [{ effect: 'db.write' }]);
    assert.equal(r.steps[0]?.accepted, true);
    assert.equal(r.steps[1]?.error, 'guard failed');
    assert.deepEqual(r.steps[1]?.range?.start, { line: 3, character: 4 });
  });

  it("reads steps shaped like runtime/scenario's results", () => {
    const r = parseResult[ServerCommand.dryRun]({
      machine: 'M',
      initial: 's0',
      steps: [
        { index: 1, input: 'A', state: 's1', ok: true, effects: ['db.write log.x'] },
        { index: 2, input: 'B', state: 's1', ok: false, error: 'E_GUARD: no transition' },
      ],
    });
    assert.deepEqual(
      r.steps.map((s) => [s.event, s.from, s.to, s.accepted]),
      [
        ['A', 's0', 's1', true],
        ['B', 's1', 's1', false],
      ],
    );
    assert.equal(r.final, 's1');
  });

  it('names the field that has the wrong shape', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'the result should be an object'],
      [{ steps: [] }, 'machine should be a string'],
      [{ machine: 'M', steps: {} }, 'steps should be an array'],
      [{ machine: 'M', steps: [{ event: 'A', from: 's', to: 's', effects: [3] }] }, 'steps[0].effects[0] should be an object'],
      [{ machine: 'M', steps: [{ event: 'A', from: 's', to: 's', range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } } }] }, 'steps[0].range.start should be a position with non-negative line and character'],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseResult[ServerCommand.dryRun](value),
        (e: unknown) => e instanceof ResultShapeError && e.message === `capsulang.dryRun returned an unexpected result: ${message}`,
        message,
      );
    }
  });

  it('reads assessments, refusing an unknown verdict', () => {
    const a = parseResult[ServerCommand.assess]({ proposal: 'p', verdict: 'pass', findings: [{ message: 'ok' }], parentText: 'a', candidateText: 'b' });
    assert.deepEqual(a, { proposal: 'p', verdict: 'pass', findings: [{ severity: 'info', message: 'ok' }], parentText: 'a', candidateText: 'b' });
    assert.equal(parseResult[ServerCommand.assess]({ proposal: 'p', verdict: 'incomplete', findings: [] }).verdict, 'incomplete');
    assert.throws(() => parseResult[ServerCommand.assess]({ proposal: 'p', verdict: 'maybe' }), /verdict should be "pass", "needs-approval", "warn", "incomplete" or "fail"/);
  });

  it('accepts a bare string as a diagram, and refuses an artefact with no content', () => {
    assert.deepEqual(parseResult[ServerCommand.visualize]('stateDiagram-v2\n'), { mermaid: 'stateDiagram-v2\n' });
    assert.throws(() => parseResult[ServerCommand.compile]({ artifacts: [{ name: 'x' }] }), /artifacts\[0\] should be an artefact with a text, base64 or uri/);
  });

  it('reads every shipped scenario file', () => {
    const dir = path.join(repoRoot, 'examples', 'scenarios');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 0);
    for (const f of files) {
      const s = parseScenario(readFileSync(path.join(dir, f), 'utf8'));
      assert.ok(s.machine && s.events.length > 0, f);
      // MODULE.MACHINE.json, or the spec's snake_case names such as
      // change_approval_happy_path.json for machine ChangeApproval.
      const named = f.includes(s.machine) || f.replace(/_/g, '').toLowerCase().includes(s.machine.toLowerCase());
      assert.ok(named, `${f} names machine ${s.machine}`);
    }
    assert.throws(() => parseScenario('{"machine": "M", "events": [{"payload": {}}]}'), /^Error: events\[0\]\.event should be a string$/);
    const timed = parseScenario('{"machine": "M", "events": [{"event": "A"}, {"advance": "47h"}, {"cancel": {}}]}');
    assert.deepEqual(timed, { machine: 'M', events: [{ event: 'A', payload: {} }], steps: 3 });
    assert.throws(() => parseScenario('nope'), /not JSON/);
  });
});

describe('commands', () => {
  it('sends one argument object', () => {
    assert.deepEqual(executeCommandParams(ServerCommand.explain, { code: 'E_PARSE' }), { command: 'capsulang.explain', arguments: [{ code: 'E_PARSE' }] });
  });

  it('classifies errors', () => {
    const info = { name: 'caps lsp', version: '1.2.3' };
    assert.equal(classifyError(ServerCommand.run, { code: -32601, message: 'x' }, info).kind, 'unsupported');
    assert.equal(classifyError(ServerCommand.run, { code: -32602, message: 'unknown command capsulang.run' }, info).kind, 'unsupported');
    assert.equal(classifyError(ServerCommand.run, { code: -32002, message: 'not initialized' }, info).kind, 'notRunning');
    assert.equal(classifyError(ServerCommand.run, new Error('Connection is disposed.'), info).kind, 'notRunning');
    assert.deepEqual(classifyError(ServerCommand.run, { code: -32803, message: 'the file has errors; fix them before running' }, info), {
      kind: 'failed',
      message: 'Run examples failed: the file has errors; fix them before running',
      code: -32803,
    });
    assert.equal(
      unsupportedMessage(ServerCommand.dryRun, info),
      '"Dry-run machine" is not supported by this server version (caps lsp 1.2.3 does not provide capsulang.dryRun). Update caps to a version that does.',
    );
  });
});

describe('surface preview', () => {
  const result = {
    surface: 'lamp_ui',
    title: 'Lamp <1>',
    machine: 'Lamp',
    source: 'default' as const,
    data: { on: false, level: '0', state: 'off' },
    messages: [{ version: 'v0.9', updateDataModel: { surfaceId: 'lamp_ui', path: '/', value: { note: '</pre><script>' } } }],
    html: '<section data-a2ui-surface="lamp_ui"><h2>Lamp &lt;1&gt;</h2></section>',
  };

  it('reads the result and names a wrong field', () => {
    assert.deepEqual(parseResult[ServerCommand.previewSurface]({ ...result, note: null }), result);
    const cases: Array<[unknown, string]> = [
      [{ ...result, source: 'live' }, 'source should be "dry-run" or "default"'],
      [{ ...result, html: undefined }, 'html should be a string'],
      [{ ...result, data: [] }, 'data should be an object'],
      [{ ...result, messages: [1] }, 'messages[0] should be an object'],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseResult[ServerCommand.previewSurface](value),
        (e: unknown) => e instanceof ResultShapeError && e.message === `capsulang.previewSurface returned an unexpected result: ${message}`,
        message,
      );
    }
  });

  it('says where the data comes from', () => {
    assert.equal(previewProvenance(result), 'Default data (zero values, initial state): Lamp has not been dry-run yet. Dry-run it to preview its state.');
    assert.equal(previewProvenance({ ...result, source: 'dry-run', state: 'lit' }), 'Data from the last dry run of Lamp, in state lit.');
    assert.equal(previewProvenance({ ...result, note: 'the last dry run of Lamp does not fit' }), 'Default data: the last dry run of Lamp does not fit.');
    const { machine: _, ...unbound } = result;
    assert.equal(previewProvenance(unbound), 'Default data (zero values): the surface is bound to no machine.');
  });

  it('builds an inert page: no script, no form submission, the messages escaped', () => {
    const page = previewPage(result, 'abc');
    assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-abc'; form-action 'none'">`));
    assert.ok(page.includes('<title>Lamp &lt;1&gt;</title>'));
    assert.ok(page.includes(`<div class="surface" id="surface">${result.html}</div>`));
    assert.ok(page.includes('<pre>{&quot;version&quot;:&quot;v0.9&quot;,&quot;updateDataModel&quot;:{&quot;surfaceId&quot;:&quot;lamp_ui&quot;,&quot;path&quot;:&quot;/&quot;,&quot;value&quot;:{&quot;note&quot;:&quot;&lt;/pre&gt;&lt;script&gt;&quot;}}}</pre>'));
    assert.ok(!/<script/i.test(page), 'no script element');
    assert.equal(escapeHtml(`a<b>&"c'`), 'a&lt;b&gt;&amp;&quot;c&#39;');
  });
});
