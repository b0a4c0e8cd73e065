/**
 * The approval page in a real browser (Debian's Chromium through playwright-core; nothing is downloaded):
 * the worked example parks on its gated post, an approver opens the link, reads the exact post and the
 * model's reason, clicks Approve, and the run completes. A second tab opened on the same link before the
 * click then clicks Deny and is told the approval was already decided.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { runWorkedExample } from '../../shared/demo/worked-example.ts';
import { testDefinitions } from '../support/local-definitions.ts';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './launch.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type Block = { type: string; text?: string; name?: string; input?: Record<string, unknown> };
const fixture = JSON.parse(
  await readFile(new URL('../../examples/fixtures/morning-news.fixture.json', import.meta.url), 'utf8'),
) as { turns: { response?: { content: Block[] } }[] };
/** What the scripted model proposes: its words before the call (the reason) and the post's exact arguments. */
const proposal = fixture.turns[1]!.response!.content;
const REASON = proposal.find((block) => block.type === 'text')!.text!;
const POST = proposal.find((block) => block.name === 'post_to_site')!.input!;

const temps: string[] = [];
let launching: Promise<BrowserContext> | undefined;

afterAll(async () => {
  await launching?.then((launched) => launched.close()).catch(() => undefined);
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

const tempDir = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

/** The text as rendered: what a person reads (Playwright's `innerText`, not the DOM property). */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the approver reads
const rendered = (locator: Locator) => locator.innerText();

/** What an approver sees on a page: headings, the action, the arguments as shown, the reason. */
async function read(page: Page) {
  return {
    title: await page.title(),
    h1: (await page.locator('h1').first().textContent())?.trim(),
    action: (await page.locator('h2:text-is("Action") + p code').textContent())?.trim(),
    args: JSON.parse((await page.locator('#args').textContent()) ?? 'null') as unknown,
    argsText: await rendered(page.locator('#args')),
    reason: (await page.locator('blockquote').textContent())?.trim(),
    text: await rendered(page.locator('main')),
    target: await rendered(page.locator('#target')),
    host: await rendered(page.locator('#target strong.host')),
    bodyAsRead: await rendered(page.locator('h3:text-is("body") + pre.text-arg')),
  };
}

/** Clicks a decision button; returns the POST's status and the result page it lands on (heading, message). */
async function decide(page: Page, button: 'Approve' | 'Deny') {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    // The result page is the form's target: the approval URL without the link token.
    page.waitForURL((url) => /^\/approvals\/apr_/.test(url.pathname) && !url.searchParams.has('t')),
    page.getByRole('button', { name: button }).click(),
  ]);
  return {
    status: response.status(),
    h1: (await page.locator('h1').textContent())?.trim(),
    text: await rendered(page.locator('main')),
  };
}

describe('the approval page in Chromium', () => {
  it('shows the exact post and the reason; Approve completes the run; a second tab’s Deny is "already decided"', async () => {
    requireChromium();
    // Prepare: a fresh profile, so nothing from another run (cache, cookies) is in play.
    const profile = await tempDir('wf-chromium-');
    const shots = await tempDir('wf-shots-');
    // The browser launches while the example starts its stack (both mostly wait on their own processes).
    launching = chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    const seen: Record<string, unknown> = {};

    // Act
    const result = await runWorkedExample({
      definitions: testDefinitions(),
      autoApprove: false,
      dataDir: await tempDir('wf-browser-demo-'),
      feedPort: 0,
      sitePort: 0,
      print: () => undefined,
      onApprovalLink: async (link) => {
        const context = await launching!;
        const first = await context.newPage();
        const response = await first.goto(link);
        seen.csp = response?.headers()['content-security-policy'];
        seen.status = response?.status();
        seen.page = await read(first);
        // Opened before anyone decides: GET changes nothing, so this tab still offers the form.
        const second = await context.newPage();
        await second.goto(link);
        seen.secondBefore = await read(second);
        seen.screenshot = join(shots, 'approval-page.png');
        await first.screenshot({ path: seen.screenshot as string, fullPage: true });

        seen.approved = await decide(first, 'Approve');
        seen.denied = await decide(second, 'Deny');
        // Before the stack stops: Chromium keeps (pre)connected sockets that would hold its server open.
        await context.close();
      },
    });

    // Assess: the page an approver judged.
    const page = seen.page as Awaited<ReturnType<typeof read>>;
    expect(seen.status).toBe(200);
    expect(seen.csp).toContain("default-src 'none'");
    expect(page.h1).toBe('Approval requested');
    // The title names the owner that asks first (the local stack's owner), then the action and workflow.
    expect(page.title).toMatch(/^Approval requested by \S+: post_to_site \(morning-news\)$/);
    expect(page.action).toBe('post_to_site');
    expect(page.text).toContain('Publish a post on the team site. Visible to everyone who reads the site.');
    expect(page.text).toMatch(/Fingerprint \(SHA-256\): [0-9a-f]{64}/);
    expect(page.args).toEqual(POST);
    expect(page.argsText).toContain(`"title": "${POST.title}"`);
    expect(page.argsText).toContain(JSON.stringify(POST.body));
    expect(page.reason).toBe(REASON);
    // Where the call goes (the host emphasised), and the long text argument with its line breaks.
    expect(page.target).toMatch(/^Calls POST http:\/\/127\.0\.0\.1:\d+\/api\/posts$/);
    expect(page.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(String(POST.body)).toContain('\n');
    expect(page.bodyAsRead).toBe(POST.body);
    expect(page.text).toContain("The model's stated reason");
    expect(page.text).toContain('Written by the model, not verified.');
    expect(page.text).toContain('editor@example.com');
    expect((seen.secondBefore as { h1: string }).h1).toBe('Approval requested');
    // The screenshot.
    const png = await readFile(seen.screenshot as string);
    expect((await stat(seen.screenshot as string)).size).toBeGreaterThan(1000);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // The decisions.
    expect(seen.approved).toMatchObject({ status: 200, h1: 'Approved — the run continues' });
    expect(seen.denied).toMatchObject({ status: 409, h1: 'Already decided' });
    expect((seen.denied as { text: string }).text).toMatch(
      /already decided: approved by editor@example\.com at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\. Your decision was not recorded\./,
    );
    // The run.
    expect(result.run.status).toBe('done');
    expect(result.posts).toBe(1);
    expect(result.auditVerified).toBe(true);
    expect(result.ok).toBe(true);
  }, 180_000);
});
