// The parts of the `vscode` API that activate() touches when the caps
// binary is missing, recorded for the activation test. Everything else of
// the extension is tested without VS Code (see test/server and test/unit).

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly f: () => void = () => undefined) {}
  dispose(): void {
    this.f();
  }
}

export class EventEmitter<T> {
  private listeners: Array<Listener<T>> = [];
  readonly event = (l: Listener<T>): Disposable => {
    this.listeners.push(l);
    return new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== l)));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export interface Recorded {
  commands: Map<string, (...args: unknown[]) => unknown>;
  messages: Array<{ level: 'error' | 'info' | 'warning'; text: string; items: string[] }>;
  output: Map<string, string[]>;
  statusBar: Array<{ text: string; tooltip: string | undefined; visible: boolean; disposed: boolean }>;
  disposed: number;
  settings: Record<string, unknown>;
}

export function createVscodeMock(): { vscode: Record<string, unknown>; rec: Recorded } {
  const rec: Recorded = { commands: new Map(), messages: [], output: new Map(), statusBar: [], disposed: 0, settings: {} };
  const disposable = () => new Disposable(() => rec.disposed++);
  const event = () => (_l: unknown) => disposable();
  const message =
    (level: 'error' | 'info' | 'warning') =>
    (text: string, ...items: unknown[]): Promise<undefined> => {
      rec.messages.push({ level, text, items: items.filter((i): i is string => typeof i === 'string') });
      return Promise.resolve(undefined);
    };
  class ThemeColor {
    constructor(readonly id: string) {}
  }
  const kind = (value: string): { value: string; append(x: string): unknown; intersects(o: { value: string }): boolean } => ({
    value,
    append: (x: string) => kind(`${value}.${x}`),
    intersects: (o) => o.value.startsWith(value) || value.startsWith(o.value),
  });
  // vscode-languageclient subclasses these when it loads.
  class Base {}
  const classes = Object.fromEntries(
    ['CallHierarchyItem', 'CodeLens', 'CompletionItem', 'DocumentLink', 'InlayHint', 'SymbolInformation', 'TypeHierarchyItem', 'CodeAction', 'Diagnostic'].map(
      (n) => [n, class extends Base {}],
    ),
  );
  class CancellationError extends Error {}
  const vscode: Record<string, unknown> = {
    ...classes,
    CancellationError,
    Disposable,
    EventEmitter,
    ThemeColor,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    CodeActionKind: { QuickFix: kind('quickfix'), Empty: kind('') },
    window: {
      createOutputChannel: (name: string) => {
        const lines: string[] = [];
        rec.output.set(name, lines);
        return { name, appendLine: (l: string) => lines.push(l), append: (l: string) => lines.push(l), clear: () => (lines.length = 0), show: () => undefined, hide: () => undefined, dispose: () => rec.disposed++ };
      },
      createStatusBarItem: () => {
        const item = { text: '', tooltip: undefined as string | undefined, visible: false, disposed: false, name: '', command: '', backgroundColor: undefined as unknown };
        rec.statusBar.push(item);
        return Object.assign(item, { show: () => (item.visible = true), hide: () => (item.visible = false), dispose: () => { item.disposed = true; rec.disposed++; } });
      },
      createTextEditorDecorationType: () => disposable(),
      onDidChangeVisibleTextEditors: event(),
      visibleTextEditors: [],
      activeTextEditor: undefined,
      showErrorMessage: message('error'),
      showInformationMessage: message('info'),
      showWarningMessage: message('warning'),
      withProgress: (_o: unknown, task: (p: unknown, t: unknown) => unknown) =>
        task({ report: () => undefined }, { isCancellationRequested: false, onCancellationRequested: event() }),
    },
    commands: {
      registerCommand: (id: string, f: (...args: unknown[]) => unknown) => {
        if (rec.commands.has(id)) throw new Error(`command '${id}' already exists`);
        rec.commands.set(id, f);
        return new Disposable(() => {
          rec.commands.delete(id);
          rec.disposed++;
        });
      },
      executeCommand: () => Promise.resolve(undefined),
      getCommands: () => Promise.resolve([...rec.commands.keys()]),
    },
    workspace: {
      getConfiguration: (section: string) => ({
        get: (key: string, dflt?: unknown) => (`${section}.${key}` in rec.settings ? rec.settings[`${section}.${key}`] : dflt),
      }),
      workspaceFolders: undefined,
      registerTextDocumentContentProvider: () => disposable(),
      onDidChangeTextDocument: event(),
      onDidCloseTextDocument: event(),
      onDidSaveTextDocument: event(),
      onDidChangeConfiguration: event(),
    },
    languages: {
      registerCodeLensProvider: () => disposable(),
      registerCodeActionsProvider: () => disposable(),
      getDiagnostics: () => [],
    },
    env: { openExternal: () => Promise.resolve(true) },
  };
  return { vscode, rec };
}
