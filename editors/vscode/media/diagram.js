// The machine diagram webview: renders Mermaid source sent by the extension
// (src/ui/diagram.ts) and lists the last dry-run's path.
/* global acquireVsCodeApi, mermaid */
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const title = document.getElementById('title');
  const diagram = document.getElementById('diagram');
  const pathBox = document.getElementById('path');
  const buttons = Array.from(document.querySelectorAll('button[data-kind]'));
  let renders = 0;

  function isDark() {
    const c = document.body.classList;
    return c.contains('vscode-dark') || c.contains('vscode-high-contrast');
  }

  if (typeof mermaid === 'undefined') {
    diagram.innerHTML = '';
    const p = document.createElement('p');
    p.className = 'error';
    p.textContent = 'Mermaid did not load (media/vendor/mermaid.min.js is missing from the extension).';
    diagram.appendChild(p);
  } else {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: isDark() ? 'dark' : 'default' });
  }

  function showPath(path) {
    pathBox.textContent = '';
    if (!path || !path.transitions || path.transitions.length === 0) {
      pathBox.hidden = true;
      return;
    }
    const head = document.createElement('strong');
    head.textContent = 'Last dry-run path (highlighted)';
    const list = document.createElement('ol');
    for (const t of path.transitions) {
      const li = document.createElement('li');
      li.textContent = t.from + ' —' + t.event + '→ ' + t.to;
      list.appendChild(li);
    }
    pathBox.appendChild(head);
    pathBox.appendChild(list);
    pathBox.hidden = false;
  }

  function showError(message, source) {
    diagram.textContent = '';
    const p = document.createElement('p');
    p.className = 'error';
    p.textContent = message;
    diagram.appendChild(p);
    if (source) {
      const pre = document.createElement('pre');
      pre.textContent = source;
      diagram.appendChild(pre);
    }
  }

  async function render(msg) {
    title.textContent = msg.title;
    for (const b of buttons) b.classList.toggle('active', b.dataset.kind === msg.kind);
    showPath(msg.path);
    if (typeof mermaid === 'undefined') return;
    diagram.textContent = '';
    for (const source of msg.sources) {
      const box = document.createElement('div');
      box.className = 'machine';
      diagram.appendChild(box);
      try {
        renders += 1;
        const out = await mermaid.render('caps-diagram-' + renders, source);
        box.innerHTML = out.svg;
      } catch (e) {
        const p = document.createElement('p');
        p.className = 'error';
        p.textContent = 'The diagram could not be rendered: ' + (e && e.message ? e.message : String(e));
        const pre = document.createElement('pre');
        pre.textContent = source;
        box.appendChild(p);
        box.appendChild(pre);
      }
    }
  }

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'render') void render(msg);
    else if (msg.type === 'error') {
      title.textContent = msg.title;
      showPath(null);
      showError(msg.message);
    }
  });
  for (const b of buttons) b.addEventListener('click', () => vscode.postMessage({ type: 'kind', kind: b.dataset.kind }));
  document.getElementById('refresh').addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
  vscode.postMessage({ type: 'ready' });
})();
