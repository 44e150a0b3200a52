// The TextMate grammar: its fixtures (vscode-tmgrammar-test), that the
// committed JSON is what scripts/gen-grammar.mjs generates, and that its
// word lists know every word of the tree-sitter highlighter's lists.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { packageRoot, repoRoot } from '../helpers/caps';

const node = process.execPath;

describe('TextMate grammar', () => {
  it('passes the vscode-tmgrammar-test fixtures in test/grammar', () => {
    const fixtures = readdirSync(path.join(packageRoot, 'test', 'grammar')).filter((f) => f.endsWith('.caps'));
    assert.ok(fixtures.length >= 4, 'the fixtures are there');
    const cli = path.join(packageRoot, 'node_modules', 'vscode-tmgrammar-test', 'dist', 'unit.js');
    const r = spawnSync(node, [cli, '-g', 'syntaxes/capsulang.tmLanguage.json', 'test/grammar/*.caps'], {
      cwd: packageRoot,
      encoding: 'utf8',
      timeout: 60000,
    });
    assert.equal(r.status, 0, `vscode-tmgrammar-test failed:\n${r.stdout}\n${r.stderr}`);
    for (const f of fixtures) assert.match(r.stdout, new RegExp(`✓ test/grammar/${f.replace('.', '\\.')} run successfuly`));
  });

  it('is up to date with scripts/gen-grammar.mjs', () => {
    const r = spawnSync(node, ['scripts/gen-grammar.mjs', '--check'], { cwd: packageRoot, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it("knows every word of tree-sitter-capsulang's highlighter lists", async (t) => {
    const script = path.join(repoRoot, 'tree-sitter-capsulang', 'script', 'gen-highlights.py');
    // The word lists are the tree-sitter queries' source; a tree without
    // them has nothing to compare (a missing tool, python3, still fails in CI).
    if (!existsSync(script)) return t.skip('tree-sitter-capsulang/script/gen-highlights.py is not in this tree');
    const py = spawnSync(
      'python3',
      ['-c', `import io,contextlib,json,runpy\nwith contextlib.redirect_stdout(io.StringIO()): g = runpy.run_path(${JSON.stringify(script)})\nprint(json.dumps({k: g[k] for k in ["CLAUSES","GOVERNANCE","BUILTIN_TYPES","EFFECT_WORDS","SPECIAL_FORMS","BUILTIN_FUNCTIONS","OPERATORS","WORD_OPERATORS"]}))`],
      { encoding: 'utf8' },
    );
    if (py.error || py.status !== 0) {
      if (process.env['CI'] === 'true') assert.fail(`python3 could not read ${script}: ${py.error?.message ?? py.stderr}`);
      return t.skip('python3 or gen-highlights.py not available');
    }
    const ts = JSON.parse(py.stdout) as Record<string, string[]>;
    const g = (await import(path.join(packageRoot, 'scripts', 'gen-grammar.mjs'))) as Record<string, unknown>;
    const ours = (k: string) => new Set(g[k] as string[]);
    const pairs: Array<[string, string]> = [
      ['CLAUSES', 'CLAUSES'],
      ['GOVERNANCE', 'GOVERNANCE'],
      ['BUILTIN_TYPES', 'BUILTIN_TYPES'],
      ['EFFECT_WORDS', 'EFFECT_WORDS'],
      ['SPECIAL_FORMS', 'SPECIAL_FORMS'],
      ['BUILTIN_FUNCTIONS', 'BUILTIN_FUNCTIONS'],
      ['WORD_OPERATORS', 'LOGICAL'],
    ];
    for (const [theirs, mine] of pairs) {
      const missing = (ts[theirs] ?? []).filter((w) => !ours(mine).has(w));
      assert.deepEqual(missing, [], `${theirs} words missing from gen-grammar.mjs ${mine}`);
    }
    const ops = new Set([...(g['ARITHMETIC'] as string[]), ...(g['COMPARISON'] as string[])]);
    assert.deepEqual((ts['OPERATORS'] ?? []).filter((w) => !ops.has(w)), []);
  });
});
