// The machine diagram: a webview that renders the Mermaid source from
// capsulang.visualize, with the last dry-run's path highlighted.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

import type { PathHighlight } from '../mermaid';
import type { DiagramKind } from '../protocol';

export interface DiagramTarget {
  uri: vscode.Uri;
  machine: string | undefined;
  kind: DiagramKind;
}

export type DiagramContent = { sources: string[]; title: string; path: PathHighlight } | { error: string };

/** Messages to the webview (media/diagram.js). */
type ToWebview =
  | { type: 'render'; sources: string[]; title: string; kind: DiagramKind; path: PathHighlight }
  | { type: 'error'; message: string; title: string };

/** Messages from the webview. */
type FromWebview = { type: 'ready' } | { type: 'kind'; kind: DiagramKind } | { type: 'refresh' };

function isFromWebview(v: unknown): v is FromWebview {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as { type?: unknown; kind?: unknown };
  return m.type === 'ready' || m.type === 'refresh' || (m.type === 'kind' && (m.kind === 'machine' || m.kind === 'effects'));
}

export class DiagramPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private target: DiagramTarget | undefined;
  private ready = false;
  private pending: ToWebview | undefined;
  private readonly panelSubscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly load: (t: DiagramTarget) => Promise<DiagramContent>,
  ) {}

  /** Whether the panel shows a diagram of this document. */
  shows(uri: vscode.Uri): boolean {
    return this.panel !== undefined && this.target?.uri.toString() === uri.toString();
  }

  async show(target: DiagramTarget, content: DiagramContent): Promise<void> {
    this.target = target;
    if (!this.panel) this.create();
    this.panel?.reveal(vscode.ViewColumn.Beside, true);
    this.post(toMessage(target, content));
  }

  /** Reloads the diagram (after a save or a dry-run) if it shows this document. */
  async refresh(uri?: vscode.Uri): Promise<void> {
    const t = this.target;
    if (!this.panel || !t || (uri && t.uri.toString() !== uri.toString())) return;
    this.post(toMessage(t, await this.load(t)));
  }

  private create(): void {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      'capsulang.diagram',
      'Machine diagram',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false },
    );
    this.panel = panel;
    this.ready = false;
    panel.webview.html = html(panel.webview, media);
    this.panelSubscriptions.push(
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.target = undefined;
        for (const d of this.panelSubscriptions.splice(0)) d.dispose();
      }),
      panel.webview.onDidReceiveMessage(async (m: unknown) => {
        if (!isFromWebview(m)) return;
        if (m.type === 'ready') {
          this.ready = true;
          if (this.pending) {
            void panel.webview.postMessage(this.pending);
            this.pending = undefined;
          } else {
            await this.refresh();
          }
        } else if (m.type === 'kind' && this.target) {
          this.target = { ...this.target, kind: m.kind };
          await this.refresh();
        } else if (m.type === 'refresh') {
          await this.refresh();
        }
      }),
    );
  }

  private post(msg: ToWebview): void {
    if (!this.panel) return;
    this.panel.title = msg.title;
    // A hidden webview is rebuilt when shown again: it asks with 'ready'.
    if (this.ready && this.panel.visible) void this.panel.webview.postMessage(msg);
    else this.pending = msg;
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.panelSubscriptions.splice(0)) d.dispose();
  }
}

function toMessage(t: DiagramTarget, c: DiagramContent): ToWebview {
  if ('error' in c) return { type: 'error', message: c.error, title: t.machine ? `${t.machine} diagram` : 'Machine diagram' };
  return { type: 'render', sources: c.sources, title: c.title, kind: t.kind, path: c.path };
}

function html(webview: vscode.Webview, media: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const src = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(media, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    // Mermaid writes <style> into the SVG it renders.
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${src('diagram.css')}">
<title>Machine diagram</title>
</head>
<body>
<header>
  <h1 id="title">Machine diagram</h1>
  <div class="buttons">
    <button id="kind-machine" data-kind="machine">States</button>
    <button id="kind-effects" data-kind="effects">Effects</button>
    <button id="refresh">Refresh</button>
  </div>
</header>
<section id="path" hidden></section>
<main id="diagram"><p class="muted">Loading…</p></main>
<script nonce="${nonce}" src="${src('vendor', 'mermaid.min.js')}"></script>
<script nonce="${nonce}" src="${src('diagram.js')}"></script>
</body>
</html>`;
}
