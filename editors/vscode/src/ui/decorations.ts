// Dry-run results drawn at the end of each transition's line.

import * as vscode from 'vscode';

import type { StepHint } from '../dryrun';

export class DryRunDecorations implements vscode.Disposable {
  private readonly okType = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
  });
  private readonly failType = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorWarning.foreground'), fontStyle: 'italic' },
  });
  private readonly hints = new Map<string, StepHint[]>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly enabled: () => boolean) {
    this.subscriptions.push(
      this.okType,
      this.failType,
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.paint(e))),
      // An edit moves lines and makes the results stale: drop them.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.hints.has(e.document.uri.toString())) this.clear(e.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.hints.delete(d.uri.toString())),
    );
  }

  set(uri: vscode.Uri, hints: StepHint[]): void {
    this.hints.set(uri.toString(), hints);
    this.repaint(uri);
  }

  clear(uri?: vscode.Uri): void {
    if (uri) this.hints.delete(uri.toString());
    else this.hints.clear();
    for (const e of vscode.window.visibleTextEditors) this.paint(e);
  }

  /** Repaints every editor (after the setting changed). */
  refresh(): void {
    for (const e of vscode.window.visibleTextEditors) this.paint(e);
  }

  private repaint(uri: vscode.Uri): void {
    for (const e of vscode.window.visibleTextEditors) {
      if (e.document.uri.toString() === uri.toString()) this.paint(e);
    }
  }

  private paint(editor: vscode.TextEditor): void {
    const hints = this.enabled() ? this.hints.get(editor.document.uri.toString()) ?? [] : [];
    const ok: vscode.DecorationOptions[] = [];
    const fail: vscode.DecorationOptions[] = [];
    for (const h of hints) {
      if (h.line >= editor.document.lineCount) continue;
      const end = editor.document.lineAt(h.line).range.end;
      const hover = new vscode.MarkdownString(h.hover);
      (h.ok ? ok : fail).push({
        range: new vscode.Range(end, end),
        hoverMessage: hover,
        renderOptions: { after: { contentText: `⟵ ${h.text}` } },
      });
    }
    editor.setDecorations(this.okType, ok);
    editor.setDecorations(this.failType, fail);
  }

  dispose(): void {
    for (const e of vscode.window.visibleTextEditors) {
      e.setDecorations(this.okType, []);
      e.setDecorations(this.failType, []);
    }
    for (const d of this.subscriptions.splice(0)) d.dispose();
    this.hints.clear();
  }
}
