// Starting the real `caps lsp` for the wiring tests, connected through
// vscode-jsonrpc the way vscode-languageclient connects to it.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';

import type { CommandTransport } from '../../src/commands';

/** editors/vscode (the package root; tests run from out/test/...). */
export const packageRoot = path.resolve(__dirname, '..', '..', '..');
export const repoRoot = path.resolve(packageRoot, '..', '..');

let built: string | undefined;

/**
 * The caps binary: $CAPS, else one built from this repository with go.
 * Returns undefined (the caller skips) when neither works outside CI.
 */
export function findCaps(): string | undefined {
  const env = process.env['CAPS'];
  if (env) {
    if (!existsSync(env)) throw new Error(`CAPS=${env} does not exist`);
    return path.resolve(env);
  }
  if (built) return built;
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'caps-vscode-')), 'caps');
  const r = spawnSync('go', ['build', '-o', out, './cmd/caps'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status === 0) {
    built = out;
    return out;
  }
  const why = r.error ? r.error.message : r.stderr;
  if (process.env['CI'] === 'true') throw new Error(`no caps binary: set CAPS, or make go build work: ${why}`);
  return undefined;
}

/** What the client tells the server it can do (as vscode-languageclient does, trimmed). */
export const clientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: {
    didChangeWatchedFiles: { dynamicRegistration: true },
    executeCommand: { dynamicRegistration: true },
    workspaceFolders: true,
    symbol: {},
  },
  textDocument: {
    synchronization: { dynamicRegistration: true, didSave: true },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'source', 'source.organizeImports'] } },
      isPreferredSupport: true,
    },
    codeLens: {},
    inlayHint: {},
    semanticTokens: {
      requests: { full: { delta: true } },
      tokenTypes: [],
      tokenModifiers: [],
      formats: ['relative'],
    },
    publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true },
  },
};

export interface Session {
  connection: MessageConnection;
  initialize: InitializeResult;
  transport: CommandTransport;
  /** Diagnostics published so far, by URI (the last set wins). */
  diagnostics: Map<string, PublishDiagnosticsParams>;
  /** Resolves when diagnostics for uri arrive (immediately if they did). */
  waitForDiagnostics(uri: string, timeoutMs?: number): Promise<PublishDiagnosticsParams>;
  /** Requests the server sent to the client, by method. */
  serverRequests: string[];
  open(uri: string, text: string, version?: number): Promise<void>;
  close(): Promise<number | null>;
}

/** Starts caps lsp and initializes it with the repository as the workspace. */
export async function startSession(caps: string, workspace = repoRoot): Promise<Session> {
  const child: ChildProcessWithoutNullStreams = spawn(caps, ['lsp'], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const diagnostics = new Map<string, PublishDiagnosticsParams>();
  const waiters: Array<{ uri: string; resolve: (p: PublishDiagnosticsParams) => void }> = [];
  const serverRequests: string[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    diagnostics.set(p.uri, p);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w && w.uri === p.uri) {
        waiters.splice(i, 1);
        w.resolve(p);
      }
    }
  });
  // What vscode-languageclient answers to the server's own requests.
  connection.onRequest('window/workDoneProgress/create', () => {
    serverRequests.push('window/workDoneProgress/create');
    return null;
  });
  connection.onRequest('client/registerCapability', () => {
    serverRequests.push('client/registerCapability');
    return null;
  });
  connection.onNotification(() => undefined);
  connection.listen();
  const initialize = (await connection.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'capsulang-vscode-tests' },
    rootUri: pathToFileURL(workspace).toString(),
    workspaceFolders: [{ uri: pathToFileURL(workspace).toString(), name: path.basename(workspace) }],
    capabilities: clientCapabilities,
  })) as InitializeResult;
  await connection.sendNotification('initialized', {});
  const transport: CommandTransport = {
    capabilities: () => initialize.capabilities,
    serverInfo: () => initialize.serverInfo,
    sendRequest: (method, params) => connection.sendRequest(method, params),
  };
  return {
    connection,
    initialize,
    transport,
    diagnostics,
    serverRequests,
    waitForDiagnostics(uri, timeoutMs = 10000) {
      const have = diagnostics.get(uri);
      if (have) return Promise.resolve(have);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no diagnostics for ${uri} in ${timeoutMs} ms; server log:\n${stderr}`)), timeoutMs);
        waiters.push({
          uri,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p);
          },
        });
      });
    },
    async open(uri, text, version = 1) {
      diagnostics.delete(uri);
      await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'capsulang', version, text } });
    },
    async close() {
      try {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      } catch {
        // the process may be gone already; it is killed below
      }
      const timer = setTimeout(() => child.kill(), 5000);
      const code = await exited;
      clearTimeout(timer);
      connection.dispose();
      return code;
    },
  };
}

export function fileUri(p: string): string {
  return pathToFileURL(p).toString();
}
