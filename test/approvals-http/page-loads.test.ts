/**
 * A decision on the container that served its page decides on the approval and run as the page read them
 * (shared/approvals-http/page-loads.ts): no read. A kept copy that went stale is never trusted over the store:
 * the decision's commit is conditional on it, fails, and the decision reads again.
 */
import { describe, expect, it } from 'vitest';
import { createActionCatalog } from '../../shared/actions/index.ts';
import { RESULT_TITLES } from '../../shared/approvals/index.ts';
import { FORM_NONCE_MAX_AGE_MS } from '../../shared/approvals/nonce.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { PageLoads } from '../../shared/approvals-http/page-loads.ts';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { testStore } from '../support/store.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  approvalScenario,
  BOSS,
  headingOf,
  keyring,
  nonceOf,
  OPS,
  PUBLIC_BASE,
  postForm,
  type Scenario,
  store,
} from './support.ts';

const wire = useSfnWire();

/** A store for the pages whose requests are recorded by command name. */
function countedStore(): DynamoStore & { sent: string[] } {
  const pages = testStore() as DynamoStore & { sent: string[] };
  pages.sent = [];
  pages.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      pages.sent.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'pageRequests' },
  );
  return pages;
}

/** The approval pages of another container (another Lambda execution environment) on `pages`. */
function otherContainer(s: Scenario, pages: DynamoStore = store) {
  return createApprovalApp({
    store: pages,
    clock: s.clock,
    keyring,
    taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
    publicBaseUrl: PUBLIC_BASE,
    actions: createActionCatalog({ notes: store }),
    logger: s.logger,
  });
}

/** Opens the approver's link on `app`: the form's token and nonce. */
async function formOn(app: Scenario['app'], s: Scenario, approver = BOSS) {
  const link = s.linkOf(approver);
  const page = await app.request(link.path);
  expect(page.status).toBe(200);
  return { t: link.token, nonce: nonceOf(await page.text()) };
}

describe('A decision on the container that served its page', () => {
  it('decides in one transaction, without reading the approval or the run again', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    const form = await formOn(s.app, s);
    pages.sent.length = 0;

    // Act
    const response = await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });

    // Assess
    expect(response.status).toBe(200);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.approved);
    expect(pages.sent).toEqual(['TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    expect(wire.calls).toEqual([
      expect.objectContaining({
        target: 'AWSStepFunctions.SendTaskSuccess',
        body: expect.objectContaining({ taskToken: s.taskToken }),
      }),
    ]);
  });

  it('a second decision from the same page reads: "already decided", nothing changes', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    const form = await formOn(s.app, s);
    await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });
    const approval = await store.getApproval(s.approvalId);
    pages.sent.length = 0;
    wire.reset();

    // Act
    const again = await postForm(s.app, s.approvalId, { ...form, decision: 'deny' });

    // Assess
    expect(again.status).toBe(409);
    expect(headingOf(await again.text())).toBe('Already decided');
    expect(pages.sent[0]).toBe('GetItem');
    expect(pages.sent).not.toContain('TransactWriteItems');
    expect(await store.getApproval(s.approvalId)).toEqual(approval);
    expect(wire.calls).toEqual([]);
  });

  it('a kept page whose approval another container decided since: told who decided, nothing changes', async () => {
    // Prepare
    const s = await approvalScenario(wire, [BOSS, OPS]);
    const bossForm = await formOn(s.app, s, BOSS);
    const elsewhere = otherContainer(s);
    const opsForm = await formOn(elsewhere, s, OPS);
    expect((await postForm(elsewhere, s.approvalId, { ...opsForm, decision: 'deny' })).status).toBe(200);
    const decided = await store.getApproval(s.approvalId);
    wire.reset();

    // Act
    const response = await postForm(s.app, s.approvalId, { ...bossForm, decision: 'approve' });

    // Assess
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(OPS);
    expect(await store.getApproval(s.approvalId)).toEqual(decided);
    expect(wire.calls).toEqual([]);
  });

  it('a kept page whose wait was requested again since (a new task token): resumes with the new token', async () => {
    // Prepare: the page is read, then a retried RequestApproval replaces the task token.
    const s = await approvalScenario(wire);
    const form = await formOn(s.app, s);
    const newToken = `${s.taskToken}-again`;
    await requestApproval(
      {
        store,
        clock: s.clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: inboxNotifier(),
        taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
        logger: s.logger,
      },
      { runId: s.run.runId, taskToken: newToken },
    );
    expect(await store.getApproval(s.approvalId)).toMatchObject({ taskToken: newToken });
    wire.reset();

    // Act
    const response = await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });

    // Assess: the stale copy's commit failed its condition; the decision read again and resumed the live wait.
    expect(response.status).toBe(200);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', taskToken: newToken });
    expect(wire.calls).toEqual([
      expect.objectContaining({
        target: 'AWSStepFunctions.SendTaskSuccess',
        body: expect.objectContaining({ taskToken: newToken }),
      }),
    ]);
  });
});

describe('Class: PageLoads', () => {
  const load = (approvalId: string, pad = 0) =>
    ({
      approval: { approvalId, args: { line: 'x'.repeat(pad) } },
      run: { runId: `run_${approvalId}` },
    }) as unknown as Parameters<PageLoads['keep']>[0];

  it('gives a kept load once', () => {
    const loads = new PageLoads();
    loads.keep(load('apr_a'), 0);

    expect(loads.take('apr_a', 1)?.run.runId).toBe('run_apr_a');
    expect(loads.take('apr_a', 2)).toBeUndefined();
    expect(loads.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('gives nothing once a form nonce of that page would have expired', () => {
    const loads = new PageLoads();
    loads.keep(load('apr_a'), 0);

    expect(loads.take('apr_a', FORM_NONCE_MAX_AGE_MS + 1)).toBeUndefined();
  });

  it('lets go of what no decision can use any more when it keeps another', () => {
    const loads = new PageLoads();
    loads.keep(load('apr_a'), 0);
    loads.keep(load('apr_b'), FORM_NONCE_MAX_AGE_MS + 1);

    expect(loads.size.entries).toBe(1);
    expect(loads.take('apr_b', FORM_NONCE_MAX_AGE_MS + 2)).toBeDefined();
  });

  it('drops the oldest past its bounds of entries and bytes, and keeps nothing too large', () => {
    const byCount = new PageLoads(2, 1_000_000);
    for (const id of ['apr_a', 'apr_b', 'apr_c']) byCount.keep(load(id), 0);
    expect(byCount.take('apr_a', 0)).toBeUndefined();
    expect(byCount.take('apr_c', 0)).toBeDefined();

    const byBytes = new PageLoads(10, 3_000);
    byBytes.keep(load('apr_a', 1_000), 0);
    byBytes.keep(load('apr_b', 1_000), 0);
    byBytes.keep(load('apr_c', 1_000), 0);
    byBytes.keep(load('apr_big', 2_000), 0);
    expect(byBytes.take('apr_a', 0)).toBeUndefined();
    expect(byBytes.take('apr_big', 0)).toBeUndefined();
    expect(byBytes.take('apr_c', 0)).toBeDefined();
    expect(byBytes.size.bytes).toBeLessThanOrEqual(3_000);
  });
});
