// Entry point: wires the language client, the commands, code lenses,
// dry-run decorations and the diagram panel together.

import * as vscode from 'vscode';

import { ClientCommand, LANGUAGE_ID, type ClientCommandId } from './ids';
import { ServerCommand } from './protocol';
import { ServerManager } from './server';
import { Actions } from './ui/actions';
import { DryRunDecorations } from './ui/decorations';
import { DiagramPanel } from './ui/diagram';
import { SurfacePreview } from './ui/preview';
import { ExplainActionProvider, LensProvider } from './ui/providers';
import { VirtualDocuments } from './ui/views';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const manager = new ServerManager();
  server = manager;
  const views = new VirtualDocuments();
  const decorations = new DryRunDecorations(() =>
    vscode.workspace.getConfiguration('capsulang').get<boolean>('dryRun.inlineResults', true),
  );
  // The panel loads diagrams through the actions, which know the last dry-run.
  let actions: Actions | undefined;
  const diagram = new DiagramPanel(context.extensionUri, (t) =>
    actions ? actions.loadDiagram(t) : Promise.resolve({ error: 'Capsulang is not active.' }),
  );
  const preview = new SurfacePreview();
  const a = new Actions(manager, views, decorations, diagram, preview);
  actions = a;
  const lenses = new LensProvider(manager);

  const handlers: Record<ClientCommandId, (...args: unknown[]) => unknown> = {
    [ClientCommand.runExamples]: (x) => a.runExamples(x),
    [ClientCommand.dryRunMachine]: (x) => a.dryRunMachine(x),
    [ClientCommand.compileModule]: (x) => a.compileModule(x),
    [ClientCommand.showMachineDiagram]: (x) => a.showMachineDiagram(x),
    [ClientCommand.proposeChange]: (x) => a.proposeChange(x),
    [ClientCommand.assessChange]: (x) => a.assessChange(x),
    [ClientCommand.commitChange]: (x) => a.commitChange(x),
    [ClientCommand.rollbackChange]: (x) => a.rollbackChange(x),
    [ClientCommand.explainDiagnostic]: (x) => a.explainDiagnostic(x),
    [ClientCommand.clearDryRunResults]: (x) => a.clearDryRunResults(x),
    [ClientCommand.restartServer]: () => manager.restart(),
    [ClientCommand.showServerOutput]: () => manager.output.show(true),
    [ClientCommand.showServerDocumentText]: () => a.showServerDocumentText(),
  };

  // The server's own "Run examples" lenses run capsulang.run: show their results.
  manager.interceptors.set(ServerCommand.run, (args) => a.runExamples(args[0]));
  // Its "Preview surface" lenses run capsulang.previewSurface: show the surface.
  manager.interceptors.set(ServerCommand.previewSurface, (args) => a.previewSurface(args[0]));
  // Its "Dry-run" lenses run capsulang.dryRun: an open surface preview then
  // shows the new data.
  manager.interceptors.set(ServerCommand.dryRun, async (args, next) => {
    const result = await next();
    const uri = (args[0] as { uri?: unknown } | undefined)?.uri;
    await a.refreshPreview(typeof uri === 'string' ? uri : undefined);
    return result;
  });

  const selector: vscode.DocumentSelector = [
    { scheme: 'file', language: LANGUAGE_ID },
    { scheme: 'untitled', language: LANGUAGE_ID },
  ];
  context.subscriptions.push(
    views,
    decorations,
    diagram,
    preview,
    a,
    lenses,
    ...Object.entries(handlers).map(([id, f]) => vscode.commands.registerCommand(id, f)),
    vscode.languages.registerCodeLensProvider(selector, lenses),
    vscode.languages.registerCodeActionsProvider(selector, new ExplainActionProvider(manager), ExplainActionProvider.metadata),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (d.languageId === LANGUAGE_ID && diagram.shows(d.uri)) void diagram.refresh(d.uri);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('capsulang.server')) void manager.restart();
      if (e.affectsConfiguration('capsulang.dryRun.inlineResults')) decorations.refresh();
    }),
  );

  await manager.start();
}

export async function deactivate(): Promise<void> {
  const s = server;
  server = undefined;
  await s?.shutdown();
}
