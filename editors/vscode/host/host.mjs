// Drives the Capsulang extension in a real VS Code (code-server) through
// Debian's Chromium with playwright-core: one browser session, one check
// after the other. Run by host_test.go, which installs the .vsix, writes
// the settings and starts code-server; this script only drives the UI.
//
// Environment: CAPS_HOST_URL (the workbench URL with ?folder=), CAPS_HOST_FILE
// (the fixture's name), CAPS_HOST_SURFACE_FILE (a module with an A2UI surface), CAPS_HOST_ARTIFACTS (where screenshots go on
// failure), CHROMIUM (the browser). Prints "ok   CHECK" or "FAIL CHECK:
// why" per check, then "N passed, M failed"; exits 1 on a failure.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.env.CAPS_HOST_URL;
const artifacts = process.env.CAPS_HOST_ARTIFACTS ?? '.';
const executablePath = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
const message = 'unknown state `scord` in machine Claim; did you mean `scored`?';

let passed = 0;
let failed = 0;
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
page.setDefaultTimeout(60_000); // the machine may be busy

async function shot(name) {
  mkdirSync(artifacts, { recursive: true });
  const file = join(artifacts, `${name.replace(/[^\w-]+/g, '_')}.png`);
  await page.screenshot({ path: file }).catch(() => {});
  return file;
}

/** Runs one check; a failure is reported with a screenshot, and ends the session when fatal. */
async function check(name, fn, { fatal = false } = {}) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    const file = await shot(name);
    console.log(`FAIL ${name}: ${String(e?.message ?? e).split('\n')[0]} (screenshot ${file})`);
    if (fatal) await finish();
  }
}

async function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  await browser.close();
  process.exit(failed === 0 ? 0 : 1);
}

/** Waits for a locator, failing with what was awaited. */
async function need(locator, what, timeout = 30_000) {
  try {
    await locator.waitFor({ timeout });
  } catch {
    throw new Error(`${what} did not appear within ${timeout / 1000} s`);
  }
}

async function command(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await need(page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first(), `the command "${title}" in the palette`);
  await page.keyboard.press('Enter');
}

async function goTo(line, col) {
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}:${col}`);
  await page.keyboard.press('Enter');
}

async function toast(text) {
  // A notification shows as a toast first; the workbench may hide a toast
  // before the check sees it (it did in about one run in three here, while
  // the message was posted), so the notification center is the fallback.
  const shown = page.locator('.notifications-toasts', { hasText: text }).first();
  if (await shown.waitFor({ timeout: 15_000 }).then(() => true, () => false)) return;
  await command('Notifications: Show Notifications');
  await need(page.locator('.notifications-center', { hasText: text }).first(), `a notification saying "${text}" (as a toast or in the notification center)`);
  await command('Notifications: Hide Notifications');
}

const problems = page.locator('.markers-panel');

await check('the workbench loads', async () => {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
}, { fatal: true });

await check('the fixture opens as Capsulang, the server starts', async () => {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: process.env.CAPS_HOST_FILE ?? 'claims.caps' }).first();
  await need(row, 'the fixture in the Explorer', 60_000);
  await row.click();
  await need(page.locator('.monaco-editor .view-lines', { hasText: 'demo.claims' }), 'the fixture in an editor');
  await need(page.locator('.statusbar-item', { hasText: 'Capsulang' }).first(), 'the Capsulang status bar item', 60_000);
}, { fatal: true });

await check('the diagnostic is in the Problems panel', async () => {
  await page.keyboard.press('Control+Shift+M');
  await need(problems.locator('.monaco-list-row', { hasText: message }), `a row "${message}" in the Problems panel`, 60_000);
  const row = await problems.locator('.monaco-list-row', { hasText: message }).first().innerText();
  if (!row.includes('E_UNKNOWN_STATE') || !row.includes('Ln 19, Col 26')) throw new Error(`the row reads ${JSON.stringify(row)}`);
}, { fatal: true });

await check('hover shows the function signature', async () => {
  await goTo(7, 14); // `double` in (function double
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'double' }).first();
  await hover.waitFor();
  const text = await hover.innerText();
  if (!text.includes('I64')) throw new Error(`the hover reads ${JSON.stringify(text)}`);
  await page.keyboard.press('Escape');
});

await check('the quick fix clears the diagnostic', async () => {
  await goTo(19, 28); // inside `scord`
  // As a user would: wait for the light bulb, then open the Quick Fix menu
  // (again if it opened before the server's answer was in).
  await page.locator('.lightBulbWidget').first().waitFor({ timeout: 15_000 }).catch(() => {});
  const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Change `scord` to `scored`' }).first();
  for (let i = 0; i < 3 && !(await item.isVisible()); i++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+.');
    await item.waitFor({ timeout: 5_000 }).catch(() => {});
  }
  await need(item, 'the quick fix "Change `scord` to `scored`" in the Quick Fix menu', 5_000);
  // Choose it with the keyboard: move the focus onto it, then Enter.
  const focused = page.locator('.action-widget .monaco-list-row.focused');
  for (let i = 0; i < 6 && !((await focused.innerText().catch(() => '')).includes('Change `scord` to `scored`')); i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await need(page.locator('.monaco-editor .view-lines', { hasText: '(target scored)' }), 'the fixed text "(target scored)"');
  await need(problems.getByText('No problems have been detected in the workspace.'), 'an empty Problems panel', 60_000);
  await page.keyboard.press('Control+S');
});

await check('the code lens runs the examples', async () => {
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  // The server's lens above the function: "▶ Run examples (1 passed)".
  const lens = page.locator('.codelens-decoration a', { hasText: 'Run examples (' }).first();
  await need(lens, 'the "Run examples (...)" code lens of the function');
  const done = page.locator('.notifications-toasts', { hasText: '1 passed, 0 failed' }).first();
  // Lenses are redrawn as the server answers; click again if the first
  // click landed on one that was being replaced.
  for (let i = 0; i < 3 && !(await done.isVisible()); i++) {
    await lens.click();
    await done.waitFor({ timeout: 10_000 }).catch(() => {});
  }
  await toast('1 passed, 0 failed');
});

await check('a dry-run draws its steps at the transitions', async () => {
  await command('Capsulang: Dry-run Machine');
  const input = page.locator('.quick-input-widget input');
  await need(page.locator('.quick-input-list .monaco-list-row', { hasText: 'Submit' }).first(), 'the event picker offering Submit');
  await input.fill('Submit');
  await page.keyboard.press('Enter');
  await need(page.locator('.quick-input-widget', { hasText: 'payload of Submit' }), "the input box for Submit's payload");
  await input.fill('{"score": 7}');
  await page.keyboard.press('Enter');
  await need(page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dry-run 1 event(s)' }).first(), 'the "Dry-run 1 event(s)" choice');
  await input.fill('Dry-run');
  await page.keyboard.press('Enter');
  await toast('Claim:');
  // The hint is an `after` decoration: CSS generated content on a span of
  // the transition's line.
  const hint = await page.waitForFunction(() => {
    for (const el of document.querySelectorAll('.monaco-editor .view-lines span')) {
      const c = getComputedStyle(el, '::after').content;
      if (c && c.includes('Submit') && c.includes('scored')) return c;
    }
    return false;
  }, null, { timeout: 30_000 });
  const text = await hint.jsonValue();
  if (!String(text).includes('#1 Submit → scored')) throw new Error(`the hint reads ${text}`);
});

await check('the diagram webview renders the machine', async () => {
  await command('Capsulang: Show Machine Diagram');
  const deadline = Date.now() + 60_000;
  for (;;) {
    let found = false;
    for (const f of page.frames()) {
      const n = await f.locator('svg', { hasText: 'scored' }).count().catch(() => 0);
      if (n > 0) found = true;
    }
    if (found) break;
    if (Date.now() > deadline) throw new Error('no frame shows an SVG diagram with the state `scored`');
    await page.waitForTimeout(500);
  }
});

await check('the surface preview lens opens the surface, and a dry-run redraws it', async () => {
  const file = process.env.CAPS_HOST_SURFACE_FILE ?? 'lamp.caps';
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: file }).first();
  await need(row, `${file} in the Explorer`);
  await row.click();
  await need(page.locator('.monaco-editor .view-lines', { hasText: 'demo.lamp' }), `${file} in an editor`);
  /** The frame (the webview's) that shows the preview, once its provenance reads `text`. */
  const preview = async (text, what) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      for (const f of page.frames()) {
        const p = await f.locator('#provenance').innerText({ timeout: 100 }).catch(() => '');
        if (p.includes(text)) return f;
      }
      if (Date.now() > deadline) throw new Error(`no webview shows ${what} ("${text}")`);
      await page.waitForTimeout(500);
    }
  };
  const lens = page.locator('.codelens-decoration a', { hasText: 'Preview surface' }).first();
  await need(lens, 'the "Preview surface" code lens of the surface');
  await lens.click();
  let f = await preview('Lamp has not been dry-run yet', 'the preview with the default data');
  const html = await f.locator('#surface').innerHTML();
  if (!html.includes('<section data-a2ui-surface="lamp_ui"') || !html.includes('<dd data-path="/state">off</dd>')) throw new Error(`the preview shows ${html}`);
  // The server's "Dry-run" lens of the machine (a path to the final state),
  // in this file's editor (claims.caps may be open beside it).
  const dry = page.locator('.monaco-editor', { hasText: 'demo.lamp' }).locator('.codelens-decoration a', { hasText: 'Dry-run' }).first();
  await need(dry, 'the "Dry-run" code lens of the machine');
  await dry.click();
  f = await preview('Data from the last dry run of Lamp, in state done.', 'the preview redrawn with the dry run');
  const after = await f.locator('#surface').innerHTML();
  if (!after.includes('<dd data-path="/level">9</dd>') || !after.includes('<dd data-path="/state">done</dd>')) throw new Error(`the redrawn preview shows ${after}`);
});

await finish();
