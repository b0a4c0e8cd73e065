/**
 * The web console in a real browser (Debian's Chromium through playwright-core): owner A signs in with an API
 * key, sees the worked example's run while it waits for approval (and the pending approval without its link),
 * and once it is approved opens it: the approval and the dispatch are in the timeline and the audit chain
 * verifies. A second run is cancelled from the console. Owner B, signed in with another key, sees none of A's
 * data, and A's run id answers B like a missing one. Screenshots go to test-results/console/ (gitignored).
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { decideThroughPage } from '../../shared/demo/approve.ts';
import { runWorkedExample } from '../../shared/demo/worked-example.ts';
import { testDefinitions } from '../support/local-definitions.ts';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './launch.ts';

const SHOTS = new URL('../../test-results/console/', import.meta.url).pathname;
const KEY_A = `wfl_owner_a_${'a'.repeat(24)}`;
const KEY_B = `wfl_owner_b_${'b'.repeat(24)}`;

const temps: string[] = [];
let launching: Promise<Browser> | undefined;
afterAll(async () => {
  await launching?.then((launched) => launched.close()).catch(() => undefined);
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/console/runs`);
  expect(new URL(page.url()).pathname).toBe('/console/login');
  await page.fill('#key', key);
  await Promise.all([page.waitForURL(/\/console\/runs$/), page.click('button[type=submit]')]);
}

// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the operator reads
const text = (page: Page, selector = 'main') => page.locator(selector).innerText();

/** Reloads the run page until its status is `status` (the page itself polls; this only waits). */
async function untilStatus(page: Page, url: string, status: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    await page.goto(url);
    if ((await text(page, '#status')).trim() === status) return;
    await sleep(200);
  }
  throw new Error(`the run at ${url} never reached ${status}`);
}

describe('the web console in Chromium', () => {
  it('signs in, shows and verifies the worked example run, cancels another; owner B sees nothing of A', async () => {
    requireChromium();
    // Prepare: two owners' keys in the stack's keys file, a fresh browser, the screenshot directory.
    const dataDir = await mkdtemp(join(tmpdir(), 'wf-console-'));
    temps.push(dataDir);
    await writeFile(
      join(dataDir, 'api-keys.json'),
      JSON.stringify({ keys: { [KEY_A]: { owner: 'local' }, [KEY_B]: { owner: 'bob' } } }),
    );
    await mkdir(SHOTS, { recursive: true });
    // The browser launches while the example starts its stack (both mostly wait on their own processes).
    launching = chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const seen: Record<string, string | number | undefined> = {};

    // Act
    const result = await runWorkedExample({
      definitions: testDefinitions(),
      autoApprove: false,
      dataDir,
      feedPort: 0,
      sitePort: 0,
      print: () => undefined,
      onApprovalLink: async (link) => {
        const browser = await launching!;
        const origin = new URL(link).origin;
        const a = await (await browser.newContext()).newPage();
        await signIn(a, origin, KEY_A);
        seen.runsWaiting = await text(a);
        const runUrl = new URL(
          (await a.locator('#runs a').first().getAttribute('href')) ?? '',
          origin,
        ).toString();
        seen.runId = runUrl.split('/').at(-1);
        await a.goto(`${origin}/console/approvals`);
        seen.approvals = await text(a);
        seen.approvalsHtml = await a.content();

        // The approver decides through the link; the console then shows the finished run.
        await decideThroughPage(link, 'approve');
        await untilStatus(a, runUrl, 'done');
        seen.csp = (await a.goto(runUrl))?.headers()['content-security-policy'];
        seen.timeline = await text(a, '#timeline');
        seen.deniedRows = await a.locator('#timeline tr.denied').count();
        seen.verification = await text(a, '#verification');
        seen.receipts = await text(a, '#receipts');
        await a.screenshot({ path: join(SHOTS, 'run-page.png'), fullPage: true });

        // A second run, started through the API, cancelled from the console.
        const started = await fetch(`${origin}/v1/workflows/${await workflowIdOf(origin)}/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
          body: '{}',
        });
        const second = ((await started.json()) as { run: { runId: string } }).run.runId;
        await a.goto(`${origin}/console/runs/${second}`);
        await Promise.all([
          a.waitForURL(`${origin}/console/runs/${second}`),
          a.click('text=Cancel this run'),
        ]);
        await untilStatus(a, `${origin}/console/runs/${second}`, 'cancelled');
        seen.cancelled = await text(a, '#status');
        await a.goto(`${origin}/console/runs?status=cancelled`);
        seen.cancelledOnly = await text(a, '#runs');
        seen.secondRunId = second;
        await a.goto(`${origin}/console/workflows`);
        seen.workflows = await text(a, '#workflows');
        await a.goto(`${origin}/console/runs`);
        seen.runsAfter = await text(a);
        await a.screenshot({ path: join(SHOTS, 'runs-list.png'), fullPage: true });

        // Owner B: nothing of A's, and A's run id is "not found", as a made-up id is.
        const b = await (await browser.newContext()).newPage();
        await signIn(b, origin, KEY_B);
        seen.bRuns = await text(b);
        await b.goto(`${origin}/console/workflows`);
        seen.bWorkflows = await text(b);
        const foreign = await b.goto(runUrl);
        seen.bForeignStatus = foreign?.status();
        seen.bForeign = await text(b);
        const missing = await b.goto(`${origin}/console/runs/run_doesnotexist1`);
        seen.bMissingStatus = missing?.status();
        seen.bMissing = await text(b);
        await b.goto(`${origin}/console/approvals`);
        seen.bApprovals = await text(b);
        await browser.close();
      },
    });

    // Assess: A's view of the waiting run and its approval (who and until when, never the link).
    expect(result.ok).toBe(true);
    expect(seen.runsWaiting).toContain(seen.runId);
    expect(seen.runsWaiting).toContain('awaiting_approval');
    expect(seen.approvals).toContain('post_to_site');
    expect(seen.approvals).toContain('editor@example.com');
    expect(seen.approvals).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(seen.approvalsHtml).not.toMatch(/[?&]t=/);
    // The finished run: approval and dispatch in the timeline, a verified chain, no refusals.
    expect(seen.csp).toContain("default-src 'none'");
    expect(seen.timeline).toContain('approval_requested');
    expect(seen.timeline).toMatch(/approval approve[d]?: post_to_site/);
    expect(seen.timeline).toContain('dispatched post_to_site');
    expect(seen.timeline).toMatch(/cache read/);
    expect(seen.deniedRows).toBe(0);
    expect(seen.verification).toMatch(/^Audit chain verified: \d+ entries/);
    expect(seen.receipts).toMatch(/fetch_url\s+completed/);
    expect(seen.receipts).toMatch(/post_to_site\s+completed/);
    expect(seen.cancelled).toBe('cancelled');
    expect(seen.runsAfter).toContain('cancelled');
    expect(seen.cancelledOnly).toContain(seen.secondRunId);
    expect(seen.cancelledOnly).not.toContain(seen.runId);
    // The workflows page: kind, the schedule and its next fire, enabled, version, last run, today's spend.
    expect(seen.workflows).toContain('morning-news');
    expect(seen.workflows).toMatch(
      /agent\s+cron\(0 7 \* \* \? \*\) \(Europe\/Berlin\)\s+\d{4}-\d\d-\d\d 0[56]:00:00 UTC/,
    );
    expect(seen.workflows).toMatch(/yes\s+v1\s+cancelled/);
    expect(seen.workflows).toMatch(/\$0\.\d{6} of \$\d+\.\d{6}|\$0\.\d{6} of no ceiling/);
    // Owner B.
    expect(seen.bRuns).toContain('No runs match.');
    expect(seen.bRuns).not.toContain(seen.runId);
    expect(seen.bWorkflows).toContain('No workflows yet');
    expect(seen.bApprovals).toContain('No approval is waiting.');
    expect(seen.bForeignStatus).toBe(404);
    expect(seen.bForeign).toBe(seen.bMissing);
    expect(seen.bMissingStatus).toBe(404);
    for (const name of ['runs-list.png', 'run-page.png']) {
      expect((await stat(join(SHOTS, name))).size).toBeGreaterThan(1000);
    }
  }, 240_000);
});

/** The worked example's workflow id, as owner A's API lists it. */
async function workflowIdOf(origin: string): Promise<string> {
  const response = await fetch(`${origin}/v1/workflows`, { headers: { authorization: `Bearer ${KEY_A}` } });
  return ((await response.json()) as { items: { workflowId: string }[] }).items[0]!.workflowId;
}
