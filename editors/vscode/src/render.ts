// Text for people: explanations, assessments, run reports. Pure.

import { describeServer, type ServerInfo } from './commands';
import type { AssessResult, ExplainResult, RunResult } from './protocol';

const fence = (text: string, lang = 'lisp') => ['```' + lang, text.replace(/\s+$/, ''), '```'].join('\n');

export function renderExplain(e: ExplainResult): string {
  const out = [`# ${e.code}${e.title ? `: ${e.title}` : ''}`];
  if (e.severity) out.push(`*${e.severity}*`);
  if (e.summary) out.push(e.summary);
  if (e.example) out.push('## Example', fence(e.example));
  if (e.fix) out.push('## How to fix it', e.fix);
  if (e.fixed) out.push('## Fixed', fence(e.fixed));
  if (e.url) out.push(`[Documentation](${e.url})`);
  return out.join('\n\n') + '\n';
}

const verdictText: Record<AssessResult['verdict'], string> = {
  pass: '✅ pass',
  'needs-approval': '🔐 needs approval',
  warn: '⚠️ pass with warnings',
  incomplete: '🧾 incomplete: evidence missing',
  fail: '❌ fail',
};

export function renderAssessment(a: AssessResult, file: string): string {
  const out = [`# Assessment of proposal ${a.proposal}`, `**File:** ${file}  `, `**Verdict:** ${verdictText[a.verdict]}`];
  if (a.summary) out.push(a.summary);
  if (a.authority && (a.authority.added.length > 0 || a.authority.removed.length > 0)) {
    out.push('## Authority');
    if (a.authority.added.length > 0) out.push('Gained:\n\n' + a.authority.added.map((x) => `- \`${x}\``).join('\n'));
    if (a.authority.removed.length > 0) out.push('Given up:\n\n' + a.authority.removed.map((x) => `- \`${x}\``).join('\n'));
  }
  out.push('## Findings');
  if (a.findings.length === 0) out.push('None.');
  else {
    out.push(
      a.findings
        .map((f) => {
          const where = f.range ? ` (line ${f.range.start.line + 1})` : '';
          const code = f.code ? ` \`${f.code}\`` : '';
          return `- **${f.severity}**${code}${where}: ${f.message}`;
        })
        .join('\n'),
    );
  }
  if (a.diff && (a.parentText === undefined || a.candidateText === undefined)) out.push('## Diff', fence(a.diff, 'diff'));
  return out.join('\n\n') + '\n';
}

/** Whether an assessment gains authority (the commit dialog says so). */
export function gainsAuthority(a: AssessResult): boolean {
  return (a.authority?.added.length ?? 0) > 0;
}

export function commitQuestion(a: AssessResult): string {
  const parts = [`Commit proposal ${a.proposal}? The assessment is ${verdictText[a.verdict]}`];
  const warnings = a.findings.filter((f) => f.severity !== 'info').length;
  if (warnings > 0) parts[0] += ` with ${warnings} finding(s)`;
  parts[0] += '.';
  if (gainsAuthority(a)) parts.push(`It gains authority: ${a.authority?.added.join(', ')}.`);
  return parts.join(' ');
}

export function renderRun(r: RunResult, file: string, mode: string): string[] {
  const lines = [`== ${file} (${mode})`];
  for (const e of r.examples) {
    const where = e.range ? `:${e.range.start.line + 1}:${e.range.start.character + 1}` : '';
    const call = e.call || `(${e.function} ...)`;
    lines.push(`${e.passed ? 'PASS' : 'FAIL'} ${file}${where}: ${call}`);
    if (!e.passed) {
      lines.push(`    expected: ${e.expected}`);
      lines.push(e.error !== null ? `    error:    ${e.error}` : `    got:      ${e.got ?? ''}`);
    }
  }
  lines.push(`${r.passed} passed, ${r.failed} failed`);
  return lines;
}

export function statusText(state: 'starting' | 'running' | 'stopped' | 'missing', info?: ServerInfo): { text: string; tooltip: string } {
  switch (state) {
    case 'starting':
      return { text: '$(sync~spin) Capsulang', tooltip: 'Capsulang: starting the language server…' };
    case 'running':
      return { text: '$(check) Capsulang', tooltip: `Capsulang: ${describeServer(info)} is running. Click for the server output.` };
    case 'stopped':
      return { text: '$(error) Capsulang', tooltip: 'Capsulang: the language server stopped. Click for the server output.' };
    case 'missing':
      return { text: '$(warning) Capsulang', tooltip: 'Capsulang: the caps binary was not found. Click for details.' };
  }
}
