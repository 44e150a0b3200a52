// The palette and code-lens commands. Each one finds its document, asks
// what it needs (machine, events, target, ...), sends one server command
// through commands.ts, and shows the result.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

import { notRunningMessage, runServerCommand, supportedCommands, unsupportedMessage, type Outcome } from '../commands';
import { dryRunHints, dryRunSummary, machineEvents } from '../dryrun';
import { fetchSymbols, machines, type SymbolLike, type TargetArgs } from '../lenses';
import { highlightPath, pathOf } from '../mermaid';
import {
  compileTargets,
  parseScenario,
  targetExtension,
  runModes,
  ServerCommand,
  type AssessResult,
  type DiagramKind,
  type DryRunArgs,
  type DryRunResult,
  type EventInput,
  type ProposeResult,
  type RunArgs,
  type RunMode,
  type ServerCommandName,
  type ServerCommandArgs,
  type ServerCommandResults,
} from '../protocol';
import { commitQuestion, renderAssessment, renderExplain, renderRun } from '../render';
import type { ServerManager } from '../server';
import type { DryRunDecorations } from './decorations';
import type { DiagramContent, DiagramPanel, DiagramTarget } from './diagram';
import type { SurfacePreview } from './preview';
import type { VirtualDocuments } from './views';
import { LANGUAGE_ID } from '../ids';

interface Proposal {
  result: ProposeResult;
  /** The document version that was proposed. */
  version: number;
  assessment?: AssessResult;
}

const DIAGNOSTIC_CODE = /^[EWI]_[A-Z0-9_]+$/;

export class Actions implements vscode.Disposable {
  private readonly results = vscode.window.createOutputChannel('Capsulang Results');
  private readonly lastDryRun = new Map<string, DryRunResult>();
  private readonly proposals = new Map<string, Proposal>();

  constructor(
    private readonly server: ServerManager,
    private readonly views: VirtualDocuments,
    private readonly decorations: DryRunDecorations,
    private readonly diagram: DiagramPanel,
    private readonly preview?: SurfacePreview,
  ) {}

  dispose(): void {
    this.results.dispose();
    this.lastDryRun.clear();
    this.proposals.clear();
  }

  // ---- helpers

  /** The document a command works on: the lens's, else the active editor's. */
  private async document(args: unknown): Promise<vscode.TextDocument | undefined> {
    const uri = targetUri(args);
    if (uri) {
      try {
        return await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true));
      } catch (e) {
        void vscode.window.showErrorMessage(`Capsulang: cannot open ${uri}: ${errorText(e)}`);
        return undefined;
      }
    }
    const doc = vscode.window.activeTextEditor?.document;
    if (doc?.languageId === LANGUAGE_ID) return doc;
    void vscode.window.showInformationMessage('Capsulang: open a .caps file first.');
    return undefined;
  }

  private async send<K extends ServerCommandName>(
    name: K,
    args: ServerCommandArgs[K],
    title: string,
  ): Promise<ServerCommandResults[K] | undefined> {
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Capsulang: ${title}…`, cancellable: true },
      (_progress, token) => runServerCommand(this.server.transport, name, args, token),
    );
    return this.unwrap(outcome);
  }

  /** Shows a failed outcome; returns the value of a successful one. */
  private unwrap<T>(o: Outcome<T>): T | undefined {
    switch (o.kind) {
      case 'ok':
        return o.value;
      case 'unsupported':
        void vscode.window.showInformationMessage(`Capsulang: ${o.message}`);
        return undefined;
      case 'notRunning':
        void vscode.window.showErrorMessage(`Capsulang: ${o.message}`, 'Show Output', 'Restart').then((pick) => {
          if (pick === 'Show Output') this.server.output.show(true);
          if (pick === 'Restart') void this.server.restart();
        });
        return undefined;
      case 'failed':
        void vscode.window.showErrorMessage(`Capsulang: ${o.message}`);
        return undefined;
    }
  }

  /**
   * Whether the server runs and implements the command; says why not
   * otherwise. Checked before asking the user anything.
   */
  private async available(name: ServerCommandName): Promise<boolean> {
    const t = this.server.transport;
    if (!t.capabilities()) {
      this.unwrap({ kind: 'notRunning', message: notRunningMessage });
      return false;
    }
    const supported = await supportedCommands(t).catch(() => new Set<string>());
    if (supported.has(name)) return true;
    this.unwrap({ kind: 'unsupported', message: unsupportedMessage(name, t.serverInfo()) });
    return false;
  }

  private async symbols(doc: vscode.TextDocument): Promise<SymbolLike[]> {
    try {
      return await fetchSymbols(this.server.transport, doc.uri.toString());
    } catch {
      return [];
    }
  }

  /** A machine of the document: the given one, the only one, or one the user picks. */
  private async pickMachine(symbols: SymbolLike[], given: string | undefined): Promise<SymbolLike | string | undefined> {
    const all = machines(symbols);
    if (given) return all.find((m) => m.name === given) ?? given;
    if (all.length === 0) {
      void vscode.window.showInformationMessage('Capsulang: this module declares no machine.');
      return undefined;
    }
    if (all.length === 1) return all[0];
    const pick = await vscode.window.showQuickPick(
      all.map((m) => ({ label: m.name, machine: m })),
      { title: 'Capsulang: which machine?' },
    );
    return pick?.machine;
  }

  // ---- Run examples

  async runExamples(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.run))) return;
    const mode = await this.runMode();
    if (!mode) return;
    const fn = targetField(args, 'function');
    const runArgs: RunArgs = { uri: doc.uri.toString(), mode };
    if (fn) runArgs.function = fn;
    const r = await this.send(ServerCommand.run, runArgs, fn ? `running the examples of ${fn}` : 'running examples');
    if (!r) return;
    const file = vscode.workspace.asRelativePath(doc.uri);
    for (const line of renderRun(r, file, mode)) this.results.appendLine(line);
    const summary = `${r.passed} passed, ${r.failed} failed`;
    const show = r.failed > 0 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(`Capsulang: ${file}: ${summary}.`, 'Show Output').then((pick) => {
      if (pick) this.results.show(true);
    });
  }

  private async runMode(): Promise<RunMode | undefined> {
    const setting = vscode.workspace.getConfiguration('capsulang').get<string>('run.defaultMode', 'dry-run');
    let mode: RunMode | undefined = (runModes as readonly string[]).includes(setting) ? (setting as RunMode) : undefined;
    if (!mode) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'dry-run', mode: 'dry-run' as const, detail: 'Plan effects without executing them' },
          { label: 'mock', mode: 'mock' as const, detail: 'Execute deterministic mock handlers' },
          { label: 'live', mode: 'live' as const, detail: 'Execute configured handlers against real adapters' },
        ],
        { title: 'Capsulang: run mode' },
      );
      mode = pick?.mode;
    }
    if (mode === 'live') {
      const ok = await vscode.window.showWarningMessage(
        'Run in live mode? Effects are executed by the configured handlers against real adapters and stores.',
        { modal: true },
        'Run live',
      );
      if (ok !== 'Run live') return undefined;
    }
    return mode;
  }

  // ---- Surface preview (the server's "Preview surface" lens)

  async previewSurface(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    const surface = asRecord(args)?.['surface'];
    if (typeof surface !== 'string' || surface === '') {
      void vscode.window.showInformationMessage('Capsulang: use the "Preview surface" lens above a surface.');
      return;
    }
    if (!this.preview || !(await this.available(ServerCommand.previewSurface))) return;
    const uri = doc.uri.toString();
    const r = await this.send(ServerCommand.previewSurface, { uri, surface }, `rendering surface ${surface}`);
    if (r) this.preview.show(uri, r);
  }

  /** After a dry run of the document: an open preview of it shows the new data. */
  async refreshPreview(uri: string | undefined): Promise<void> {
    const surface = uri ? this.preview?.showing(uri) : undefined;
    if (uri && surface) await this.previewSurface({ uri, surface });
  }

  // ---- Dry-run

  async dryRunMachine(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.dryRun))) return;
    const symbols = await this.symbols(doc);
    const machine = await this.pickMachine(symbols, targetField(args, 'machine'));
    if (!machine) return;
    const name = typeof machine === 'string' ? machine : machine.name;
    const input = await this.pickDryRunInput(doc, name, typeof machine === 'string' ? [] : machineEvents(machine));
    if (!input) return;
    const dryArgs: DryRunArgs = { uri: doc.uri.toString(), machine: name, ...input };
    const result = await this.send(ServerCommand.dryRun, dryArgs, `dry-running ${name}`);
    if (!result) return;
    this.lastDryRun.set(doc.uri.toString(), result);
    this.decorations.set(doc.uri, dryRunHints(symbols, result));
    await this.diagram.refresh(doc.uri);
    await this.refreshPreview(doc.uri.toString());
    void vscode.window.showInformationMessage(`Capsulang: ${dryRunSummary(result)}`, 'Show Diagram').then((pick) => {
      if (pick) void this.showMachineDiagram({ uri: doc.uri.toString(), machine: result.machine });
    });
  }

  /** Events picked one by one, or a scenario file for the machine. */
  private async pickDryRunInput(
    doc: vscode.TextDocument,
    machine: string,
    events: string[],
  ): Promise<{ events: EventInput[] } | { scenario: string } | undefined> {
    const scenarios = await findScenarios(doc, machine);
    type Item = vscode.QuickPickItem & { scenario?: vscode.Uri };
    const byHand: Item = { label: '$(list-ordered) Pick events…' };
    if (events.length > 0) byHand.detail = `Events: ${events.join(', ')}`;
    const items: Item[] = [byHand];
    for (const s of scenarios) {
      const item: Item = { label: `$(file) ${vscode.workspace.asRelativePath(s.uri)}`, scenario: s.uri };
      if (s.description !== undefined) item.detail = s.description;
      items.push(item);
    }
    const pick = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { title: `Capsulang: dry-run ${machine} with…` });
    if (!pick) return undefined;
    if (pick.scenario) return { scenario: pick.scenario.toString() };
    const chosen = await pickEvents(machine, events);
    return chosen && { events: chosen };
  }

  async clearDryRunResults(args?: unknown): Promise<void> {
    const uri = targetUri(args) ?? vscode.window.activeTextEditor?.document.uri.toString();
    if (uri) {
      this.lastDryRun.delete(uri);
      this.decorations.clear(vscode.Uri.parse(uri, true));
    } else {
      this.lastDryRun.clear();
      this.decorations.clear();
    }
    await this.diagram.refresh();
  }

  // ---- Compile

  async compileModule(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.compile))) return;
    const config = vscode.workspace.getConfiguration('capsulang');
    const targets = config.get<string[]>('compile.targets', [...compileTargets]).filter((t) => typeof t === 'string' && t !== '');
    const target =
      targetField(args, 'target') ??
      (targets.length === 1 ? targets[0] : await vscode.window.showQuickPick(targets, { title: 'Capsulang: compile for which target?' }));
    if (!target) return;
    const r = await this.send(ServerCommand.compile, { uri: doc.uri.toString(), target }, `compiling for ${target}`);
    if (!r) return;
    const file = vscode.workspace.asRelativePath(doc.uri);
    this.results.appendLine(`== compile ${file} --target ${target}: ${r.artifacts.length} artefact(s)`);
    for (const u of r.unsupported) {
      const where = u.range ? `${file}:${u.range.start.line + 1}:${u.range.start.character + 1}: ` : '';
      this.results.appendLine(`${where}not compiled: ${u.declaration ? `${u.declaration}: ` : ''}${u.feature}`);
    }
    const open = config.get<boolean>('compile.openArtifact', true);
    const stem = path.posix.basename(doc.uri.path).replace(/\.caps$/, '');
    const dir =
      doc.uri.scheme === 'file' ? vscode.Uri.joinPath(doc.uri, '..') : vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const saved: vscode.Uri[] = [];
    for (const a of r.artifacts) {
      const name = a.name || `${stem}${targetExtension[target] ?? `.${target}`}`;
      if (a.uri !== undefined) {
        const uri = vscode.Uri.parse(a.uri, true);
        saved.push(uri);
        if (open) await vscode.commands.executeCommand('vscode.open', uri, { preview: false, viewColumn: vscode.ViewColumn.Beside });
      } else if (a.text !== undefined) {
        if (open) await openUntitled(vscode.Uri.joinPath(dir, name), a.text);
      } else if (a.base64 !== undefined) {
        // Binary: written only where the user says.
        const to = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(dir, name), title: `Save the ${target} artefact` });
        if (!to) continue;
        await vscode.workspace.fs.writeFile(to, Buffer.from(a.base64, 'base64'));
        saved.push(to);
        if (open) await vscode.commands.executeCommand('vscode.open', to, { preview: false, viewColumn: vscode.ViewColumn.Beside });
      }
    }
    const left = r.unsupported.length > 0 ? ` ${r.unsupported.length} declaration(s) were left out.` : '';
    const where = saved.length > 0 ? `: ${saved.map((u) => vscode.workspace.asRelativePath(u)).join(', ')}` : '.';
    const buttons = r.unsupported.length > 0 ? ['Show Details'] : [];
    const show = r.unsupported.length > 0 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(`Capsulang: compiled ${file} for ${target}${where}${left}`, ...buttons).then((pick) => {
      if (pick) this.results.show(true);
    });
  }

  // ---- Diagram

  async showMachineDiagram(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.visualize))) return;
    let machine = targetField(args, 'machine');
    if (!machine) {
      const all = machines(await this.symbols(doc));
      if (all.length > 1) {
        const pick = await vscode.window.showQuickPick(
          [{ label: 'All machines', machine: undefined as string | undefined }, ...all.map((m) => ({ label: m.name, machine: m.name as string | undefined }))],
          { title: 'Capsulang: diagram of which machine?' },
        );
        if (!pick) return;
        machine = pick.machine;
      } else {
        machine = all[0]?.name;
      }
    }
    const target: DiagramTarget = { uri: doc.uri, machine, kind: 'machine' };
    const outcome = await this.loadDiagramOutcome(target);
    if (outcome.kind !== 'ok') {
      this.unwrap(outcome);
      return;
    }
    await this.diagram.show(target, outcome.value);
  }

  /** Loads a diagram for the panel (errors become the panel's text). */
  async loadDiagram(t: DiagramTarget): Promise<DiagramContent> {
    const o = await this.loadDiagramOutcome(t);
    return o.kind === 'ok' ? o.value : { error: o.message };
  }

  private async loadDiagramOutcome(t: DiagramTarget): Promise<Outcome<DiagramContent>> {
    const args: ServerCommandArgs['capsulang.visualize'] = { uri: t.uri.toString(), kind: t.kind as DiagramKind };
    if (t.machine) args.machine = t.machine;
    const o = await runServerCommand(this.server.transport, ServerCommand.visualize, args);
    if (o.kind !== 'ok') return o;
    const last = this.lastDryRun.get(t.uri.toString());
    const path = pathOf(last && (!t.machine || last.machine === t.machine) ? last : undefined);
    const diagrams = highlightPath(o.value.mermaid, path, last?.machine);
    const name = t.machine ?? (diagrams.length === 1 ? diagrams[0]?.title : undefined) ?? vscode.workspace.asRelativePath(t.uri);
    return {
      kind: 'ok',
      value: {
        sources: diagrams.map((d) => d.source),
        title: `${name} — ${t.kind === 'machine' ? 'states' : 'effects'}`,
        path,
      },
    };
  }

  // ---- Propose / assess / commit / rollback

  async proposeChange(args?: unknown): Promise<ProposeResult | undefined> {
    const doc = await this.document(args);
    if (!doc) return undefined;
    if (!(await this.available(ServerCommand.propose))) return undefined;
    const reason = await vscode.window.showInputBox({
      title: 'Capsulang: propose this version as a change',
      prompt: 'Why is this change proposed? (optional)',
      placeHolder: 'e.g. route refunds above 500 through the adjuster',
    });
    if (reason === undefined) return undefined;
    const pargs: ServerCommandArgs['capsulang.propose'] = { uri: doc.uri.toString() };
    if (reason.trim()) pargs.reason = reason.trim();
    const r = await this.send(ServerCommand.propose, pargs, 'proposing the change');
    if (!r) return undefined;
    this.proposals.set(doc.uri.toString(), { result: r, version: doc.version });
    const hash = r.candidateHash ? ` (candidate ${shortHash(r.candidateHash)})` : '';
    void vscode.window.showInformationMessage(`Capsulang: proposal ${r.proposal} created${hash}.`, 'Assess').then((pick) => {
      if (pick) void this.assessChange({ uri: doc.uri.toString() });
    });
    return r;
  }

  /** The document's proposal, proposing one first if the user agrees. */
  private async proposalFor(doc: vscode.TextDocument): Promise<Proposal | undefined> {
    const existing = this.proposals.get(doc.uri.toString());
    if (existing && existing.version === doc.version) return existing;
    if (!(await this.available(ServerCommand.propose))) return undefined;
    if (existing) {
      const again = await vscode.window.showInformationMessage(
        `Capsulang: ${vscode.workspace.asRelativePath(doc.uri)} changed since proposal ${existing.result.proposal}. Propose the current version instead?`,
        'Propose Current Version',
        `Keep ${existing.result.proposal}`,
      );
      if (again === undefined) return undefined;
      if (again !== 'Propose Current Version') return existing;
      const r = await this.proposeChange({ uri: doc.uri.toString() });
      return r && this.proposals.get(doc.uri.toString());
    }
    const pick = await vscode.window.showInformationMessage(
      `Capsulang: ${vscode.workspace.asRelativePath(doc.uri)} has no proposed change yet. Propose the current version?`,
      'Propose',
    );
    if (pick !== 'Propose') return undefined;
    const r = await this.proposeChange({ uri: doc.uri.toString() });
    return r && this.proposals.get(doc.uri.toString());
  }

  async assessChange(args?: unknown): Promise<AssessResult | undefined> {
    const doc = await this.document(args);
    if (!doc) return undefined;
    if (!(await this.available(ServerCommand.assess))) return undefined;
    const p = await this.proposalFor(doc);
    if (!p) return undefined;
    const a = await this.send(ServerCommand.assess, { uri: doc.uri.toString(), proposal: p.result.proposal }, 'assessing the change');
    if (!a) return undefined;
    p.assessment = a;
    await this.showAssessment(doc, a);
    return a;
  }

  private async showAssessment(doc: vscode.TextDocument, a: AssessResult): Promise<void> {
    const file = vscode.workspace.asRelativePath(doc.uri);
    await this.views.showMarkdown(`proposals/${a.proposal}/assessment`, renderAssessment(a, file));
    if (a.parentText !== undefined && a.candidateText !== undefined) {
      const base = path.posix.basename(doc.uri.path);
      const left = this.views.set(`proposals/${a.proposal}/parent/${base}`, a.parentText);
      const right = this.views.set(`proposals/${a.proposal}/candidate/${base}`, a.candidateText);
      await vscode.commands.executeCommand('vscode.diff', left, right, `${base}: committed ↔ proposal ${a.proposal}`, {
        preview: true,
        viewColumn: vscode.ViewColumn.Beside,
      });
    } else if (a.diff !== undefined) {
      const uri = this.views.set(`proposals/${a.proposal}/changes.diff`, a.diff);
      const d = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(d, 'diff'), {
        preview: true,
        viewColumn: vscode.ViewColumn.Beside,
      });
    }
  }

  async commitChange(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.commit))) return;
    // Assess right before committing: the assessment shown is what the user approves.
    const a = await this.assessChange({ uri: doc.uri.toString() });
    if (!a) return;
    if (a.verdict === 'fail') {
      void vscode.window.showErrorMessage(
        `Capsulang: proposal ${a.proposal} failed its assessment and cannot be committed. See the assessment for the findings.`,
      );
      return;
    }
    if (a.verdict === 'incomplete') {
      void vscode.window.showErrorMessage(
        `Capsulang: proposal ${a.proposal} lacks evidence its module's governance requires, and no approval can stand in for it. Supply the evidence the findings name, then assess again.`,
      );
      return;
    }
    const ok = await vscode.window.showWarningMessage(commitQuestion(a), { modal: true }, 'Commit');
    if (ok !== 'Commit') return;
    const cargs: ServerCommandArgs['capsulang.commit'] = { uri: doc.uri.toString(), proposal: a.proposal };
    if (a.verdict === 'needs-approval') {
      // The change needs a named approval (e.g. it expands authority); the
      // server records who approved it in the evolution ledger.
      const who = await vscode.window.showInputBox({
        title: 'Capsulang: approval required',
        prompt: 'Approve as ROLE:name (e.g. SecurityOwner:alice), or just your name when any approver will do',
        validateInput: (v) => (v.trim() ? undefined : 'Enter an approval'),
      });
      if (!who) return;
      cargs.approve = [who.trim()];
    }
    const r = await this.send(ServerCommand.commit, cargs, 'committing the change');
    if (!r) return;
    this.proposals.delete(doc.uri.toString());
    void vscode.window.showInformationMessage(`Capsulang: committed proposal ${a.proposal} as ${shortHash(r.commit)}.${r.message ? ` ${r.message}` : ''}`);
  }

  async rollbackChange(args?: unknown): Promise<void> {
    const doc = await this.document(args);
    if (!doc) return;
    if (!(await this.available(ServerCommand.rollback))) return;
    const file = vscode.workspace.asRelativePath(doc.uri);
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Roll back the last commit', detail: `Return ${file} to the parent of its last commit`, specific: false },
        { label: 'Roll back to a commit…', detail: 'Enter the commit to return to', specific: true },
      ],
      { title: `Capsulang: roll back ${file}` },
    );
    if (!pick) return;
    const rargs: ServerCommandArgs['capsulang.rollback'] = { uri: doc.uri.toString() };
    if (pick.specific) {
      const to = await vscode.window.showInputBox({ title: 'Capsulang: roll back to commit', prompt: 'Commit (hash or id)', validateInput: (v) => (v.trim() ? undefined : 'Enter a commit') });
      if (!to) return;
      rargs.to = to.trim();
    }
    const ok = await vscode.window.showWarningMessage(
      `Roll back ${file}${rargs.to ? ` to ${rargs.to}` : ' to the parent of its last commit'}? The rollback is recorded.`,
      { modal: true },
      'Roll Back',
    );
    if (ok !== 'Roll Back') return;
    const r = await this.send(ServerCommand.rollback, rargs, 'rolling back');
    if (!r) return;
    this.proposals.delete(doc.uri.toString());
    void vscode.window.showInformationMessage(`Capsulang: rolled back to ${shortHash(r.commit)}.${r.message ? ` ${r.message}` : ''}`);
  }

  // ---- Explain

  async explainDiagnostic(args?: unknown): Promise<void> {
    let code = explainCodeArg(args);
    if (!code) {
      if (!(await this.available(ServerCommand.explain))) return;
      code = await this.pickCode();
    }
    if (!code) return;
    const o = await runServerCommand(this.server.transport, ServerCommand.explain, { code });
    if (o.kind === 'ok') {
      await this.views.showMarkdown(`explain/${code}`, renderExplain(o.value));
      return;
    }
    const docs = documentationFor(code);
    if (o.kind === 'unsupported' && docs) {
      const pick = await vscode.window.showInformationMessage(`Capsulang: ${o.message}`, 'Open Documentation');
      if (pick) void vscode.env.openExternal(docs);
      return;
    }
    this.unwrap(o);
  }

  private async pickCode(): Promise<string | undefined> {
    const doc = vscode.window.activeTextEditor?.document;
    const codes = new Map<string, string>();
    if (doc) {
      for (const d of vscode.languages.getDiagnostics(doc.uri)) {
        const c = diagnosticCode(d);
        if (c && !codes.has(c)) codes.set(c, d.message);
      }
    }
    const enter = { label: '$(edit) Enter a code…', code: undefined as string | undefined };
    let code: string | undefined;
    if (codes.size > 0) {
      const pick = await vscode.window.showQuickPick(
        [...[...codes].map(([c, m]) => ({ label: c, detail: m, code: c as string | undefined })), enter],
        { title: 'Capsulang: explain which diagnostic code?' },
      );
      if (!pick) return undefined;
      code = pick.code;
    }
    if (!code) {
      code = await vscode.window.showInputBox({
        title: 'Capsulang: explain a diagnostic code',
        placeHolder: 'E_UNKNOWN_STATE',
        validateInput: (v) => (DIAGNOSTIC_CODE.test(v.trim().toUpperCase()) ? undefined : 'A code like E_UNKNOWN_STATE or W_UNUSED'),
      });
      code = code?.trim().toUpperCase();
    }
    return code;
  }

  // ---- Debug

  async showServerDocumentText(): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== LANGUAGE_ID) {
      void vscode.window.showInformationMessage('Capsulang: open a .caps file first.');
      return;
    }
    let raw: unknown;
    try {
      raw = await this.server.transport.sendRequest('capsulang/debug.documentText', { textDocument: { uri: doc.uri.toString() } });
    } catch (e) {
      void vscode.window.showErrorMessage(`Capsulang: capsulang/debug.documentText failed: ${errorText(e)}`);
      return;
    }
    const r = raw as { text?: unknown; version?: unknown } | null;
    if (typeof r?.text !== 'string') {
      void vscode.window.showErrorMessage('Capsulang: the server answered capsulang/debug.documentText without a text.');
      return;
    }
    const version = typeof r.version === 'number' ? r.version : undefined;
    if (r.text === doc.getText()) {
      void vscode.window.showInformationMessage(`Capsulang: the server's copy matches the editor (server version ${version ?? '?'}, editor version ${doc.version}).`);
      return;
    }
    const base = path.posix.basename(doc.uri.path);
    const server = this.views.set(`server/${base}`, r.text);
    await vscode.commands.executeCommand('vscode.diff', server, doc.uri, `${base}: server copy (v${version ?? '?'}) ↔ editor (v${doc.version})`);
  }
}

// ---- small helpers

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function shortHash(h: string): string {
  const m = /^(sha256:)?([0-9a-f]{12})[0-9a-f]{20,}$/i.exec(h);
  return m ? `${m[1] ?? ''}${m[2] ?? ''}` : h;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The uri of a lens's TargetArgs, or of a vscode.Uri passed by a menu. */
function targetUri(args: unknown): string | undefined {
  if (args instanceof vscode.Uri) return args.toString();
  const u = asRecord(args)?.['uri'];
  return typeof u === 'string' ? u : undefined;
}

function targetField(args: unknown, key: keyof TargetArgs | 'target'): string | undefined {
  const v = asRecord(args)?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function explainCodeArg(args: unknown): string | undefined {
  if (typeof args === 'string' && DIAGNOSTIC_CODE.test(args)) return args;
  const c = asRecord(args)?.['code'];
  return typeof c === 'string' && DIAGNOSTIC_CODE.test(c) ? c : undefined;
}

export function diagnosticCode(d: vscode.Diagnostic): string | undefined {
  const c = typeof d.code === 'object' ? d.code.value : d.code;
  return typeof c === 'string' && DIAGNOSTIC_CODE.test(c) ? c : undefined;
}

/** The documentation link the server attached to a diagnostic with this code. */
function documentationFor(code: string): vscode.Uri | undefined {
  for (const [, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (typeof d.code === 'object' && d.code.value === code) return d.code.target;
    }
  }
  return undefined;
}

/** Scenario files in the workspace for this machine. */
async function findScenarios(doc: vscode.TextDocument, machine: string): Promise<Array<{ uri: vscode.Uri; description?: string }>> {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const pattern = folder ? new vscode.RelativePattern(folder, '**/scenarios/*.json') : '**/scenarios/*.json';
  const files = await vscode.workspace.findFiles(pattern, '**/node_modules/**', 200);
  const out: Array<{ uri: vscode.Uri; description?: string }> = [];
  for (const uri of files) {
    try {
      const s = parseScenario(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
      if (s.machine !== machine) continue;
      out.push(s.description === undefined ? { uri } : { uri, description: s.description });
    } catch {
      // not a scenario
    }
  }
  return out.sort((a, b) => a.uri.path.localeCompare(b.uri.path));
}

/** Picks events one at a time, each with a JSON payload. */
async function pickEvents(machine: string, events: string[]): Promise<EventInput[] | undefined> {
  const chosen: EventInput[] = [];
  for (;;) {
    type Item = vscode.QuickPickItem & { event?: string; done?: boolean };
    const items: Item[] = [
      ...(chosen.length > 0 ? [{ label: `$(play) Dry-run ${chosen.length} event(s)`, detail: chosen.map((e) => e.event).join(' → '), done: true }] : []),
      ...events.map((e) => ({ label: e, event: e })),
      { label: '$(edit) Another event…', event: '' },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: `Capsulang: dry-run ${machine}: event ${chosen.length + 1}`,
      placeHolder: chosen.length === 0 ? 'The first event to send' : 'The next event, or run',
    });
    if (!pick) return undefined;
    if (pick.done) return chosen;
    let event = pick.event;
    if (event === '') {
      event = (await vscode.window.showInputBox({ title: 'Event name', validateInput: (v) => (/^\S+$/.test(v) ? undefined : 'An event name') }))?.trim();
      if (!event) continue;
    }
    if (event === undefined) continue;
    const payload = await vscode.window.showInputBox({
      title: `Capsulang: payload of ${event}`,
      prompt: 'A JSON object with the event fields (empty for none)',
      value: '{}',
      validateInput: (v) => (payloadOf(v) === undefined ? 'A JSON object, e.g. {"amount_cents": 45000}' : undefined),
    });
    if (payload === undefined) continue;
    chosen.push({ event, payload: payloadOf(payload) ?? {} });
  }
}

function payloadOf(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}


/** Opens (or refreshes) an untitled document that saves to `target`, holding `text`. */
async function openUntitled(target: vscode.Uri, text: string): Promise<void> {
  const uri = target.with({ scheme: 'untitled' });
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
  await vscode.workspace.applyEdit(edit);
  await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}
