/**
 * RequestApproval sends the links, then stores the task token in one commit of the run. A busy run (a graph run
 * whose other steps commit meanwhile) can make that commit conflict again and again: the links are out, so a
 * conflict must never end the run. The commit is retried (read again, merged) until it lands; the run waits
 * with the token stored and one `approval_notified` entry per notice.
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { RunConflictError } from '../../shared/core/store-errors.ts';
import type { RunStore } from '../../shared/core/store-port.ts';
import type { ApprovalNotice } from '../../shared/notify/index.ts';
import { FixedClock } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { BOSS, keyring, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';

/** The store, whose first `conflicts` commits fail as a concurrent write of the run would (nothing written). */
function conflictingStore(conflicts: number) {
  let failed = 0;
  const commits = { attempted: 0 };
  const wrapped = withStoreOverrides<RunStore>(store, {
    commit: async (change) => {
      commits.attempted++;
      if (failed < conflicts) {
        failed++;
        throw new RunConflictError(change.run.runId, change.run.rev);
      }
      return store.commit(change);
    },
  });
  return { wrapped, commits };
}

describe('RequestApproval: its commit conflicts after the links went out', () => {
  // One conflict was always read again and merged; seven in a row used to end the task (five commits at most).
  it('stores the token after 7 conflicting commits in a row: the run still waits', async () => {
    // Prepare
    const conflicts = 7;
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock);
    const { wrapped, commits } = conflictingStore(conflicts);
    const sent: ApprovalNotice[] = [];

    // Act
    const result = await requestApproval(
      {
        store: wrapped,
        clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: { channel: 'test', reaches: () => true, notify: async (notice) => void sent.push(notice) },
        taskTokens: { sendSuccess: async () => 'sent', sendFailure: async () => 'sent' },
        logger: recordingLogger(),
      },
      { runId: run.runId, taskToken: 'token-1', approvalIds: [approval.approvalId] },
    );

    // Assess: the link went out once, the commit landed after the conflicts, the run waits on the token.
    expect(result.status).toBe('notified');
    expect(sent.map((notice) => notice.approver)).toEqual([BOSS]);
    expect(commits.attempted).toBe(conflicts + 1);
    expect(await store.getApproval(approval.approvalId)).toMatchObject({
      status: 'pending',
      taskToken: 'token-1',
    });
    expect((await store.getRun(run.runId))?.status).toBe('awaiting_approval');
    const notified = (await store.listAudit(run.runId)).filter((entry) => entry.type === 'approval_notified');
    expect(notified).toHaveLength(1);
  });
});
