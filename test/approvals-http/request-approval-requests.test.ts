/**
 * What the RequestApproval function asks of DynamoDB for a run parked on one approval, every approver reached.
 * With the approval ids the parking turn put in the state: the run and its approval in one BatchGetItem, then
 * one transaction (the token stored, the notices audited). With a state from an earlier release (no ids): the
 * run first, to learn them, then the approval, then the same one transaction.
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { FixedClock } from '../support/store.ts';
import { BOSS, keyring, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';

const sent: string[] = [];
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push(String(context.commandName).replace(/Command$/, ''));
    return next(args);
  },
  { step: 'initialize', name: 'requestCounter' },
);

async function requestFor(withIds: boolean) {
  const clock = new FixedClock();
  const parked = await parkRun(clock, [BOSS]);
  const approvalIds = parked.waiting.next === 'await_approval' ? parked.waiting.approvalIds : undefined;
  const notices: string[] = [];
  sent.length = 0;
  const result = await requestApproval(
    {
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: { channel: 'test', reaches: () => true, notify: async (n) => void notices.push(n.approver) },
      taskTokens: { sendSuccess: async () => 'sent', sendFailure: async () => 'sent' },
      logger: recordingLogger(),
    },
    { runId: parked.run.runId, taskToken: 'token-1', ...(withIds ? { approvalIds } : {}) },
  );
  return { parked, approvalIds, notices, result, requests: [...sent] };
}

describe('RequestApproval', () => {
  it('with the approval ids from the state: reads the run and its approval in one request, writes once', async () => {
    // Act
    const { parked, approvalIds, notices, result, requests } = await requestFor(true);

    // Assess
    expect(approvalIds).toEqual([parked.approval.approvalId]);
    expect(result.status).toBe('notified');
    expect(notices).toEqual([BOSS]);
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);
    const audit = (await store.listAuditItems(parked.run.runId)) as { type: string }[];
    expect(audit.map((entry) => entry.type)).toContain('approval_notified');
    expect((await store.getApproval(parked.approval.approvalId))?.taskToken).toBe('token-1');
  });

  it('with a state from an earlier release (no ids): reads the run, then its approval, and writes once', async () => {
    // Act
    const { parked, result, requests } = await requestFor(false);

    // Assess
    expect(result.status).toBe('notified');
    expect(requests).toEqual(['GetItem', 'GetItem', 'TransactWriteItems']);
    expect((await store.getApproval(parked.approval.approvalId))?.taskToken).toBe('token-1');
  });
});
