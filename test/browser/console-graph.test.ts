/**
 * A graph run in the console, in Debian's Chromium: the refund example's large amount waits on the manager.
 * The run page draws every node of the DAG with its state (in words and as a fill), the open human task is
 * listed with who is asked and until when but never its link, and once the manager approves, every node shows
 * its final state. Owner B sees neither the run nor the task. Screenshots go to test-results/console/.
 */
import { mkdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { runEnded } from '../e2e/support.ts';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './launch.ts';
import { startLargeRefundWhileLaunching } from './refund-stack.ts';

const SHOTS = new URL('../../test-results/console/', import.meta.url).pathname;
const KEY_A = `wfl_owner_a_${'a'.repeat(24)}`;
const KEY_B = `wfl_owner_b_${'b'.repeat(24)}`;

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/console/login`);
  await page.fill('#key', key);
  await Promise.all([page.waitForURL(/\/console\/runs$/), page.click('button[type=submit]')]);
}

// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the operator reads
const text = (page: Page, selector: string) => page.locator(selector).innerText();

/** Each drawn node's state, read from the SVG in the page. */
const nodeStates = (page: Page) =>
  page.$$eval('svg#graph g.node', (nodes) =>
    Object.fromEntries(
      nodes.map((node) => [node.getAttribute('data-node'), node.getAttribute('data-state')]),
    ),
  );

/** Reloads the run page until the run's status is `status` (the page polls by itself; this only waits). */
async function untilStatus(page: Page, url: string, status: string): Promise<void> {
  let shown = '';
  for (let i = 0; i < 50; i++) {
    await page.goto(url);
    shown = (await text(page, '#status')).trim();
    if (shown === status) return;
    await sleep(200);
  }
  throw new Error(`the run at ${url} never showed ${status}; it shows ${shown}`);
}

describe('the console draws a graph run in Chromium', () => {
  it('shows every node with its state, the open human task without its link, and owner B sees neither', async () => {
    requireChromium();
    // Prepare: two owners' keys, the fake payments service, the local stack, a browser; a large amount (the
    // refund-large-* fixtures: 250 for c_88) waits on the manager.
    const launching = chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const {
      e2e,
      runId,
      notice,
      launched: browser,
    } = await startLargeRefundWhileLaunching(launching, closers, {
      apiKeys: { [KEY_A]: { owner: 'local' }, [KEY_B]: { owner: 'bob' } },
    });
    await mkdir(SHOTS, { recursive: true });
    const origin = new URL(e2e.stack.url).origin;

    // Act 1: owner A opens the run page and the human tasks page while the run waits.
    const a = await browser.newPage();
    await signIn(a, origin, KEY_A);
    const runUrl = `${origin}/console/runs/${runId}`;
    await a.goto(runUrl);
    const waiting = await nodeStates(a);
    const legend = await text(a, '#graph-legend');
    const conditions = await a.$$eval('svg#graph g.edge > title', (titles) =>
      titles.map((t) => t.textContent),
    );
    await a.screenshot({ path: `${SHOTS}graph-run-waiting.png`, fullPage: true });
    await a.goto(`${origin}/console/human-tasks`);
    const taskRow = await text(a, `#human-tasks tr[data-task]`);
    const tasksHtml = await a.content();
    await a.screenshot({ path: `${SHOTS}human-tasks.png`, fullPage: true });

    // Act 2: owner B looks for the same run and tasks.
    const b = await (await browser.newContext()).newPage();
    await signIn(b, origin, KEY_B);
    const foreignRun = await b.goto(runUrl);
    const foreignHeading = await text(b, 'h1');
    await b.goto(`${origin}/console/human-tasks`);
    const foreignTasks = await text(b, 'main');

    // Act 3: the manager approves through the link; owner A watches the run finish.
    const manager = await (await browser.newContext()).newPage();
    await manager.goto(notice.url);
    await manager.getByLabel('Approve the refund').check();
    await Promise.all([manager.waitForLoadState(), manager.getByRole('button', { name: 'Submit' }).click()]);
    const managerAnswer = await text(manager, 'main');
    const ended = await runEnded(e2e, runId, 60_000);
    // The run's own record says how it ended; a run that did not finish as done fails here with why,
    // instead of the page being reloaded until the deadline.
    if (ended.status !== 'done')
      throw new Error(
        `the run ended ${ended.status} (${ended.stopReason ?? 'no reason'}); the manager's page said: ${managerAnswer}`,
      );
    await untilStatus(a, runUrl, 'done');
    const finished = await nodeStates(a);
    await a.screenshot({ path: `${SHOTS}graph-run-done.png`, fullPage: true });

    // Assess
    expect(waiting).toEqual({
      start: 'succeeded',
      triage: 'succeeded',
      manager_review: 'waiting',
      issue_refund: 'pending',
      draft_reply: 'pending',
      done: 'pending',
      declined: 'pending',
    });
    for (const state of ['pending', 'running', 'waiting', 'succeeded', 'failed', 'skipped', 'cancelled'])
      expect(legend).toContain(state);
    expect(conditions).toContain('when steps.triage.output.amount > 100');
    expect(taskRow).toContain('Approve a refund');
    expect(taskRow).toContain(runId);
    expect(taskRow).toContain('manager_review');
    expect(taskRow).toContain('manager@example.com');
    expect(taskRow).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(tasksHtml).not.toContain(new URL(notice.url).searchParams.get('t') ?? 'no token in the link');
    expect(tasksHtml).not.toContain('/human-tasks/htk_');
    expect(foreignRun?.status()).toBe(404);
    expect(foreignHeading).toBe('Not found');
    expect(foreignTasks).toContain('No human task is waiting.');
    expect(finished).toEqual({
      start: 'succeeded',
      triage: 'succeeded',
      manager_review: 'succeeded',
      issue_refund: 'succeeded',
      draft_reply: 'succeeded',
      done: 'succeeded',
      declined: 'skipped',
    });
  }, 240_000);
});
