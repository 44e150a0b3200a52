// The contract between this extension and `caps lsp` for the workspace
// commands (workspace/executeCommand). Pure: no `vscode` import, so the
// tests run it in plain node against the real server.
//
// Every server command takes exactly one argument, an object (the *Args
// types below), and returns one JSON value (the *Result types). The
// extension never assumes a command exists: it checks the server's
// executeCommandProvider first (see commands.ts). docs/editors.md documents
// the contract for the server side.

/** The server's command names, as listed in executeCommandProvider.commands. */
export const ServerCommand = {
  run: 'capsulang.run',
  dryRun: 'capsulang.dryRun',
  compile: 'capsulang.compile',
  visualize: 'capsulang.visualize',
  explain: 'capsulang.explain',
  propose: 'capsulang.propose',
  assess: 'capsulang.assess',
  commit: 'capsulang.commit',
  rollback: 'capsulang.rollback',
  previewSurface: 'capsulang.previewSurface',
} as const;

export type ServerCommandName = (typeof ServerCommand)[keyof typeof ServerCommand];

export const allServerCommands: readonly ServerCommandName[] = Object.values(ServerCommand);

/** What the user sees for each server command. */
export const serverCommandTitle: Readonly<Record<ServerCommandName, string>> = {
  'capsulang.run': 'Run examples',
  'capsulang.dryRun': 'Dry-run machine',
  'capsulang.compile': 'Compile',
  'capsulang.visualize': 'Show machine diagram',
  'capsulang.explain': 'Explain diagnostic code',
  'capsulang.propose': 'Propose change',
  'capsulang.assess': 'Assess proposed change',
  'capsulang.commit': 'Commit proposed change',
  'capsulang.rollback': 'Roll back',
  'capsulang.previewSurface': 'Preview surface',
};

// ---------------------------------------------------------------------------
// Arguments

export type RunMode = 'dry-run' | 'mock' | 'live';
export const runModes: readonly RunMode[] = ['dry-run', 'mock', 'live'];

export interface RunArgs {
  /** The document (file URI) whose examples run. */
  uri: string;
  /**
   * The run mode (capsulang.run.defaultMode). Function examples are pure:
   * today's server runs them in the interpreter whatever the mode, and
   * ignores the field; machine runs will honour it.
   */
  mode: RunMode;
  /** Only this function's examples; all functions when absent. */
  function?: string;
}

export interface EventInput {
  event: string;
  payload: Record<string, unknown>;
}

export interface DryRunArgs {
  uri: string;
  machine: string;
  /** The events to send, in order... */
  events?: EventInput[];
  /** ...or a scenario file (URI) in the format of examples/scenarios/*.json. */
  scenario?: string;
}

export interface CompileArgs {
  uri: string;
  target: string;
}

export type DiagramKind = 'machine' | 'effects';

export interface VisualizeArgs {
  uri: string;
  /** The machine to draw; the first machine of the module when absent. */
  machine?: string;
  kind: DiagramKind;
}

export interface ExplainArgs {
  code: string;
}

export interface ProposeArgs {
  uri: string;
  reason?: string;
}

export interface AssessArgs {
  uri: string;
  proposal: string;
}

export interface CommitArgs {
  uri: string;
  proposal: string;
  /** Approvals, as "ROLE:name", for a needs-approval verdict. */
  approve?: string[];
}

export interface RollbackArgs {
  uri: string;
  /** A commit to roll back to; the parent of the last commit when absent. */
  to?: string;
}

export interface PreviewSurfaceArgs {
  uri: string;
  /** The A2UI surface to render. */
  surface: string;
}

export interface ServerCommandArgs {
  'capsulang.run': RunArgs;
  'capsulang.dryRun': DryRunArgs;
  'capsulang.compile': CompileArgs;
  'capsulang.visualize': VisualizeArgs;
  'capsulang.explain': ExplainArgs;
  'capsulang.propose': ProposeArgs;
  'capsulang.assess': AssessArgs;
  'capsulang.commit': CommitArgs;
  'capsulang.rollback': RollbackArgs;
  'capsulang.previewSurface': PreviewSurfaceArgs;
}

// ---------------------------------------------------------------------------
// Results

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface ExampleOutcome {
  function: string;
  /** The example's call as written, e.g. "(is_suspicious 12)". */
  call: string;
  expected: string;
  got: string | null;
  passed: boolean;
  error: string | null;
  range?: Range;
}

export interface RunResult {
  passed: number;
  failed: number;
  examples: ExampleOutcome[];
}

export interface EffectIntent {
  effect: string;
  target?: string;
}

export interface DryRunStep {
  event: string;
  from: string;
  to: string;
  /** False when no transition accepted the event (a guard failed, or none exists). */
  accepted: boolean;
  effects: EffectIntent[];
  context?: Record<string, unknown>;
  error?: string;
  /** The transition's (on EVENT ...) clause. */
  range?: Range;
}

export interface DryRunResult {
  machine: string;
  initial: string;
  final: string;
  steps: DryRunStep[];
}

export interface Artifact {
  /** The artefact's file name; empty for a target's single artefact. */
  name: string;
  /** Its content: text as is... */
  text?: string;
  /** ...or binary, base64-encoded. */
  base64?: string;
  /** Or where the server wrote it (file URI). */
  uri?: string;
}

export interface UnsupportedFeature {
  declaration: string;
  feature: string;
  range?: Range;
}

export interface CompileResult {
  target: string;
  artifacts: Artifact[];
  /** What the target leaves out, per declaration. */
  unsupported: UnsupportedFeature[];
}

/** The file extension of each compilation target's artefact (docs/codegen.md). */
export const targetExtension: Readonly<Record<string, string>> = {
  wat: '.wat',
  wasm: '.wasm',
  riscv64: '.s',
  xstate: '.xstate.mjs',
  scxml: '.scxml',
  mermaid: '.mmd',
};

/** The compilation targets the toolchain implements (caps compile-backends). */
export const compileTargets: readonly string[] = ['wat', 'wasm', 'riscv64', 'xstate', 'scxml', 'mermaid'];

export interface VisualizeResult {
  mermaid: string;
  machine?: string;
}

export interface ExplainResult {
  code: string;
  title?: string;
  severity?: string;
  summary?: string;
  example?: string;
  fix?: string;
  fixed?: string;
  url?: string;
}

export interface ProposeResult {
  proposal: string;
  parentHash?: string;
  candidateHash?: string;
  summary?: string;
}

/** `incomplete`: evidence the module's governance requires is missing; no approval meets it. */
export type Verdict = 'pass' | 'needs-approval' | 'warn' | 'incomplete' | 'fail';

export interface Finding {
  severity: string;
  message: string;
  code?: string;
  range?: Range;
}

export interface AssessResult {
  proposal: string;
  verdict: Verdict;
  summary?: string;
  findings: Finding[];
  /** Authority the candidate gains or loses (capabilities, effects, ...). */
  authority?: { added: string[]; removed: string[] };
  /** The committed parent's text and the candidate's text, for a diff view. */
  parentText?: string;
  candidateText?: string;
  /** Or a unified diff. */
  diff?: string;
}

export interface CommitResult {
  proposal?: string;
  commit: string;
  message?: string;
}

export interface RollbackResult {
  commit: string;
  message?: string;
}

/** Where a surface preview's data comes from. */
export type PreviewSource = 'dry-run' | 'default';

export interface PreviewSurfaceResult {
  surface: string;
  title: string;
  /** The machine the surface is bound to. */
  machine?: string;
  /** The bound machine's last dry run, or the default data model. */
  source: PreviewSource;
  /** The state the last dry run left the machine in. */
  state?: string;
  /** Why a dry run was not used although there was one. */
  note?: string;
  /** The data model value the surface is rendered with. */
  data: Record<string, unknown>;
  /** createSurface, updateComponents and updateDataModel, as caps a2ui-envelope prints them. */
  messages: Array<Record<string, unknown>>;
  /** The React component's static markup (react-dom/server's bytes). */
  html: string;
}

export interface ServerCommandResults {
  'capsulang.run': RunResult;
  'capsulang.dryRun': DryRunResult;
  'capsulang.compile': CompileResult;
  'capsulang.visualize': VisualizeResult;
  'capsulang.explain': ExplainResult;
  'capsulang.propose': ProposeResult;
  'capsulang.assess': AssessResult;
  'capsulang.commit': CommitResult;
  'capsulang.rollback': RollbackResult;
  'capsulang.previewSurface': PreviewSurfaceResult;
}

// ---------------------------------------------------------------------------
// Result validation. The server is another program: its answers are checked
// before use, and a wrong shape is reported as such, naming the field.

export class ResultShapeError extends Error {
  constructor(
    readonly command: string,
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${command} returned an unexpected result: ${path || 'the result'} should be ${expected}`);
    this.name = 'ResultShapeError';
  }
}

type JSONObject = Record<string, unknown>;

class Reader {
  constructor(readonly command: string) {}

  fail(path: string, expected: string): never {
    throw new ResultShapeError(this.command, path, expected);
  }

  object(v: unknown, path: string): JSONObject {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(path, 'an object');
    return v as JSONObject;
  }

  string(o: JSONObject, key: string, path: string): string {
    const v = o[key];
    if (typeof v !== 'string') this.fail(join(path, key), 'a string');
    return v;
  }

  optString(o: JSONObject, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.fail(join(path, key), 'a string');
    return v;
  }

  nullableString(o: JSONObject, key: string, path: string): string | null {
    return this.optString(o, key, path) ?? null;
  }

  number(o: JSONObject, key: string, path: string): number {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(join(path, key), 'a number');
    return v;
  }

  bool(o: JSONObject, key: string, path: string, dflt?: boolean): boolean {
    const v = o[key];
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== 'boolean') this.fail(join(path, key), 'true or false');
    return v;
  }

  array(o: JSONObject, key: string, path: string, optional = false): unknown[] {
    const v = o[key];
    if ((v === undefined || v === null) && optional) return [];
    if (!Array.isArray(v)) this.fail(join(path, key), 'an array');
    return v;
  }

  stringArray(o: JSONObject, key: string, path: string): string[] {
    return this.array(o, key, path, true).map((x, i) => {
      if (typeof x !== 'string') this.fail(`${join(path, key)}[${i}]`, 'a string');
      return x;
    });
  }

  range(o: JSONObject, key: string, path: string): Range | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    const p = join(path, key);
    const r = this.object(v, p);
    return { start: this.position(r['start'], `${p}.start`), end: this.position(r['end'], `${p}.end`) };
  }

  position(v: unknown, path: string): Position {
    const o = this.object(v, path);
    const line = this.number(o, 'line', path);
    const character = this.number(o, 'character', path);
    if (line < 0 || character < 0) this.fail(path, 'a position with non-negative line and character');
    return { line, character };
  }

  record(o: JSONObject, key: string, path: string): Record<string, unknown> | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    return this.object(v, join(path, key));
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Adds optional properties only when they are defined (exactOptionalPropertyTypes). */
function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(extra)) {
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

function parseRun(v: unknown): RunResult {
  const r = new Reader(ServerCommand.run);
  const o = r.object(v, '');
  const examples = r.array(o, 'examples', '').map((x, i) => {
    const p = `examples[${i}]`;
    const e = r.object(x, p);
    return withOptional<ExampleOutcome>(
      {
        function: r.string(e, 'function', p),
        call: r.optString(e, 'call', p) ?? '',
        expected: r.optString(e, 'expected', p) ?? '',
        got: r.nullableString(e, 'got', p),
        passed: r.bool(e, 'passed', p),
        error: r.nullableString(e, 'error', p),
      },
      { range: r.range(e, 'range', p) },
    );
  });
  const passed = o['passed'] === undefined ? examples.filter((e) => e.passed).length : r.number(o, 'passed', '');
  const failed = o['failed'] === undefined ? examples.filter((e) => !e.passed).length : r.number(o, 'failed', '');
  return { passed, failed, examples };
}

function parseEffects(r: Reader, o: JSONObject, path: string): EffectIntent[] {
  return r.array(o, 'effects', path, true).map((x, i) => {
    const p = `${join(path, 'effects')}[${i}]`;
    if (typeof x === 'string') return { effect: x };
    const e = r.object(x, p);
    return withOptional<EffectIntent>({ effect: r.string(e, 'effect', p) }, { target: r.optString(e, 'target', p) });
  });
}

function parseDryRun(v: unknown): DryRunResult {
  const r = new Reader(ServerCommand.dryRun);
  const o = r.object(v, '');
  const machine = r.string(o, 'machine', '');
  const initial = r.optString(o, 'initial', '');
  // Steps as this contract has them ({event, from, to, accepted}), or as
  // runtime/scenario reports them ({input, state, ok}): "from" is then the
  // state the previous step ended in.
  let prev = initial;
  const steps = r.array(o, 'steps', '').map((x, i) => {
    const p = `steps[${i}]`;
    const s = r.object(x, p);
    const event = s['event'] === undefined && typeof s['input'] === 'string' ? (s['input'] as string) : r.string(s, 'event', p);
    const to = s['to'] === undefined && typeof s['state'] === 'string' ? (s['state'] as string) : r.string(s, 'to', p);
    const from = r.optString(s, 'from', p) ?? prev ?? '';
    const accepted = s['accepted'] === undefined && typeof s['ok'] === 'boolean' ? (s['ok'] as boolean) : r.bool(s, 'accepted', p, true);
    prev = to;
    return withOptional<DryRunStep>(
      { event, from, to, accepted, effects: parseEffects(r, s, p) },
      { context: r.record(s, 'context', p), error: r.optString(s, 'error', p), range: r.range(s, 'range', p) },
    );
  });
  const first = steps[0];
  const last = steps[steps.length - 1];
  const start = initial ?? first?.from ?? '';
  const final = r.optString(o, 'final', '') ?? last?.to ?? start;
  return { machine, initial: start, final, steps };
}

function parseCompile(v: unknown): CompileResult {
  const r = new Reader(ServerCommand.compile);
  const o = r.object(v, '');
  const artifacts = r.array(o, 'artifacts', '').map((x, i) => {
    const p = `artifacts[${i}]`;
    const a = r.object(x, p);
    const art = withOptional<Artifact>(
      { name: r.optString(a, 'name', p) ?? '' },
      { text: r.optString(a, 'text', p), base64: r.optString(a, 'base64', p), uri: r.optString(a, 'uri', p) },
    );
    if (art.text === undefined && art.base64 === undefined && art.uri === undefined) r.fail(p, 'an artefact with a text, base64 or uri');
    return art;
  });
  const unsupported = r.array(o, 'unsupported', '', true).map((x, i) => {
    const p = `unsupported[${i}]`;
    const u = r.object(x, p);
    return withOptional<UnsupportedFeature>(
      { declaration: r.optString(u, 'declaration', p) ?? '', feature: r.string(u, 'feature', p) },
      { range: r.range(u, 'range', p) },
    );
  });
  return { target: r.optString(o, 'target', '') ?? '', artifacts, unsupported };
}

function parseVisualize(v: unknown): VisualizeResult {
  if (typeof v === 'string') return { mermaid: v };
  const r = new Reader(ServerCommand.visualize);
  const o = r.object(v, '');
  return withOptional<VisualizeResult>({ mermaid: r.string(o, 'mermaid', '') }, { machine: r.optString(o, 'machine', '') });
}

function parseExplain(v: unknown): ExplainResult {
  const r = new Reader(ServerCommand.explain);
  const o = r.object(v, '');
  return withOptional<ExplainResult>(
    { code: r.string(o, 'code', '') },
    Object.fromEntries(
      (['title', 'severity', 'summary', 'example', 'fix', 'fixed', 'url'] as const).map((k) => [k, r.optString(o, k, '')]),
    ),
  );
}

function parsePropose(v: unknown): ProposeResult {
  const r = new Reader(ServerCommand.propose);
  const o = r.object(v, '');
  return withOptional<ProposeResult>(
    { proposal: r.string(o, 'proposal', '') },
    {
      parentHash: r.optString(o, 'parentHash', ''),
      candidateHash: r.optString(o, 'candidateHash', ''),
      summary: r.optString(o, 'summary', ''),
    },
  );
}

function parseAssess(v: unknown): AssessResult {
  const r: Reader = new Reader(ServerCommand.assess);
  const o = r.object(v, '');
  const verdict = r.string(o, 'verdict', '');
  if (verdict !== 'pass' && verdict !== 'needs-approval' && verdict !== 'warn' && verdict !== 'incomplete' && verdict !== 'fail') {
    r.fail('verdict', '"pass", "needs-approval", "warn", "incomplete" or "fail"');
  }
  const findings = r.array(o, 'findings', '', true).map((x, i) => {
    const p = `findings[${i}]`;
    const f = r.object(x, p);
    return withOptional<Finding>(
      { severity: r.optString(f, 'severity', p) ?? 'info', message: r.string(f, 'message', p) },
      { code: r.optString(f, 'code', p), range: r.range(f, 'range', p) },
    );
  });
  const auth = r.record(o, 'authority', '');
  return withOptional<AssessResult>(
    { proposal: r.string(o, 'proposal', ''), verdict, findings },
    {
      summary: r.optString(o, 'summary', ''),
      authority: auth && {
        added: r.stringArray(auth, 'added', 'authority'),
        removed: r.stringArray(auth, 'removed', 'authority'),
      },
      parentText: r.optString(o, 'parentText', ''),
      candidateText: r.optString(o, 'candidateText', ''),
      diff: r.optString(o, 'diff', ''),
    },
  );
}

function parseCommit(v: unknown): CommitResult {
  const r = new Reader(ServerCommand.commit);
  const o = r.object(v, '');
  return withOptional<CommitResult>(
    { commit: r.string(o, 'commit', '') },
    { proposal: r.optString(o, 'proposal', ''), message: r.optString(o, 'message', '') },
  );
}

function parseRollback(v: unknown): RollbackResult {
  const r = new Reader(ServerCommand.rollback);
  const o = r.object(v, '');
  return withOptional<RollbackResult>({ commit: r.string(o, 'commit', '') }, { message: r.optString(o, 'message', '') });
}

function parsePreviewSurface(v: unknown): PreviewSurfaceResult {
  const r = new Reader(ServerCommand.previewSurface);
  const o = r.object(v, '');
  const raw = r.string(o, 'source', '');
  const source: PreviewSource = raw === 'dry-run' || raw === 'default' ? raw : r.fail('source', '"dry-run" or "default"');
  const messages = r.array(o, 'messages', '').map((m, i) => r.object(m, `messages[${i}]`));
  return withOptional<PreviewSurfaceResult>(
    {
      surface: r.string(o, 'surface', ''),
      title: r.string(o, 'title', ''),
      source,
      data: r.object(o['data'], 'data'),
      messages,
      html: r.string(o, 'html', ''),
    },
    { machine: r.optString(o, 'machine', ''), state: r.optString(o, 'state', ''), note: r.optString(o, 'note', '') },
  );
}

/** Validates a server command's result. Throws ResultShapeError. */
export const parseResult: { [K in ServerCommandName]: (v: unknown) => ServerCommandResults[K] } = {
  'capsulang.run': parseRun,
  'capsulang.dryRun': parseDryRun,
  'capsulang.compile': parseCompile,
  'capsulang.visualize': parseVisualize,
  'capsulang.explain': parseExplain,
  'capsulang.propose': parsePropose,
  'capsulang.assess': parseAssess,
  'capsulang.commit': parseCommit,
  'capsulang.rollback': parseRollback,
  'capsulang.previewSurface': parsePreviewSurface,
};

/**
 * Reads a scenario file (examples/scenarios/*.json, runtime/scenario): its
 * machine, description and events. Other steps (advance, cancel) count in
 * `steps` but are not events.
 */
export function parseScenario(text: string): { machine: string; description?: string; events: EventInput[]; steps: number } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = new Reader('scenario');
  try {
    const o = r.object(v, '');
    const all = r.array(o, 'events', '');
    const events: EventInput[] = [];
    all.forEach((x, i) => {
      const p = `events[${i}]`;
      const e = r.object(x, p);
      if (e['event'] === undefined && (e['advance'] !== undefined || e['cancel'] !== undefined)) return;
      events.push({ event: r.string(e, 'event', p), payload: r.record(e, 'payload', p) ?? {} });
    });
    return withOptional(
      { machine: r.string(o, 'machine', ''), events, steps: all.length },
      { description: r.optString(o, 'description', '') },
    );
  } catch (e) {
    if (e instanceof ResultShapeError) throw new Error(`${e.path || 'the file'} should be ${e.expected}`);
    throw e;
  }
}
