import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { dryRunHints, dryRunSummary, findTransition } from '../../src/dryrun';
import { confirmationFor, parseFixTitle } from '../../src/fixes';
import type { SymbolLike } from '../../src/lenses';
import { diagramType, highlightDiagram, highlightPath, mermaidId, pathOf, splitDiagrams } from '../../src/mermaid';
import type { DryRunResult } from '../../src/protocol';
import { commitQuestion, renderAssessment, renderExplain, statusText } from '../../src/render';
import { resolveServerPath } from '../../src/serverPath';

const r = (line: number, a = 0, b = 1) => ({ start: { line, character: a }, end: { line, character: b } });
const sym = (name: string, detail: string, line: number, children?: SymbolLike[]): SymbolLike => ({
  name,
  detail,
  kind: 1,
  range: r(line, 0, 40),
  selectionRange: r(line, 2, 2 + name.length),
  children,
});

// module > machine Door > states closed (on Open), open (on Close)
const symbols: SymbolLike[] = [
  sym('demo', 'module', 0, [
    sym('Door', 'machine', 1, [
      sym('Open', 'event', 2),
      sym('Close', 'event', 3),
      sym('closed', 'state', 5, [sym('on Open', '→ open', 6)]),
      sym('open', 'state', 7, [sym('on Close', '→ closed', 8)]),
    ]),
  ]),
];

const run: DryRunResult = {
  machine: 'Door',
  initial: 'closed',
  final: 'closed',
  steps: [
    { event: 'Open', from: 'closed', to: 'open', accepted: true, effects: [{ effect: 'db.write', target: 'log.doors' }] },
    { event: 'Open', from: 'open', to: 'open', accepted: false, effects: [] },
    { event: 'Close', from: 'open', to: 'closed', accepted: true, effects: [] },
  ],
};

describe('dry-run hints', () => {
  it('finds transitions through the symbols', () => {
    assert.deepEqual(findTransition(symbols, 'Door', 'closed', 'Open'), r(6, 0, 40));
    assert.equal(findTransition(symbols, 'Door', 'closed', 'Close'), undefined);
    assert.equal(findTransition(symbols, 'Nope', 'closed', 'Open'), undefined);
  });

  it('draws each step at its transition, a refused one at its state', () => {
    const hints = dryRunHints(symbols, run);
    assert.deepEqual(
      hints.map((h) => [h.line, h.text, h.ok, h.steps]),
      [
        [6, '#1 Open → open · 1 effect', true, [1]],
        [7, '#2 Open not accepted in open', false, [2]],
        [8, '#3 Close → closed', true, [3]],
      ],
    );
    assert.match(hints[0]?.hover ?? '', /effects \(not executed\): db\.write log\.doors/);
    assert.equal(dryRunSummary(run), 'Door: 3 events, closed → closed, 1 effect intent(s) planned, 1 not accepted.');
  });

  it('prefers the range the server sends', () => {
    const withRange: DryRunResult = { ...run, steps: [{ ...run.steps[0]!, range: r(42) }] };
    assert.equal(dryRunHints(symbols, withRange)[0]?.line, 42);
  });
});

describe('mermaid', () => {
  const two = '---\ntitle: Door\n---\nstateDiagram-v2\n    [*] --> closed\n    closed --> open : Open\n\n---\ntitle: Lock\n---\nstateDiagram-v2\n    [*] --> open\n';

  it('splits the diagrams of several machines', () => {
    const d = splitDiagrams(two);
    assert.deepEqual(d.map((x) => x.title), ['Door', 'Lock']);
    assert.equal(diagramType(d[0]?.source ?? ''), 'state');
    assert.deepEqual(splitDiagrams('flowchart LR\n  a --> b\n').map((x) => x.title), [undefined]);
  });

  it("highlights the path only in the dry-run machine's diagram", () => {
    const out = highlightPath(two, pathOf(run), 'Door');
    assert.match(out[0]?.source ?? '', /class open capsVisited\n    class closed capsCurrent\n$/);
    assert.doesNotMatch(out[1]?.source ?? '', /capsVisited/);
  });

  it('highlights taken transitions in an effect graph and never invents nodes', () => {
    const flow = '---\ntitle: Door effects\n---\nflowchart LR\n    t_closed_Open["closed --Open--> open"]\n';
    assert.match(highlightDiagram(flow, pathOf(run)), /class t_closed_Open capsVisited/);
    assert.equal(highlightDiagram('stateDiagram-v2\n  x --> y\n', pathOf(run)), 'stateDiagram-v2\n  x --> y\n');
    assert.equal(mermaidId('on-error.x'), 'on_error_x');
    assert.equal(highlightDiagram('pie\n  "a" : 1\n', pathOf(run)), 'pie\n  "a" : 1\n');
  });
});

describe('quick-fix safety', () => {
  it('reads the tag and asks before widening authority', () => {
    assert.deepEqual(parseFixTitle('Change `scord` to `scored` [safe]'), { label: 'Change `scord` to `scored`', safety: 'safe' });
    assert.deepEqual(parseFixTitle('Add db.write to the profile [expands-authority]'), { label: 'Add db.write to the profile', safety: 'expands-authority' });
    assert.deepEqual(parseFixTitle('Format'), { label: 'Format', safety: undefined });
    assert.equal(confirmationFor('Rename [review]'), undefined);
    assert.match(confirmationFor('Add db.write to the profile [expands-authority]') ?? '', /widens what the capsule is allowed to do: Add db\.write/);
  });
});

describe('rendering', () => {
  it('explains a code', () => {
    const md = renderExplain({ code: 'E_X', title: 'Bad', summary: 'S.', example: '(x)', fix: 'F.', fixed: '(y)', url: 'https://d/e_x' });
    assert.equal(md, '# E_X: Bad\n\nS.\n\n## Example\n\n```lisp\n(x)\n```\n\n## How to fix it\n\nF.\n\n## Fixed\n\n```lisp\n(y)\n```\n\n[Documentation](https://d/e_x)\n');
  });

  it('renders an assessment and the commit question', () => {
    const a = { proposal: 'p1', verdict: 'warn' as const, findings: [{ severity: 'warning', message: 'gains mcp.call', code: 'W_X', range: r(4) }], authority: { added: ['mcp.call'], removed: [] } };
    const md = renderAssessment(a, 'a.caps');
    assert.match(md, /\*\*Verdict:\*\* ⚠️ pass with warnings/);
    assert.match(md, /- \*\*warning\*\* `W_X` \(line 5\): gains mcp\.call/);
    assert.match(md, /Gained:\n\n- `mcp\.call`/);
    assert.equal(commitQuestion(a), 'Commit proposal p1? The assessment is ⚠️ pass with warnings with 1 finding(s). It gains authority: mcp.call.');
  });

  it('renders an incomplete assessment', () => {
    const a = { proposal: 'p2', verdict: 'incomplete' as const, findings: [{ severity: 'error', message: 'gate Ship: requires eval-suite S passed: eval-suite S is incomplete', code: 'gate' }] };
    assert.match(renderAssessment(a, 'a.caps'), /\*\*Verdict:\*\* 🧾 incomplete: evidence missing/);
  });

  it('describes the server state', () => {
    assert.match(statusText('running', { name: 'caps lsp', version: '0.1.0' }).tooltip, /caps lsp 0\.1\.0 is running/);
    assert.match(statusText('missing').text, /warning/);
  });
});

describe('server path', () => {
  const base = { env: { PATH: '/usr/bin:/opt/caps/bin' }, platform: 'linux' as const, home: '/home/ada', workspaceFolder: '/work/proj' };
  const exists = (...ok: string[]) => (p: string) => ok.includes(p);

  it('looks a bare name up on PATH', () => {
    assert.deepEqual(resolveServerPath({ ...base, setting: 'caps', isExecutable: exists('/opt/caps/bin/caps') }), { kind: 'found', path: '/opt/caps/bin/caps' });
    assert.deepEqual(resolveServerPath({ ...base, setting: '', isExecutable: exists('/usr/bin/caps') }), { kind: 'found', path: '/usr/bin/caps' });
  });

  it('resolves relative paths against the workspace and ~ against home', () => {
    assert.deepEqual(resolveServerPath({ ...base, setting: 'build/caps', isExecutable: exists('/work/proj/build/caps') }), { kind: 'found', path: '/work/proj/build/caps' });
    assert.deepEqual(resolveServerPath({ ...base, setting: '~/bin/caps', isExecutable: exists('/home/ada/bin/caps') }), { kind: 'found', path: '/home/ada/bin/caps' });
  });

  it('says clearly what is missing', () => {
    const onPath = resolveServerPath({ ...base, setting: 'caps', isExecutable: exists() });
    assert.equal(onPath.kind, 'missing');
    assert.match(onPath.kind === 'missing' ? onPath.message : '', /binary "caps" was not found on PATH\. Install caps .* or set "capsulang\.server\.path"/);
    const at = resolveServerPath({ ...base, setting: '/nope/caps', isExecutable: exists() });
    assert.match(at.kind === 'missing' ? at.message : '', /not found at \/nope\/caps/);
    const rel = resolveServerPath({ ...base, workspaceFolder: undefined, setting: 'build/caps', isExecutable: exists() });
    assert.match(rel.kind === 'missing' ? rel.message : '', /is relative, but no folder is open/);
  });

  it('uses PATHEXT on Windows', () => {
    const win = resolveServerPath({
      setting: 'caps',
      env: { Path: 'C:\\tools;C:\\caps', PATHEXT: '.COM;.EXE' },
      platform: 'win32',
      home: 'C:\\Users\\ada',
      workspaceFolder: undefined,
      isExecutable: exists(path.win32.join('C:\\caps', 'caps.EXE')),
    });
    assert.deepEqual(win, { kind: 'found', path: 'C:\\caps\\caps.EXE' });
  });
});
