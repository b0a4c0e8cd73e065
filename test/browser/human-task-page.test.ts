/**
 * The human-task form in a real browser (Debian's Chromium through playwright-core; nothing is downloaded),
 * served over a loopback socket: an assignee opens their link, reads the run context, fills a field of each
 * kind (choice, text, long text, number, integer, checkbox) and submits; the run's wait is answered with the
 * typed values. A second tab opened before the submit then submits and is told it was already submitted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createHumanTaskApp } from '../../shared/human-tasks/index.ts';
import { type SfnWire, startSfnWire } from '../approvals-http/sfn-wire.ts';
import { DEPUTY, MANAGER, store, taskScenario } from '../human-tasks/support.ts';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './launch.ts';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A loopback server whose app is set once its port (and so the pages' origin) is known. */
async function pagesServer() {
  let app: Hono | undefined;
  const server = serve({ fetch: (request) => app!.fetch(request), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setApp: (value: Hono) => {
      app = value;
    },
  };
}

/** The text as rendered: what a person reads (Playwright's `innerText`, not the DOM property). */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the assignee reads
const rendered = (locator: Locator) => locator.innerText();

async function submit(page: Page) {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    page.waitForURL((url) => /^\/human-tasks\/htk_/.test(url.pathname) && !url.searchParams.has('t')),
    page.getByRole('button', { name: 'Submit' }).click(),
  ]);
  return {
    status: response.status(),
    h1: (await page.locator('h1').textContent())?.trim(),
    text: await rendered(page.locator('main')),
  };
}

describe('the human-task form in Chromium', () => {
  it('fills and submits a field of each kind; the run resumes with the typed values; a second tab is refused', async () => {
    requireChromium();
    const wire: SfnWire = await startSfnWire();
    closers.push(() => wire.close());
    const pages = await pagesServer();
    const s = await taskScenario(wire, {}, pages.url);
    pages.setApp(createHumanTaskApp(s.deps));
    const profile = await mkdtemp(join(tmpdir(), 'wf-chromium-'));
    closers.push(() => rm(profile, { recursive: true, force: true }));
    const context: BrowserContext = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    closers.push(() => context.close());
    wire.reset();

    // Act: the manager opens the link; the deputy's tab is open too.
    const manager = await context.newPage();
    const opened = await manager.goto(`${pages.url}${s.linkOf(MANAGER).path}`);
    const deputy = await context.newPage();
    await deputy.goto(`${pages.url}${s.linkOf(DEPUTY).path}`);
    const context_ = await rendered(manager.locator('#context'));
    await manager.getByLabel('Decision').selectOption({ label: 'approve' });
    await manager.getByLabel('Reference').fill('R-2026-42');
    await manager.getByLabel('Note').fill('Checked the photos.\nRefund in full.');
    await manager.getByLabel('Amount').fill('249.5');
    await manager.getByLabel('Copies').fill('2');
    await manager.getByLabel('Urgent').check();
    const submitted = await submit(manager);
    await deputy.getByLabel('Decision').selectOption({ label: 'reject' });
    await deputy.getByLabel('Reference').fill('R-other');
    const second = await submit(deputy);

    // Assess
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(context_).toContain('steps.triage.output.amount');
    expect(context_).toContain('250');
    expect(context_).toContain('Please refund my order <#42> & thanks');
    expect(submitted).toMatchObject({ status: 200, h1: 'Submitted — the run continues' });
    const output = {
      decision: 'approve',
      reference: 'R-2026-42',
      note: 'Checked the photos.\nRefund in full.',
      amount: 249.5,
      copies: 2,
      urgent: true,
    };
    expect(await store.getHumanTask(s.taskId)).toMatchObject({
      status: 'submitted',
      submittedBy: MANAGER,
      submission: output,
    });
    expect(wire.calls).toHaveLength(1);
    expect(JSON.parse(String(wire.calls[0]!.body.output))).toEqual({ output });
    expect(second).toMatchObject({ status: 409, h1: 'Already submitted' });
    expect(second.text).toContain(`already submitted by ${MANAGER}`);
  }, 120_000);
});
