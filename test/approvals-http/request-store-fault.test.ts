/**
 * RequestApproval sends the links, then stores the wait's task token with the notices in one commit. When
 * that commit fails with a store fault other than a conflict (after the SDK's retries), the task fails with the
 * links already delivered; the state machine's Catch then records the run failed (MarkFailed), or, if that
 * fails too, nothing does. A delivered link must not decide anything either way: no decision could resume the
 * run. The approver sees why, and nothing is written. On DynamoDB Local, the fault injected into the commit.
 */
import { describe, expect, it } from 'vitest';
import { createActionCatalog } from '../../shared/actions/index.ts';
import { issueFormNonce } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import type { RunStore } from '../../shared/core/store-port.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { FixedClock } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import {
  BOSS,
  headingOf,
  keyring,
  PUBLIC_BASE,
  parkRun,
  postForm,
  recordingLogger,
  snapshot,
  store,
} from './support.ts';

/** DynamoDB's answer when it is out of capacity, as the SDK throws it once its own retries are spent. */
function serverFault(): Error {
  return Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server' });
}

async function requestThatFailsToCommit() {
  const clock = new FixedClock();
  const { run, approval } = await parkRun(clock);
  const inbox = inboxNotifier();
  const resumed: string[] = [];
  const taskTokens = {
    sendSuccess: async (token: string) => {
      resumed.push(token);
      return 'sent' as const;
    },
    sendFailure: async () => 'sent' as const,
  };
  const faulty = withStoreOverrides<RunStore>(store, {
    commit: async () => {
      throw serverFault();
    },
  });
  const request = requestApproval(
    { store: faulty, clock, keyring, publicBaseUrl: PUBLIC_BASE, notifier: inbox, taskTokens },
    { runId: run.runId, taskToken: 'token-1', approvalIds: [approval.approvalId] },
  );
  await expect(request).rejects.toThrow('Internal server error');
  const app = createApprovalApp({
    store,
    clock,
    keyring,
    taskTokens,
    publicBaseUrl: PUBLIC_BASE,
    actions: createActionCatalog({ notes: store }),
    logger: recordingLogger(),
  });
  const [notice] = inbox.notices();
  const url = new URL(notice!.url);
  const approve = () =>
    postForm(app, approval.approvalId, {
      t: url.searchParams.get('t')!,
      nonce: issueFormNonce(
        { approvalId: approval.approvalId, approver: BOSS, nowMs: clock.nowMs() },
        keyring,
      ),
      decision: 'approve',
    });
  return { clock, run, approval, app, page: `${url.pathname}${url.search}`, approve, resumed };
}

describe('RequestApproval: a store fault after the links went out', () => {
  it('leaves the delivered link dead: no decision is taken, the page says the request is not open', async () => {
    // Prepare: the link is out, the token never stored (and MarkFailed not run yet, or failed too)
    const s = await requestThatFailsToCommit();
    const before = await snapshot(s.run.runId, s.approval.approvalId);
    expect(before.approval).toMatchObject({ status: 'pending' });
    expect(before.approval?.taskToken).toBeUndefined();

    // Act
    const page = await s.app.request(s.page);
    const posted = await s.approve();

    // Assess: no form offered, the decision refused, nothing written
    expect(page.status).toBe(409);
    expect(headingOf(await page.text())).toBe('Request not open');
    expect(posted.status).toBe(409);
    expect(headingOf(await posted.text())).toBe('Request not open');
    expect(await snapshot(s.run.runId, s.approval.approvalId)).toEqual(before);
    expect(s.resumed).toEqual([]);
  });

  it('once the Catch has recorded the run failed, the link says the run ended', async () => {
    // Prepare
    const s = await requestThatFailsToCommit();
    await markRunFailed(
      { store, clock: s.clock },
      { runId: s.run.runId, error: { name: 'InternalServerError', message: 'store fault' } },
    );
    const before = await snapshot(s.run.runId, s.approval.approvalId);

    // Act
    const posted = await s.approve();

    // Assess
    expect(posted.status).toBe(410);
    const html = await posted.text();
    expect(headingOf(html)).toBe('Run ended');
    expect(html).toContain('No decision was recorded.');
    expect(await snapshot(s.run.runId, s.approval.approvalId)).toEqual(before);
  });
});
