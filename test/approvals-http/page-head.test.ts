/**
 * The approval page reads what it shows in one request (the approval, its run and its workflow head, named by
 * the link's read hints), and an approval is recorded only while the workflow head is still at the revision the
 * page was rendered with (signed into the form nonce; a ConditionCheck in the decision's transaction, no read).
 * Against DynamoDB Local, the pages on a store of their own whose requests are counted, as the approval-http
 * function's container is on AWS.
 */
import { describe, expect, it } from 'vitest';
import { issueFormNonce, RESULT_TITLES } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { minimalWorkflow, seedWorkflow } from '../support/store.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  approvalScenario,
  BOSS,
  countedStore,
  headingOf,
  keyring,
  nonceOf,
  PUBLIC_BASE,
  postForm,
  type Scenario,
  snapshot,
  store,
} from './support.ts';

const wire = useSfnWire();

const WITHDRAWN = 'has been withdrawn from the workflow since it was requested';

/** Renders the page from the link as sent; the form's token, nonce and action path. */
async function openPage(s: Scenario, path = s.linkOf(BOSS).path) {
  const response = await s.app.request(path);
  const html = await response.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  const url = action ? new URL(action) : undefined;
  return {
    status: response.status,
    html,
    t: s.linkOf(BOSS).token,
    action: url && `${url.pathname}${url.search}`,
  };
}

function post(s: Scenario, action: string, fields: Record<string, string>) {
  return s.app.request(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

const headOf = async (s: Scenario) => (await store.getWorkflowHead(s.run.owner, s.run.workflowId))!;
const setEnabled = async (s: Scenario, enabled: boolean) => {
  const head = await headOf(s);
  await store.updateWorkflowHead(head, { ...head, enabled });
};

describe('The approval page and decision, by their requests', () => {
  it('page: the approval, its run and its head in one BatchGetItem; a form without its state on another container: one read, one transaction', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    // The decision on a container that did not serve the page, posted without the page's sealed state (an API
    // client, a page of an earlier release): it reads the approval and run (with the state: form-state.test.ts).
    const elsewhere = createApprovalApp({
      store: pages,
      clock: s.clock,
      keyring,
      taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
      publicBaseUrl: PUBLIC_BASE,
      logger: s.logger,
    });
    // A container's first page also reads the workflow version, once (immutable: kept for every later page).
    await openPage(s);
    expect(pages.sent).toEqual(['BatchGetItem APR,RUN,WF', 'GetItem']);
    pages.sent.length = 0;

    // Act
    const page = await openPage(s);
    const pageRequests = [...pages.sent];
    pages.sent.length = 0;
    const decided = await post({ ...s, app: elsewhere }, page.action!, {
      t: page.t,
      nonce: nonceOf(page.html),
      decision: 'approve',
    });

    // Assess
    expect(page.status).toBe(200);
    expect(pageRequests).toEqual(['BatchGetItem APR,RUN,WF']);
    expect(decided.status).toBe(200);
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved);
    expect(pages.sent).toEqual(['BatchGetItem APR,RUN', 'TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    expect(wire.calls.map((call) => call.target)).toEqual(['AWSStepFunctions.SendTaskSuccess']);
  });

  it('a link without read hints (sent before they existed) reads one item after another, and still decides', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    const bare = `/approvals/${s.approvalId}?t=${s.linkOf(BOSS).token}`;

    // Act
    const page = await openPage(s, bare);
    const decided = await post(s, page.action!, {
      t: page.t,
      nonce: nonceOf(page.html),
      decision: 'approve',
    });

    // Assess
    expect(page.status).toBe(200);
    expect(pages.sent.slice(0, 3)).toEqual(['GetItem', 'GetItem', 'GetItem']);
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved);
  });

  it("read hints naming another workflow's head or another run are not used: the approval's own decide", async () => {
    // Prepare: another workflow of the same owner, disabled; the link names it and another run
    const s = await approvalScenario(wire);
    const other = await seedWorkflow(store, minimalWorkflow({ name: 'other-flow' }), { owner: s.run.owner });
    await store.updateWorkflowHead(other.head, { ...other.head, enabled: false });
    const link = new URL(s.linkOf(BOSS).path, 'http://x');
    link.searchParams.set('wf', other.head.workflowId);
    const elsewhere = new URL(s.linkOf(BOSS).path, 'http://x');
    elsewhere.searchParams.set('run', 'run_000000000000');

    // Act
    const page = await openPage(s, `${link.pathname}${link.search}`);
    const otherRun = await openPage(s, `${elsewhere.pathname}${elsewhere.search}`);
    const decided = await post(s, page.action!, {
      t: page.t,
      nonce: nonceOf(page.html),
      decision: 'approve',
    });

    // Assess: not "withdrawn" (its own workflow is enabled), the page of its own run, approved as granted
    expect(page.status).toBe(200);
    expect(page.html).not.toContain(WITHDRAWN);
    expect(otherRun.status).toBe(200);
    expect(otherRun.html).toContain(s.run.runId);
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved);
  });
});

describe('An approval posted after the workflow changed since its page', () => {
  it.each<[string, (s: Scenario) => Promise<void>]>([
    ['disabled', (s) => setEnabled(s, false)],
    [
      'disabled and enabled again (what the page showed holds, but the head moved)',
      async (s) => {
        await setEnabled(s, false);
        await setEnabled(s, true);
      },
    ],
    [
      'deleted',
      async (s) => {
        const head = await headOf(s);
        await store.updateWorkflowHead(head, { ...head, enabled: false, deleted: true }, true);
      },
    ],
  ])(
    'is refused when the workflow was %s: 409, nothing recorded, nothing resumed',
    async (_label, change) => {
      // Prepare: the page rendered while the action was granted
      const s = await approvalScenario(wire);
      const page = await openPage(s);
      expect(page.html).not.toContain(WITHDRAWN);
      await change(s);
      const before = await snapshot(s.run.runId, s.approvalId);

      // Act
      const refused = await post(s, page.action!, {
        t: page.t,
        nonce: nonceOf(page.html),
        decision: 'approve',
      });

      // Assess: fail closed; the approval stays open for a decision from a fresh page
      expect(refused.status).toBe(409);
      expect(headingOf(await refused.text())).toBe('Workflow changed');
      expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
      expect(before.approval?.status).toBe('pending');
      expect(wire.calls).toHaveLength(0);
    },
  );

  it('a fresh page shows the change, and its approval is recorded as the page said (will not run)', async () => {
    // Prepare
    const s = await approvalScenario(wire);
    const stale = await openPage(s);
    await setEnabled(s, false);
    await post(s, stale.action!, { t: stale.t, nonce: nonceOf(stale.html), decision: 'approve' });

    // Act
    const fresh = await openPage(s);
    const decided = await post(s, fresh.action!, {
      t: fresh.t,
      nonce: nonceOf(fresh.html),
      decision: 'approve',
    });

    // Assess
    expect(fresh.html).toContain(WITHDRAWN);
    expect(decided.status).toBe(200);
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved_withdrawn);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
  });

  it('a denial is recorded whatever changed: it is right either way', async () => {
    // Prepare
    const s = await approvalScenario(wire);
    const page = await openPage(s);
    await setEnabled(s, false);

    // Act
    const denied = await post(s, page.action!, { t: page.t, nonce: nonceOf(page.html), decision: 'deny' });

    // Assess
    expect(denied.status).toBe(200);
    expect(headingOf(await denied.text())).toBe(RESULT_TITLES.denied);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'denied' });
  });

  it('a nonce whose head revision was altered is refused (403), nothing recorded: the claim is signed', async () => {
    // Prepare: the page's nonce, its head revision moved to the head's new one without re-signing
    const s = await approvalScenario(wire);
    const page = await openPage(s);
    await setEnabled(s, false);
    const [payload, mac] = nonceOf(page.html).split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    claims.head.rev = (await headOf(s)).rev;
    const forged = `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
    const before = await snapshot(s.run.runId, s.approvalId);

    // Act
    const refused = await post(s, page.action!, { t: page.t, nonce: forged, decision: 'approve' });

    // Assess
    expect(refused.status).toBe(403);
    expect(headingOf(await refused.text())).toBe(RESULT_TITLES.invalid_link);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toHaveLength(0);
  });

  it('a nonce without a head revision (a page of an earlier release) reads the head after the decision', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    await setEnabled(s, false);
    const nonce = issueFormNonce(
      { approvalId: s.approvalId, approver: BOSS, nowMs: s.clock.nowMs() },
      keyring,
    );

    // Act
    const decided = await postForm(s.app, s.approvalId, {
      t: s.linkOf(BOSS).token,
      nonce,
      decision: 'approve',
    });

    // Assess: recorded, and the result says what the head says now
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved_withdrawn);
    expect(pages.sent).toContain('GetItem');
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved' });
  });
});
