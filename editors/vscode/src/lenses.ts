// Code lenses computed on the client from the server's document symbols,
// until the server offers codeLensProvider itself (then the extension
// leaves lenses to it). Pure.

import type { CommandTransport } from './commands';
import { ClientCommand, type ClientCommandId } from './ids';
import { ServerCommand, type Range, type ServerCommandName } from './protocol';

/** A DocumentSymbol as the server sends it (textDocument/documentSymbol). */
export interface SymbolLike {
  name: string;
  detail?: string | undefined;
  kind: number;
  range: Range;
  selectionRange: Range;
  children?: SymbolLike[] | undefined;
}

/** Arguments of the client commands a lens runs. */
export interface TargetArgs {
  uri: string;
  function?: string;
  machine?: string;
}

export interface LensSpec {
  range: Range;
  title: string;
  tooltip: string;
  command: ClientCommandId;
  arguments: [TargetArgs];
  /** The server command behind it. */
  serverCommand: ServerCommandName;
  supported: boolean;
}

export interface LensOptions {
  /** Show lenses of unsupported commands too (marked as such). */
  showUnsupported: boolean;
  /**
   * The server's own lenses for the document, when it has codeLensProvider.
   * The server then owns the per-function lenses, and a client lens is
   * dropped where a server lens runs the same command on the same line.
   */
  serverLenses?: ReadonlyArray<{ range: Range; command?: { command: string } | undefined }> | undefined;
}

/** The declaration kind the server puts in a symbol's detail ("module", "machine", ...). */
export function declKind(s: SymbolLike): string {
  return s.detail ?? '';
}

/** Top-level declarations: the module's children (or the symbols themselves). */
export function declarations(symbols: readonly SymbolLike[]): SymbolLike[] {
  const out: SymbolLike[] = [];
  for (const s of symbols) {
    if (declKind(s) === 'module') out.push(...(s.children ?? []));
    else out.push(s);
  }
  return out;
}

export function machines(symbols: readonly SymbolLike[]): SymbolLike[] {
  return declarations(symbols).filter((s) => declKind(s) === 'machine');
}

export function functions(symbols: readonly SymbolLike[]): SymbolLike[] {
  return declarations(symbols).filter((s) => declKind(s) === 'function');
}

interface LensKind {
  server: ServerCommandName;
  command: ClientCommandId;
  title: string;
  tooltip: string;
}

const moduleLenses: LensKind[] = [
  { server: ServerCommand.run, command: ClientCommand.runExamples, title: '$(play) Run examples', tooltip: "Run every function's examples" },
  { server: ServerCommand.compile, command: ClientCommand.compileModule, title: '$(package) Compile', tooltip: 'Compile the module for a target' },
  { server: ServerCommand.propose, command: ClientCommand.proposeChange, title: '$(git-pull-request) Propose', tooltip: 'Propose this version as a governed change' },
  { server: ServerCommand.assess, command: ClientCommand.assessChange, title: '$(checklist) Assess', tooltip: 'Assess the proposed change' },
  { server: ServerCommand.commit, command: ClientCommand.commitChange, title: '$(check) Commit', tooltip: 'Review the assessment and diff, then commit' },
];
const functionLenses: LensKind[] = [
  { server: ServerCommand.run, command: ClientCommand.runExamples, title: '$(play) Run examples', tooltip: "Run this function's examples" },
];
const machineLenses: LensKind[] = [
  { server: ServerCommand.dryRun, command: ClientCommand.dryRunMachine, title: '$(debug-alt) Dry-run', tooltip: 'Send events to the machine without executing effects' },
  { server: ServerCommand.visualize, command: ClientCommand.showMachineDiagram, title: '$(type-hierarchy) Diagram', tooltip: 'Show the machine diagram' },
];

export function lensesFor(
  uri: string,
  symbols: readonly SymbolLike[],
  supported: ReadonlySet<string>,
  opts: LensOptions,
): LensSpec[] {
  const out: LensSpec[] = [];
  const taken = new Set((opts.serverLenses ?? []).map((l) => `${l.range.start.line}:${l.command?.command ?? ''}`));
  const add = (s: SymbolLike, kinds: LensKind[], args: TargetArgs) => {
    for (const k of kinds) {
      const ok = supported.has(k.server);
      if (!ok && !opts.showUnsupported) continue;
      if (taken.has(`${s.selectionRange.start.line}:${k.server}`)) continue;
      out.push({
        range: s.selectionRange,
        title: ok ? k.title : `${k.title} (unsupported)`,
        tooltip: ok ? k.tooltip : `${k.tooltip}: not supported by this server version`,
        command: k.command,
        arguments: [args],
        serverCommand: k.server,
        supported: ok,
      });
    }
  };
  for (const s of symbols) {
    if (declKind(s) === 'module') add(s, moduleLenses, { uri });
  }
  for (const d of declarations(symbols)) {
    switch (declKind(d)) {
      case 'function':
        if (!opts.serverLenses) add(d, functionLenses, { uri, function: d.name });
        break;
      case 'machine':
        add(d, machineLenses, { uri, machine: d.name });
        break;
    }
  }
  return out;
}

function isRange(v: unknown): v is Range {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as { start?: { line?: unknown }; end?: { line?: unknown } };
  return typeof r.start?.line === 'number' && typeof r.end?.line === 'number';
}

function isSymbolLike(v: unknown): v is SymbolLike {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<Record<keyof SymbolLike, unknown>>;
  return (
    typeof s.name === 'string' &&
    typeof s.kind === 'number' &&
    isRange(s.range) &&
    isRange(s.selectionRange) &&
    (s.children === undefined || (Array.isArray(s.children) && s.children.every(isSymbolLike)))
  );
}

/** The document's outline from the server (hierarchical DocumentSymbols only). */
export async function fetchSymbols<Token>(t: CommandTransport<Token>, uri: string, token?: Token): Promise<SymbolLike[]> {
  const raw = await t.sendRequest('textDocument/documentSymbol', { textDocument: { uri } }, token);
  return Array.isArray(raw) ? raw.filter(isSymbolLike) : [];
}
