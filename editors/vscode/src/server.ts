// The language client's life: finding caps, starting `caps lsp`, the status
// bar item, the output channels, restarts.

import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
} from 'vscode-languageclient/node';

import type { CommandTransport, ServerCapabilitiesLike, ServerInfo } from './commands';
import { confirmationFor } from './fixes';
import { CAPSULE_CONTRACT_PATTERN, CLIENT_ID, CLIENT_NAME, ClientCommand, InternalCommand, LANGUAGE_ID } from './ids';
import { allServerCommands } from './protocol';
import { statusText } from './render';
import { resolveServerPath } from './serverPath';

type Status = 'starting' | 'running' | 'stopped' | 'missing';

export class ServerManager implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly traceOutput: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the server starts, stops or restarts. */
  readonly onDidChange = this.changed.event;
  private client: LanguageClient | undefined;
  private clientSubscriptions: vscode.Disposable[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];
  /**
   * Client handlers for server commands that VS Code runs on the server's
   * behalf (e.g. a server code lens running capsulang.run): they send the
   * request themselves (or through next) and show the result, which would
   * otherwise be lost.
   */
  readonly interceptors = new Map<string, (args: unknown[], next: () => Promise<unknown>) => Promise<unknown>>();
  /** Serialises start/stop/restart. */
  private queue: Promise<void> = Promise.resolve();

  constructor() {
    this.output = vscode.window.createOutputChannel(CLIENT_NAME);
    this.traceOutput = vscode.window.createOutputChannel('Capsulang Trace');
    this.status = vscode.window.createStatusBarItem('capsulang.status', vscode.StatusBarAlignment.Left, 0);
    this.status.name = 'Capsulang';
    this.status.command = ClientCommand.showServerOutput;
    this.setStatus('stopped');
    this.status.show();
    this.subscriptions.push(
      this.output,
      this.traceOutput,
      this.status,
      this.changed,
      vscode.commands.registerCommand(InternalCommand.applyGuardedFix, applyGuardedFix),
    );
  }

  /** The running client, if any. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** The transport the commands use; it follows restarts. */
  readonly transport: CommandTransport<vscode.CancellationToken> = {
    capabilities: (): ServerCapabilitiesLike | undefined => this.running?.initializeResult?.capabilities,
    serverInfo: (): ServerInfo | undefined => this.running?.initializeResult?.serverInfo,
    dynamicCommands: async (): Promise<readonly string[]> => {
      // vscode-languageclient registers a VS Code command for every command
      // the server advertises, statically or through client/registerCapability.
      const all = await vscode.commands.getCommands(true);
      return all.filter((c) => (allServerCommands as readonly string[]).includes(c));
    },
    sendRequest: async (method: string, params: unknown, token?: vscode.CancellationToken): Promise<unknown> => {
      const c = this.running;
      if (!c) throw new Error('client is not running');
      return token ? c.sendRequest(method, params, token) : c.sendRequest(method, params);
    },
  };

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  private enqueue(f: () => Promise<void>): Promise<void> {
    const next = this.queue.then(f, f);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private setStatus(s: Status): void {
    const info = this.running?.initializeResult?.serverInfo;
    const { text, tooltip } = statusText(s, info);
    this.status.text = text;
    this.status.tooltip = tooltip;
    this.status.backgroundColor =
      s === 'stopped' || s === 'missing' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  private async doStart(): Promise<void> {
    const config = vscode.workspace.getConfiguration('capsulang');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const found = resolveServerPath({
      setting: config.get<string>('server.path', 'caps'),
      env: process.env,
      platform: process.platform,
      home: os.homedir(),
      workspaceFolder: folder,
    });
    if (found.kind === 'missing') {
      this.setStatus('missing');
      this.output.appendLine(found.message);
      void vscode.window.showErrorMessage(found.message, 'Open Settings', 'Show Output').then((pick) => {
        if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'capsulang.server.path');
        if (pick === 'Show Output') this.output.show(true);
      });
      this.changed.fire();
      return;
    }
    const args = ['lsp', ...config.get<string[]>('server.args', []).filter((a) => typeof a === 'string')];
    this.output.appendLine(`Starting ${found.path} ${args.join(' ')}`);
    // No `transport`: with TransportKind.stdio the client would append
    // --stdio to the arguments, which `caps lsp` rejects. Without it the
    // client talks over the process's stdin/stdout all the same.
    const serverOptions: ServerOptions = {
      command: found.path,
      args,
      options: folder ? { cwd: folder } : {},
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: LANGUAGE_ID },
        { scheme: 'untitled', language: LANGUAGE_ID },
        // Capsule contracts (docs/capsule.md): diagnostics, hovers and the
        // "Compile capsule" lens come from the same server.
        { scheme: 'file', pattern: CAPSULE_CONTRACT_PATTERN },
      ],
      outputChannel: this.output,
      traceOutputChannel: this.traceOutput,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        ...guardMiddleware,
        executeCommand: async (command, args: unknown[], next) => {
          const handler = this.interceptors.get(command);
          return handler ? handler(args, async () => next(command, args)) : next(command, args);
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.client = client;
    this.clientSubscriptions.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) this.setStatus('running');
        else if (e.newState === State.Starting) this.setStatus('starting');
        else this.setStatus('stopped');
        this.changed.fire();
      }),
    );
    this.setStatus('starting');
    try {
      await client.start();
      this.setStatus('running');
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.output.appendLine(`The language server failed to start: ${msg}`);
      this.setStatus('stopped');
      void vscode.window.showErrorMessage(`Capsulang: the language server failed to start: ${msg}`, 'Show Output').then((pick) => {
        if (pick) this.output.show(true);
      });
    }
    this.changed.fire();
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const d of this.clientSubscriptions.splice(0)) d.dispose();
    if (client) {
      try {
        if (client.needsStop()) await client.stop(2000);
      } catch (e) {
        this.output.appendLine(`Stopping the language server: ${e instanceof Error ? e.message : String(e)}`);
      }
      try {
        await client.dispose(2000);
      } catch {
        // already stopped
      }
    }
    this.setStatus('stopped');
    this.changed.fire();
  }

  /** Stops the server, then frees everything (the output channel last, so the stop can still log). */
  async shutdown(): Promise<void> {
    await this.stop();
    this.dispose();
  }

  dispose(): void {
    for (const d of this.clientSubscriptions.splice(0)) d.dispose();
    void this.client?.dispose(500).catch(() => undefined);
    this.client = undefined;
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}

/**
 * Quick fixes that widen authority ("... [expands-authority]") are not
 * applied directly: their edit moves into a command that asks first.
 */
const guardMiddleware: Middleware = {
  provideCodeActions: async (document, range, context, token, next) => {
    const actions = await next(document, range, context, token);
    if (!actions) return actions;
    return actions.map((a) => {
      if (!(a instanceof vscode.CodeAction) || !a.edit) return a;
      const question = confirmationFor(a.title);
      if (!question) return a;
      const guarded = new vscode.CodeAction(a.title, a.kind);
      if (a.diagnostics) guarded.diagnostics = a.diagnostics;
      guarded.isPreferred = false;
      guarded.command = { title: a.title, command: InternalCommand.applyGuardedFix, arguments: [a.edit, question] };
      return guarded;
    });
  },
};

async function applyGuardedFix(edit: vscode.WorkspaceEdit, question: string): Promise<void> {
  const pick = await vscode.window.showWarningMessage(question, { modal: true }, 'Apply');
  if (pick !== 'Apply') return;
  if (!(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage('Capsulang: the repair could not be applied (the file changed?).');
  }
}
