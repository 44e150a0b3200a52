// The surface preview's page: the React component's markup that
// capsulang.previewSurface returns, where its data comes from, and the
// A2UI messages a renderer would get. Pure: no `vscode` import.

import type { PreviewSurfaceResult } from './protocol';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** Where the preview's data comes from, in words. */
export function previewProvenance(r: PreviewSurfaceResult): string {
  if (r.source === 'dry-run') return `Data from the last dry run of ${r.machine ?? 'the machine'}, in state ${r.state ?? '?'}.`;
  if (r.note) return `Default data: ${r.note}.`;
  if (r.machine) return `Default data (zero values, initial state): ${r.machine} has not been dry-run yet. Dry-run it to preview its state.`;
  return 'Default data (zero values): the surface is bound to no machine.';
}

/**
 * The webview's HTML. It runs no script, loads nothing and submits no
 * form: the CSP allows only the page's own style (by nonce).
 */
export function previewPage(r: PreviewSurfaceResult, nonce: string): string {
  const csp = ["default-src 'none'", `style-src 'nonce-${nonce}'`, "form-action 'none'"].join('; ');
  const lines = r.messages.map((m) => escapeHtml(JSON.stringify(m))).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(r.title)}</title>
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
.provenance { color: var(--vscode-descriptionForeground); }
.surface { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 0.5em 1em; margin: 1em 0; }
.surface dl { display: grid; grid-template-columns: max-content auto; gap: 0.25em 1em; }
.surface dt { font-weight: bold; }
.surface dd { margin: 0; white-space: pre-wrap; }
.surface form { margin: 0.5em 0; display: flex; flex-wrap: wrap; gap: 0.5em; align-items: end; }
.surface label { display: flex; flex-direction: column; font-size: 0.9em; }
pre { white-space: pre-wrap; word-break: break-all; font-family: var(--vscode-editor-font-family); font-size: 0.85em; }
</style>
</head>
<body>
<p class="provenance" id="provenance">${escapeHtml(previewProvenance(r))}</p>
<div class="surface" id="surface">${r.html}</div>
<details id="messages">
<summary>A2UI messages (${r.messages.length})</summary>
<pre>${lines}</pre>
</details>
</body>
</html>`;
}
