// Read-only virtual documents: explanations, assessments, diffs, the
// server's copy of a document.

import * as vscode from 'vscode';

export const VIEW_SCHEME = 'capsulang-view';

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, this);
  }

  /** Sets the text of capsulang-view:/PATH and returns its URI. */
  set(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: path.startsWith('/') ? path : `/${path}` });
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Shows markdown rendered (markdown preview), falling back to the source. */
  async showMarkdown(path: string, markdown: string): Promise<void> {
    const uri = this.set(path.endsWith('.md') ? path : `${path}.md`, markdown);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.contents.clear();
  }
}
