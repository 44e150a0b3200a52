// The day the server implements the workspace commands: a stand-in server
// on a vscode-jsonrpc connection advertises them (statically or through
// client/registerCapability), and the client's requests and result handling
// are checked on the wire.

import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';

import {
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { ExecuteCommandParams, InitializeResult } from 'vscode-languageserver-protocol';

import { runServerCommand, type CommandTransport } from '../../src/commands';
import { allServerCommands, ServerCommand, type ServerCommandArgs, type ServerCommandName } from '../../src/protocol';

const uri = 'file:///work/demo.caps';

const args: { [K in ServerCommandName]: ServerCommandArgs[K] } = {
  'capsulang.run': { uri, mode: 'mock', function: 'too_hot' },
  'capsulang.dryRun': { uri, machine: 'Vent', events: [{ event: 'Open', payload: { percent: 40 } }] },
  'capsulang.compile': { uri, target: 'riscv64' },
  'capsulang.visualize': { uri, kind: 'effects' },
  'capsulang.explain': { code: 'E_UNKNOWN_STATE' },
  'capsulang.propose': { uri },
  'capsulang.assess': { uri, proposal: 'p-7' },
  'capsulang.commit': { uri, proposal: 'p-7' },
  'capsulang.rollback': { uri, to: 'c-3' },
  'capsulang.previewSurface': { uri, surface: 'vent_ui' },
};

/** What the stand-in answers, and what the client must make of it. */
const answers: { [K in ServerCommandName]: { raw: unknown; parsed: unknown } } = {
  'capsulang.run': {
    raw: { passed: 0, failed: 1, examples: [{ function: 'too_hot', call: '(too_hot 36)', expected: 'true', error: 'division by zero', passed: false }] },
    parsed: {
      passed: 0,
      failed: 1,
      examples: [{ function: 'too_hot', call: '(too_hot 36)', expected: 'true', got: null, passed: false, error: 'division by zero' }],
    },
  },
  'capsulang.dryRun': {
    raw: { machine: 'Vent', steps: [{ event: 'Open', from: 'closed', to: 'open', effects: [{ effect: 'mcp.call', target: 'climate.set_vent' }] }] },
    parsed: {
      machine: 'Vent',
      initial: 'closed',
      final: 'open',
      steps: [{ event: 'Open', from: 'closed', to: 'open', accepted: true, effects: [{ effect: 'mcp.call', target: 'climate.set_vent' }] }],
    },
  },
  'capsulang.compile': {
    raw: { target: 'riscv64', artifacts: [{ name: '', text: '.text\n' }, { name: 'demo.bin', base64: 'AGFzbQ==' }], unsupported: null },
    parsed: { target: 'riscv64', artifacts: [{ name: '', text: '.text\n' }, { name: 'demo.bin', base64: 'AGFzbQ==' }], unsupported: [] },
  },
  'capsulang.visualize': { raw: 'flowchart LR\n  a --> b\n', parsed: { mermaid: 'flowchart LR\n  a --> b\n' } },
  'capsulang.explain': {
    raw: { code: 'E_UNKNOWN_STATE', title: 'Unknown state', summary: 'A transition targets a state that does not exist.' },
    parsed: { code: 'E_UNKNOWN_STATE', title: 'Unknown state', summary: 'A transition targets a state that does not exist.' },
  },
  'capsulang.propose': { raw: { proposal: 'p-7', candidateHash: 'sha256:ab' }, parsed: { proposal: 'p-7', candidateHash: 'sha256:ab' } },
  'capsulang.assess': {
    raw: { proposal: 'p-7', verdict: 'warn', findings: [{ severity: 'warning', message: 'gains mcp.call' }], authority: { added: ['mcp.call'] } },
    parsed: {
      proposal: 'p-7',
      verdict: 'warn',
      findings: [{ severity: 'warning', message: 'gains mcp.call' }],
      authority: { added: ['mcp.call'], removed: [] },
    },
  },
  'capsulang.commit': { raw: { commit: 'c-4', proposal: 'p-7' }, parsed: { commit: 'c-4', proposal: 'p-7' } },
  'capsulang.rollback': { raw: { commit: 'c-3' }, parsed: { commit: 'c-3' } },
  'capsulang.previewSurface': {
    raw: {
      surface: 'vent_ui',
      title: 'Vent',
      machine: 'Vent',
      source: 'dry-run',
      state: 'open',
      data: { percent: 40, state: 'open' },
      messages: [{ version: 'v0.9', deleteSurface: { surfaceId: 'vent_ui' } }],
      html: '<section data-a2ui-surface="vent_ui"></section>',
    },
    parsed: {
      surface: 'vent_ui',
      title: 'Vent',
      machine: 'Vent',
      source: 'dry-run',
      state: 'open',
      data: { percent: 40, state: 'open' },
      messages: [{ version: 'v0.9', deleteSurface: { surfaceId: 'vent_ui' } }],
      html: '<section data-a2ui-surface="vent_ui"></section>',
    },
  },
};

interface StandIn {
  client: MessageConnection;
  server: MessageConnection;
  received: ExecuteCommandParams[];
  transport: CommandTransport;
  /** Overrides the answer to the next executeCommand. */
  next: ((p: ExecuteCommandParams) => unknown) | undefined;
}

async function standIn(capabilities: InitializeResult['capabilities'], dynamic: readonly string[] = []): Promise<StandIn> {
  const up = new PassThrough();
  const down = new PassThrough();
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const s: StandIn = {
    client,
    server,
    received: [],
    next: undefined,
    transport: undefined as unknown as CommandTransport,
  };
  server.onRequest('initialize', (): InitializeResult => ({ capabilities, serverInfo: { name: 'caps lsp', version: '9.9.9' } }));
  server.onRequest('workspace/executeCommand', (p: ExecuteCommandParams) => {
    s.received.push(p);
    const override = s.next;
    s.next = undefined;
    if (override) return override(p);
    const name = p.command as ServerCommandName;
    if (!allServerCommands.includes(name)) throw new ResponseError(-32602, `unknown command ${p.command}`);
    return answers[name].raw;
  });
  server.listen();
  client.listen();
  const init = (await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} })) as InitializeResult;
  s.transport = {
    capabilities: () => init.capabilities,
    serverInfo: () => init.serverInfo,
    dynamicCommands: async () => dynamic,
    sendRequest: (method, params) => client.sendRequest(method, params),
  };
  return s;
}

describe('workspace commands on the wire', () => {
  let s: StandIn;

  beforeEach(async () => {
    s = await standIn({ executeCommandProvider: { commands: [...allServerCommands] } });
  });

  afterEach(() => {
    s.client.dispose();
    s.server.dispose();
  });

  for (const name of allServerCommands) {
    it(`${name}: sends one argument object and reads the result`, async () => {
      const o = await runServerCommand(s.transport, name, args[name]);
      assert.deepEqual(s.received, [{ command: name, arguments: [args[name]] }]);
      assert.deepEqual(o, { kind: 'ok', value: answers[name].parsed });
    });
  }

  it('reports a result of the wrong shape, naming the field', async () => {
    s.next = () => ({ machine: 'Vent', steps: [{ event: 'Open', from: 'closed', to: 7 }] });
    const o = await runServerCommand(s.transport, ServerCommand.dryRun, args['capsulang.dryRun']);
    assert.deepEqual(o, {
      kind: 'failed',
      message: 'capsulang.dryRun returned an unexpected result: steps[0].to should be a string',
    });
  });

  it('treats MethodNotFound and "unknown command" errors as unsupported', async () => {
    s.next = () => {
      throw new ResponseError(-32601, 'method not supported: workspace/executeCommand');
    };
    const a = await runServerCommand(s.transport, ServerCommand.compile, args['capsulang.compile']);
    assert.equal(a.kind, 'unsupported');
    assert.match(a.kind === 'unsupported' ? a.message : '', /caps lsp 9\.9\.9 does not provide capsulang\.compile/);
    s.next = () => {
      throw new ResponseError(-32602, 'unknown command capsulang.compile');
    };
    const b = await runServerCommand(s.transport, ServerCommand.compile, args['capsulang.compile']);
    assert.equal(b.kind, 'unsupported');
  });

  it('passes other server errors on with the command title', async () => {
    s.next = () => {
      throw new ResponseError(-32603, 'machine Vent has no event Opne');
    };
    const o = await runServerCommand(s.transport, ServerCommand.dryRun, args['capsulang.dryRun']);
    assert.deepEqual(o, { kind: 'failed', message: 'Dry-run machine failed: machine Vent has no event Opne', code: -32603 });
  });

  it('reports a cancelled request as cancelled', async () => {
    s.next = () => {
      throw new ResponseError(-32800, 'request cancelled');
    };
    const o = await runServerCommand(s.transport, ServerCommand.run, args['capsulang.run']);
    assert.deepEqual(o, { kind: 'failed', message: 'Run examples was cancelled.', code: -32800 });
  });
});

describe('server command support', () => {
  it('lights up commands the server registers dynamically', async () => {
    const s = await standIn({}, [ServerCommand.visualize]);
    try {
      const ok = await runServerCommand(s.transport, ServerCommand.visualize, args['capsulang.visualize']);
      assert.equal(ok.kind, 'ok');
      const no = await runServerCommand(s.transport, ServerCommand.compile, args['capsulang.compile']);
      assert.equal(no.kind, 'unsupported');
      assert.equal(s.received.length, 1);
    } finally {
      s.client.dispose();
      s.server.dispose();
    }
  });

  it('only partly supported: the rest stays unsupported', async () => {
    const s = await standIn({ executeCommandProvider: { commands: [ServerCommand.run] } });
    try {
      assert.equal((await runServerCommand(s.transport, ServerCommand.run, args['capsulang.run'])).kind, 'ok');
      assert.equal((await runServerCommand(s.transport, ServerCommand.dryRun, args['capsulang.dryRun'])).kind, 'unsupported');
    } finally {
      s.client.dispose();
      s.server.dispose();
    }
  });

  it('says when no server is running', async () => {
    const t: CommandTransport = {
      capabilities: () => undefined,
      serverInfo: () => undefined,
      sendRequest: () => Promise.reject(new Error('not reached')),
    };
    const o = await runServerCommand(t, ServerCommand.run, args['capsulang.run']);
    assert.equal(o.kind, 'notRunning');
  });

  it('maps a closed connection to "not running"', async () => {
    const s = await standIn({ executeCommandProvider: { commands: [...allServerCommands] } });
    s.server.dispose();
    s.client.dispose();
    const o = await runServerCommand(s.transport, ServerCommand.run, args['capsulang.run']);
    assert.equal(o.kind, 'notRunning', JSON.stringify(o));
  });
});
