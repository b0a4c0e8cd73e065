/**
 * The refund example's large amount in a real browser (Debian's Chromium through playwright-core; nothing is
 * downloaded): the local stack's graph run waits on `manager_review`, the manager opens the signed link from
 * the inbox, ticks "Approve the refund", writes a note and submits; the run goes on and the refund is paid once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { runEnded } from '../e2e/support.ts';
import { stepsOf } from '../graph/support.ts';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './launch.ts';
import { startLargeRefundWhileLaunching } from './refund-stack.ts';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('the refund example approved through the form page in Chromium', () => {
  it('the manager approves the large amount in the browser; the run is refunded once and done', async () => {
    // A missing browser is a failed precondition, never a skip.
    requireChromium();
    const profile = await mkdtemp(join(tmpdir(), 'wf-chromium-'));
    closers.push(() => rm(profile, { recursive: true, force: true }));
    const launching = chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    // Arrange: a large amount (the refund-large-* fixtures: 250 for c_88) waits for the manager; the link is in the inbox.
    const {
      e2e,
      payments,
      runId,
      notice,
      launched: browser,
    } = await startLargeRefundWhileLaunching(launching, closers);
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_88')).toEqual([]);

    // Act: open the link, approve with a note, submit.
    const page = await browser.newPage();
    const opened = await page.goto(notice.url);
    await page.getByLabel('Approve the refund').check();
    await page.getByLabel('Note').fill('Known courier issue.\nRefund in full.');
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
      page.getByRole('button', { name: 'Submit' }).click(),
    ]);
    await page.waitForLoadState();
    const heading = (await page.locator('h1').textContent())?.trim();

    // Assess
    expect(opened?.status()).toBe(200);
    expect(response.status()).toBe(200);
    expect(heading).toBe('Submitted — the run continues');
    const run = await runEnded(e2e, runId, 60_000);
    const steps = await stepsOf(e2e, runId);
    expect(run.status).toBe('done');
    expect(steps.manager_review).toMatchObject({
      status: 'succeeded',
      output: { approve: true, note: 'Known courier issue.\nRefund in full.' },
    });
    expect(steps.declined?.status).toBe('skipped');
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_88')).toEqual([
      expect.objectContaining({ amount: 250 }),
    ]);
  }, 180_000);
});
