// The surface preview: a webview that shows what capsulang.previewSurface
// rendered. One panel, reused for every surface.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

import { previewPage } from '../preview';
import type { PreviewSurfaceResult } from '../protocol';

export class SurfacePreview implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The document and surface the panel shows. */
  private target: { uri: string; surface: string } | undefined;

  /** Whether the panel shows a surface of this document; which one. */
  showing(uri: string): string | undefined {
    return this.panel && this.target?.uri === uri ? this.target.surface : undefined;
  }

  show(uri: string, r: PreviewSurfaceResult): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'capsulang.surfacePreview',
        'Surface preview',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, enableForms: false, localResourceRoots: [] },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.target = undefined;
      });
    }
    this.target = { uri, surface: r.surface };
    this.panel.title = `Preview: ${r.title}`;
    this.panel.webview.html = previewPage(r, randomBytes(16).toString('base64'));
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
