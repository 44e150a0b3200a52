// Client-side providers: code lenses from the server's document symbols,
// and "Explain CODE" actions on Capsulang diagnostics.

import * as vscode from 'vscode';

import { supportedCommands } from '../commands';
import { ClientCommand } from '../ids';
import { fetchSymbols, lensesFor } from '../lenses';
import { ServerCommand, type Range } from '../protocol';
import type { ServerManager } from '../server';
import { diagnosticCode } from './actions';

export class LensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly server: ServerManager) {
    this.subscriptions = [
      this.changed,
      server.onDidChange(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('capsulang.codeLens')) this.changed.fire();
      }),
    ];
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    const config = vscode.workspace.getConfiguration('capsulang', doc);
    if (!config.get<boolean>('codeLens.enabled', true)) return [];
    const caps = this.server.transport.capabilities();
    if (!caps) return [];
    const uri = doc.uri.toString();
    const [symbols, supported, serverLenses] = await Promise.all([
      fetchSymbols(this.server.transport, uri, token).catch(() => []),
      supportedCommands(this.server.transport).catch(() => new Set<string>()),
      caps.codeLensProvider ? fetchServerLenses(this.server, uri, token) : Promise.resolve(undefined),
    ]);
    if (token.isCancellationRequested) return [];
    const showUnsupported = config.get<boolean>('codeLens.showUnsupported', false);
    return lensesFor(uri, symbols, supported, { showUnsupported, serverLenses }).map((l) => {
      const r = l.range;
      const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
      return new vscode.CodeLens(range, { title: l.title, tooltip: l.tooltip, command: l.command, arguments: l.arguments });
    });
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}

/** The server's own lenses (to avoid drawing the same lens twice). */
async function fetchServerLenses(
  server: ServerManager,
  uri: string,
  token: vscode.CancellationToken,
): Promise<Array<{ range: Range; command?: { command: string } }>> {
  try {
    const raw = await server.transport.sendRequest('textDocument/codeLens', { textDocument: { uri } }, token);
    return Array.isArray(raw) ? (raw as Array<{ range: Range; command?: { command: string } }>) : [];
  } catch {
    return [];
  }
}

export class ExplainActionProvider implements vscode.CodeActionProvider {
  static readonly kind = vscode.CodeActionKind.QuickFix.append('explain');
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [ExplainActionProvider.kind] };

  constructor(private readonly server: ServerManager) {}

  async provideCodeActions(
    _doc: vscode.TextDocument,
    _range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): Promise<vscode.CodeAction[]> {
    if (context.only && !ExplainActionProvider.kind.intersects(context.only)) return [];
    const codes = new Set<string>();
    for (const d of context.diagnostics) {
      const c = d.source === 'capsulang' ? diagnosticCode(d) : undefined;
      if (c) codes.add(c);
    }
    if (codes.size === 0) return [];
    const supported = await supportedCommands(this.server.transport).catch(() => new Set<string>());
    if (!supported.has(ServerCommand.explain)) return [];
    return [...codes].map((code) => {
      const a = new vscode.CodeAction(`Explain ${code}`, ExplainActionProvider.kind);
      a.command = { title: `Explain ${code}`, command: ClientCommand.explainDiagnostic, arguments: [{ code }] };
      return a;
    });
  }
}
