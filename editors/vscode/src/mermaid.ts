// Highlighting a dry-run's path in a Mermaid diagram from capsulang.visualize.
// Pure.

import type { DryRunResult } from './protocol';

export interface PathHighlight {
  /** States the run passed through, in order (without duplicates). */
  visited: string[];
  /** Where the run ended. */
  current: string | undefined;
  transitions: Array<{ from: string; event: string; to: string }>;
}

export function pathOf(result: DryRunResult | undefined): PathHighlight {
  if (!result) return { visited: [], current: undefined, transitions: [] };
  const visited: string[] = [];
  const see = (s: string) => {
    if (s && !visited.includes(s)) visited.push(s);
  };
  see(result.initial);
  const transitions: PathHighlight['transitions'] = [];
  for (const s of result.steps) {
    see(s.from);
    if (s.accepted && !s.error) {
      see(s.to);
      transitions.push({ from: s.from, event: s.event, to: s.to });
    }
  }
  return { visited, current: result.final || undefined, transitions };
}

export const VISITED_CLASS = 'capsVisited';
export const CURRENT_CLASS = 'capsCurrent';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The node id caps gives a name in its diagrams (codegen/mermaid). */
export function mermaidId(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Whether `id` occurs in the source as a whole identifier. */
function mentions(source: string, id: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_])${escapeRe(id)}([^A-Za-z0-9_]|$)`, 'm').test(source);
}

export interface Diagram {
  /** The front-matter title, if any. */
  title: string | undefined;
  source: string;
}

/**
 * Splits capsulang.visualize output, which holds one diagram per machine,
 * each starting with a front-matter block (--- title: X ---).
 */
export function splitDiagrams(text: string): Diagram[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() === '---' && /^title:/.test(lines[i + 1]?.trim() ?? '')) {
      starts.push(i);
      // skip to the end of this front-matter block
      const end = lines.findIndex((l, j) => j > i && l.trim() === '---');
      if (end > i) i = end;
    }
  }
  if (starts.length === 0 || starts[0] !== 0) starts.unshift(0);
  const out: Diagram[] = [];
  starts.forEach((start, k) => {
    const source = lines.slice(start, starts[k + 1] ?? lines.length).join('\n').replace(/\s+$/, '') + '\n';
    if (source.trim() === '') return;
    const m = /^---\s*\ntitle:\s*(.*)\n/.exec(source);
    out.push({ title: m?.[1]?.trim(), source });
  });
  return out;
}

/** The diagram's first line after any front matter and comments. */
export function diagramType(source: string): 'state' | 'flowchart' | 'other' {
  const body = source.replace(/^---\s*\n[\s\S]*?\n---\s*(\n|$)/, '');
  const first = body
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('%%'));
  if (!first) return 'other';
  if (/^stateDiagram(-v2)?\b/.test(first)) return 'state';
  if (/^(flowchart|graph)\b/.test(first)) return 'flowchart';
  return 'other';
}

/**
 * Appends classDef/class statements that colour the visited states of a
 * state diagram, or the transitions taken in an effect flowchart. Ids that
 * do not occur in the diagram are skipped, so the highlight never adds
 * nodes.
 */
export function highlightDiagram(source: string, path: PathHighlight): string {
  const kind = diagramType(source);
  if (kind === 'other' || path.visited.length === 0) return source;
  const lines = [
    `    classDef ${VISITED_CLASS} fill:#fff3bf,stroke:#f08c00,stroke-width:2px,color:#000`,
    `    classDef ${CURRENT_CLASS} fill:#ffd8a8,stroke:#e8590c,stroke-width:4px,color:#000`,
  ];
  const visited: string[] = [];
  let current: string | undefined;
  if (kind === 'state') {
    for (const s of path.visited) {
      const id = mermaidId(s);
      if (s !== path.current && mentions(source, id)) visited.push(id);
    }
    if (path.current !== undefined && mentions(source, mermaidId(path.current))) current = mermaidId(path.current);
  } else {
    for (const t of path.transitions) {
      const id = mermaidId(`t_${t.from}_${t.event}`);
      if (mentions(source, id) && !visited.includes(id)) visited.push(id);
    }
  }
  if (visited.length === 0 && current === undefined) return source;
  if (visited.length > 0) lines.push(`    class ${visited.join(',')} ${VISITED_CLASS}`);
  if (current) lines.push(`    class ${current} ${CURRENT_CLASS}`);
  return `${source.replace(/\s+$/, '')}\n${lines.join('\n')}\n`;
}

/**
 * The diagrams of capsulang.visualize output, with the path highlighted in
 * the diagram of the dry-run's machine (titled MACHINE or "MACHINE effects").
 */
export function highlightPath(text: string, path: PathHighlight, machine?: string): Diagram[] {
  const diagrams = splitDiagrams(text);
  return diagrams.map((d) => {
    const mine =
      machine === undefined || diagrams.length === 1 || d.title === machine || d.title === `${machine} effects`;
    return mine ? { title: d.title, source: highlightDiagram(d.source, path) } : d;
  });
}
