// Walks the authoring UI in Debian's Chromium with playwright-core, from a
// description to a committed module: describe → delta → resolve a hole →
// source with live diagnostics → dry-run steps on the diagram → the A2UI
// surface rendered (and one of its buttons driving the dry run) → propose
// → assess (the authority delta) → commit refused without an approval →
// commit with one. Run by browser_test.go, which starts the server on a
// fresh workspace with the recorded-response model.
//
// Environment: CAPS_UI_URL (the page), CAPS_UI_ARTIFACTS (where
// screenshots go on failure), CHROMIUM (the browser). Prints "ok   STEP"
// or "FAIL STEP: why (screenshot FILE)" per step and stops at the first
// failure (each step needs the one before); exits 1 on a failure.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.env.CAPS_UI_URL;
const artifacts = process.env.CAPS_UI_ARTIFACTS ?? '.';
const executablePath = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
const timeout = 20_000;

const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
page.setDefaultTimeout(timeout);
const consoleErrors = [];
// A refused call (4xx) is part of the walk and shows in the page; a
// script error or a server failure (5xx) is not.
page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) consoleErrors.push(m.text()); });
page.on('response', (r) => { if (r.status() >= 500) consoleErrors.push(`${r.status()} from ${r.url()}`); });
page.on('pageerror', (e) => consoleErrors.push(String(e)));

let passed = 0;

async function step(name, fn) {
  try {
    await fn();
    if (consoleErrors.length) throw new Error(`the page logged errors: ${consoleErrors.join(' | ')}`);
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    mkdirSync(artifacts, { recursive: true });
    const file = join(artifacts, `${String(passed + 1).padStart(2, '0')}-${name.replace(/[^\w-]+/g, '_')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    const banner = await page.locator('#error').textContent().catch(() => '');
    console.log(`FAIL ${name}: ${String(e?.message ?? e).split('\n')[0]}${banner ? ` [page error: ${banner}]` : ''} (screenshot ${file})`);
    await browser.close();
    process.exit(1);
  }
}

/** Waits until the locator's text contains want. */
async function text(locator, want, what) {
  try {
    await locator.filter({ hasText: want }).first().waitFor({ timeout });
  } catch {
    const got = await locator.allTextContents().catch(() => []);
    throw new Error(`${what}: no text ${JSON.stringify(want)} within ${timeout / 1000} s; got ${JSON.stringify(got)}`);
  }
}

async function need(locator, what) {
  try {
    await locator.first().waitFor({ timeout });
  } catch {
    throw new Error(`${what} did not appear within ${timeout / 1000} s`);
  }
}

async function noError() {
  if (await page.locator('#error').isVisible()) throw new Error(`error shown: ${await page.locator('#error').textContent()}`);
}

await step('page loads', async () => {
  await page.goto(url);
  await text(page.locator('#workspace'), 'workspace ', 'the workspace line');
  await text(page.locator('#model'), 'model recorded-model', 'the model line');
});

await step('start a session', async () => {
  await page.fill('#target', 'refund.caps');
  await page.fill('#session-id', 'demo');
  await page.fill('#by', 'alice');
  await page.click('#start');
  await text(page.locator('#session-status'), 'session demo on refund.caps (a new file), 0 step(s)', 'the session line');
  await noError();
});

await step('describe: the delta with requirements, assumptions and an open hole', async () => {
  await page.fill('#description', "Refunds of 100 or more need a person's review on a screen.");
  await page.click('#describe');
  await need(page.locator('#holes li.open[data-hole="h1"]'), 'open hole h1');
  await text(page.locator('#holes li'), 'h1: who reviews refunds of 100 or more?', 'the hole');
  await text(page.locator('#requirements li'), "refunds of 100 or more need a person's review", 'a requirement');
  await text(page.locator('#assumptions li'), 'amounts are whole euros', 'an assumption');
  await text(page.locator('#declarations li'), 'machine Refund', 'a declaration');
  await text(page.locator('#steps li'), 'from recorded-model (by alice)', 'the step');
  await noError();
});

await step('resolve the hole', async () => {
  await page.fill('#holes li[data-hole="h1"] input.answer', 'the finance team');
  await page.click('#holes li[data-hole="h1"] button.resolve');
  await need(page.locator('#holes li.answered[data-hole="h1"]'), 'answered hole h1');
  await text(page.locator('#assumptions li'), 'answer to "who reviews refunds of 100 or more?": the finance team', 'the answer as an assumption');
  await noError();
});

await step('source with live diagnostics', async () => {
  const src = await page.inputValue('#source');
  if (!src.includes('(machine Refund') || !src.includes(';; assumption: answer to "who reviews refunds of 100 or more?": the finance team')) {
    throw new Error(`the source is not the synthesized one:\n${src.slice(0, 400)}`);
  }
  await text(page.locator('#diag-summary'), '0 error(s), 0 warning(s)', 'the summary');
  await page.fill('#source', src.replace('(>= amount 100)', '(>= amount "100")'));
  await need(page.locator('#diagnostics li.error[data-code="E_TYPE_MISMATCH"]'), 'the live E_TYPE_MISMATCH');
  await text(page.locator('#diagnostics li'), 'error E_TYPE_MISMATCH: expected U32, found Text', 'the diagnostic');
  await text(page.locator('#diag-summary'), '1 error(s)', 'the summary');
  await page.click('#revert');
  await text(page.locator('#diag-summary'), '0 error(s)', 'the summary after revert');
});

await step('dry-run a step, the diagram highlights the path', async () => {
  await need(page.locator('#diagram svg [data-state="idle"].current'), 'the initial state highlighted');
  await page.fill('#payload', '{"amount": 150}');
  await page.click('#next-events button[data-event="Requested"]');
  await need(page.locator('#diagram svg [data-transition="idle/Requested/review"].taken'), 'the taken transition');
  await need(page.locator('#diagram svg [data-state="review"].current'), 'the current state review');
  await text(page.locator('#dry-steps li'), 'Requested: idle → review; a2ui.update-data refund_review: planned; a2ui.await-action refund_review: planned', 'the step');
  await text(page.locator('#dry-state'), 'state review (running), context {"amount":150,"approved":false}', 'the state');
  await noError();
});

await step('the surface rendered from its envelopes', async () => {
  await text(page.locator('#surface-view h2'), 'Refund review', 'the title');
  await text(page.locator('#surface-view [data-id="state_amount_value"]'), '150', 'the amount from the run');
  await need(page.locator('#surface-view [data-id="action_approve_refund_note"] input'), 'the note field');
  if (await page.locator('#surface-view [data-id="state_approved"] input').isChecked()) throw new Error('approved is checked before the approval');
  await page.click('#surface-view [data-id="event_Approved_submit"]');
  await need(page.locator('#diagram svg [data-state="paid"].current'), 'the state paid after the surface button');
  await need(page.locator('#diagram svg [data-transition="review/Approved/paid"].taken'), 'the taken transition');
  await page.locator('#surface-view [data-id="state_approved"] input:checked').waitFor();
  await text(page.locator('#surface-log li'), 'refund_review: Approved → dry run', 'the surface log');
  await noError();
});

await step('propose and assess: the authority delta', async () => {
  await page.click('#propose');
  await text(page.locator('#proposal'), 'refund.caps (+64 −0)', 'the proposal');
  await page.click('#assess');
  await text(page.locator('#verdict'), 'needs-approval', 'the verdict');
  await text(page.locator('#authority tbody tr.added td'), '(a2ui.await-action refund_review)', 'the added effect');
  await text(page.locator('#authority tbody tr.added td'), 'refund_review.approve_refund', 'the added action');
  await text(page.locator('#approvals-required'), 'approval needed: any approver (the change expands authority)', 'the approval line');
  await noError();
});

await step('commit: refused without an approval, committed with one', async () => {
  await page.click('#commit');
  await text(page.locator('#error'), 'refused: needs approval', 'the refusal');
  await page.fill('#approver', 'alice');
  await page.click('#commit');
  await text(page.locator('#commit-result'), '(approved by alice); undo: caps rollback evt-', 'the commit');
  await noError();
});

console.log(`${passed} passed, 0 failed`);
await browser.close();
