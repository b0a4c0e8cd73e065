/**
 * The decision page reads an approval and its run with one BatchGetItem, which is no snapshot: the task token
 * can be attached between the two reads. The decision must not then write the approval back without the token
 * (or with an old one): the run would not be resumed until its wait timed out.
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { BOSS, keyring, PUBLIC_BASE, parkRun, recordingLogger, store } from '../approvals-http/support.ts';
import { FixedClock } from '../support/store.ts';

/** Attaches `taskToken` to the run's wait as RequestApproval does (a link sent to every approver). */
async function attachTaskToken(
  deps: { store: typeof store; clock: FixedClock },
  runId: string,
  taskToken: string,
) {
  await requestApproval(
    {
      ...deps,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: { channel: 'test', reaches: () => true, notify: async () => {} },
      taskTokens: { sendSuccess: async () => 'sent', sendFailure: async () => 'sent' },
      logger: recordingLogger(),
    },
    { runId, taskToken },
  );
}

async function parkedRun() {
  const clock = new FixedClock();
  const { run, approval } = await parkRun(clock, [BOSS]);
  return { deps: { store, clock }, runId: run.runId, approvalId: approval.approvalId };
}

describe('a decision made from an approval read before its task token was attached', () => {
  it('keeps the token and hands it back to resume the run', async () => {
    // Prepare: the approval read without a token, then the token attached, then the run read (moved by it)
    const { deps, runId, approvalId } = await parkedRun();
    const staleApproval = (await store.getApproval(approvalId))!;
    expect(staleApproval.taskToken).toBeUndefined();
    await attachTaskToken(deps, runId, 'token-1');
    const freshRun = (await store.getRun(runId))!;

    // Act
    const result = await decideApproval(
      deps,
      { approvalId, approver: BOSS, decision: 'approved' },
      { approval: staleApproval, run: freshRun },
    );

    // Assess: decided once, with the token that resumes the execution, and the token still stored
    expect(result.approval.status).toBe('approved');
    expect(result.resumeToken).toBe('token-1');
    const stored = await store.getApproval(approvalId);
    expect(stored?.status).toBe('approved');
    expect(stored?.taskToken).toBe('token-1');
  });

  it('hands back the newer token when a re-requested wait replaced it after the read', async () => {
    // Prepare: token-1 read with the approval, token-2 attached after (the wait was re-requested)
    const { deps, runId, approvalId } = await parkedRun();
    await attachTaskToken(deps, runId, 'token-1');
    const staleApproval = (await store.getApproval(approvalId))!;
    await attachTaskToken(deps, runId, 'token-2');
    const freshRun = (await store.getRun(runId))!;

    // Act
    const result = await decideApproval(
      deps,
      { approvalId, approver: BOSS, decision: 'denied' },
      { approval: staleApproval, run: freshRun },
    );

    // Assess
    expect(result.resumeToken).toBe('token-2');
    expect((await store.getApproval(approvalId))?.taskToken).toBe('token-2');
  });
});
