// Sending the workspace commands to the server. Pure: the transport is an
// interface that vscode-languageclient's LanguageClient (in the extension)
// and a vscode-jsonrpc connection (in the tests) both satisfy.

import {
  parseResult,
  ResultShapeError,
  serverCommandTitle,
  type ServerCommandArgs,
  type ServerCommandName,
  type ServerCommandResults,
} from './protocol';

/** The parts of the server's capabilities the client reads. */
export interface ServerCapabilitiesLike {
  executeCommandProvider?: { commands?: readonly string[] } | undefined;
  codeLensProvider?: unknown;
  inlayHintProvider?: unknown;
  semanticTokensProvider?: unknown;
}

export interface ServerInfo {
  name: string;
  version?: string | undefined;
}

/** A running (or not running) language server, as the commands need it. */
export interface CommandTransport<Token = never> {
  /** The capabilities from the initialize result; undefined while no server runs. */
  capabilities(): ServerCapabilitiesLike | undefined;
  serverInfo(): ServerInfo | undefined;
  /**
   * Commands the server registered dynamically (client/registerCapability
   * for workspace/executeCommand), when the host can tell.
   */
  dynamicCommands?(): Promise<readonly string[]>;
  /** Token: the host's cancellation token (vscode's, or vscode-jsonrpc's in tests). */
  sendRequest(method: string, params: unknown, token?: Token): Promise<unknown>;
}

export type Outcome<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'unsupported'; message: string }
  | { kind: 'notRunning'; message: string }
  | { kind: 'failed'; message: string; code?: number };

/** JSON-RPC error codes the client treats specially. */
export const ErrorCodes = {
  MethodNotFound: -32601,
  InvalidParams: -32602,
  ServerNotInitialized: -32002,
  RequestCancelled: -32800,
} as const;

/** The executeCommand request that runs one server command. */
export function executeCommandParams<K extends ServerCommandName>(
  name: K,
  args: ServerCommandArgs[K],
): { command: K; arguments: [ServerCommandArgs[K]] } {
  return { command: name, arguments: [args] };
}

/** Every command the server supports now, statically or dynamically. */
export async function supportedCommands<Token>(t: CommandTransport<Token>): Promise<Set<string>> {
  const caps = t.capabilities();
  const out = new Set<string>(caps?.executeCommandProvider?.commands ?? []);
  if (caps && t.dynamicCommands) {
    for (const c of await t.dynamicCommands()) out.add(c);
  }
  return out;
}

export function describeServer(info: ServerInfo | undefined): string {
  if (!info) return 'the Capsulang language server';
  return info.version ? `${info.name} ${info.version}` : info.name;
}

export function unsupportedMessage(name: ServerCommandName, info: ServerInfo | undefined): string {
  return (
    `"${serverCommandTitle[name]}" is not supported by this server version ` +
    `(${describeServer(info)} does not provide ${name}). Update caps to a version that does.`
  );
}

export const notRunningMessage =
  'The Capsulang language server is not running. Check the "Capsulang Language Server" output, or run "Capsulang: Restart Language Server".';

interface ErrorLike {
  code?: unknown;
  message?: unknown;
}

function errorParts(e: unknown): { code: number | undefined; message: string } {
  if (typeof e === 'object' && e !== null) {
    const { code, message } = e as ErrorLike;
    return { code: typeof code === 'number' ? code : undefined, message: typeof message === 'string' ? message : String(e) };
  }
  return { code: undefined, message: String(e) };
}

const unknownCommandText = /unknown command|unsupported command|command not (found|supported)|no such command|method not supported/i;
const connectionGoneText = /connection (is |got )?(closed|disposed)|pending response rejected|client is not running|stream (was )?(closed|destroyed)/i;

/**
 * Runs a server command if the server advertises it. Never throws: every
 * failure comes back as an Outcome with a message for the user.
 */
export async function runServerCommand<K extends ServerCommandName, Token = never>(
  t: CommandTransport<Token>,
  name: K,
  args: ServerCommandArgs[K],
  token?: Token,
): Promise<Outcome<ServerCommandResults[K]>> {
  if (!t.capabilities()) return { kind: 'notRunning', message: notRunningMessage };
  let supported: Set<string>;
  try {
    supported = await supportedCommands(t);
  } catch (e) {
    return { kind: 'failed', message: `could not read the server's commands: ${errorParts(e).message}` };
  }
  if (!supported.has(name)) return { kind: 'unsupported', message: unsupportedMessage(name, t.serverInfo()) };
  let raw: unknown;
  try {
    raw = await t.sendRequest('workspace/executeCommand', executeCommandParams(name, args), token);
  } catch (e) {
    return classifyError(name, e, t.serverInfo());
  }
  try {
    return { kind: 'ok', value: parseResult[name](raw) as ServerCommandResults[K] };
  } catch (e) {
    if (e instanceof ResultShapeError) return { kind: 'failed', message: e.message };
    throw e;
  }
}

/** Maps a failed executeCommand request to an Outcome. */
export function classifyError(name: ServerCommandName, e: unknown, info: ServerInfo | undefined): Outcome<never> {
  const { code, message } = errorParts(e);
  if (code === ErrorCodes.MethodNotFound || unknownCommandText.test(message)) {
    return { kind: 'unsupported', message: unsupportedMessage(name, info) };
  }
  if (code === ErrorCodes.RequestCancelled) {
    return { kind: 'failed', message: `${serverCommandTitle[name]} was cancelled.`, code };
  }
  if (code === ErrorCodes.ServerNotInitialized || connectionGoneText.test(message)) {
    return { kind: 'notRunning', message: notRunningMessage };
  }
  const out: Outcome<never> = { kind: 'failed', message: `${serverCommandTitle[name]} failed: ${message}` };
  if (code !== undefined) out.code = code;
  return out;
}
