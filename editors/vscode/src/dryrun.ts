// Placing dry-run results next to the transitions they took. Pure: works on
// the server's document symbols (machine > state > "on EVENT").

import { machines, type SymbolLike } from './lenses';
import type { DryRunResult, DryRunStep, Range } from './protocol';

export interface StepHint {
  /** The line the hint is drawn at the end of (0-based). */
  line: number;
  /** Short text drawn after the line. */
  text: string;
  /** Markdown shown on hover. */
  hover: string;
  /** Whether every step here was accepted without error. */
  ok: boolean;
  /** 1-based step numbers drawn here. */
  steps: number[];
}

export function machineEvents(machine: SymbolLike): string[] {
  return (machine.children ?? []).filter((c) => c.detail === 'event').map((c) => c.name);
}

export function machineStates(machine: SymbolLike): SymbolLike[] {
  return (machine.children ?? []).filter((c) => c.detail === 'state' || c.detail === 'final state');
}

/** The (on EVENT ...) clause of STATE in MACHINE, if the document has it. */
export function findTransition(symbols: readonly SymbolLike[], machine: string, from: string, event: string): Range | undefined {
  const state = findState(symbols, machine, from);
  const t = state?.children?.find((c) => c.name === `on ${event}`);
  return t?.range;
}

export function findState(symbols: readonly SymbolLike[], machine: string, state: string): SymbolLike | undefined {
  const m = machines(symbols).find((s) => s.name === machine);
  return m && machineStates(m).find((s) => s.name === state);
}

function effectList(step: DryRunStep): string {
  return step.effects.map((e) => (e.target ? `${e.effect} ${e.target}` : e.effect)).join(', ');
}

function stepText(n: number, step: DryRunStep): string {
  if (step.error) return `#${n} ${step.event}: ${step.error}`;
  if (!step.accepted) return `#${n} ${step.event} not accepted in ${step.from}`;
  const effects = step.effects.length === 0 ? '' : step.effects.length === 1 ? ' · 1 effect' : ` · ${step.effects.length} effects`;
  return `#${n} ${step.event} → ${step.to}${effects}`;
}

function stepHover(n: number, step: DryRunStep): string {
  const lines = [`**Step ${n}**: \`${step.event}\` in \`${step.from}\``];
  if (step.error) lines.push(`error: ${step.error}`);
  else if (!step.accepted) lines.push('not accepted (no transition, or its guard was false)');
  else lines.push(`→ \`${step.to}\``);
  if (step.effects.length > 0) lines.push(`effects (not executed): ${effectList(step)}`);
  if (step.context && Object.keys(step.context).length > 0) {
    lines.push('context after the step:', '```json', JSON.stringify(step.context, null, 2), '```');
  }
  return lines.join('\n\n');
}

/**
 * The hints for a dry-run: one per line that took steps. A step's place is
 * the range the server gave, else its transition in the symbols, else (for
 * a step no transition accepted) its state. Steps with no place are left out.
 */
export function dryRunHints(symbols: readonly SymbolLike[], result: DryRunResult): StepHint[] {
  const byLine = new Map<number, { parts: string[]; hovers: string[]; ok: boolean; steps: number[] }>();
  result.steps.forEach((step, i) => {
    const n = i + 1;
    const range =
      step.range ??
      findTransition(symbols, result.machine, step.from, step.event) ??
      findState(symbols, result.machine, step.from)?.selectionRange;
    if (!range) return;
    const line = range.start.line;
    const entry = byLine.get(line) ?? { parts: [], hovers: [], ok: true, steps: [] };
    entry.parts.push(stepText(n, step));
    entry.hovers.push(stepHover(n, step));
    entry.ok &&= step.accepted && !step.error;
    entry.steps.push(n);
    byLine.set(line, entry);
  });
  return [...byLine.entries()]
    .sort(([a], [b]) => a - b)
    .map(([line, e]) => ({ line, text: e.parts.join('  '), hover: e.hovers.join('\n\n---\n\n'), ok: e.ok, steps: e.steps }));
}

/** A one-line summary for notifications. */
export function dryRunSummary(result: DryRunResult): string {
  const rejected = result.steps.filter((s) => !s.accepted || s.error).length;
  const effects = result.steps.reduce((n, s) => n + s.effects.length, 0);
  const steps = result.steps.length === 1 ? '1 event' : `${result.steps.length} events`;
  const tail = rejected > 0 ? `, ${rejected} not accepted` : '';
  return `${result.machine}: ${steps}, ${result.initial} → ${result.final}, ${effects} effect intent(s) planned${tail}.`;
}
