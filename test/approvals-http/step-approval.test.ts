/**
 * A graph service step's approval goes through the same request and decision as a turn's, with a wait of its
 * own: the run stays `running` (other steps go on), RequestApproval attaches its token to that approval only,
 * a decision answers that wait even while another step's approval is pending, and an approval nobody can be
 * sent is denied at once.
 */
import { describe, expect, it } from 'vitest';
import { type RequestApprovalDeps, requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { newApproval } from '../../shared/core/approval-record.ts';
import { RunHandle } from '../../shared/core/run-handle.ts';
import { inboxNotifier, type Notifier, snsNotifier } from '../../shared/notify/index.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import { forEveryOwner } from '../notify/fixtures.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { BOSS, keyring, PUBLIC_BASE, recordingLogger, store } from './support.ts';
import { useWires } from './wires.ts';

const wires = useWires();

function depsWith(clock: FixedClock, notifier: Notifier): RequestApprovalDeps {
  return {
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    notifier,
    taskTokens: sfnTaskTokens(wires.sfn.client, { sleep: async () => {} }),
    logger: recordingLogger(),
  };
}

/** A running run with two steps each waiting on its own approval (as two gated service steps in parallel). */
async function twoStepApprovals(clock: FixedClock) {
  const { version } = await seedWorkflow(store, minimalWorkflow({ name: 'graph-like' }), { clock });
  const created = await seedRun(store, version, { clock });
  const approvals: Approval[] = ['pay', 'notify'].map((stepId) =>
    newApproval(
      created,
      {
        toolUseId: `step-${stepId}-1`,
        turn: 0,
        tool: 'notes_append',
        input: { name: 'log', line: stepId },
        approvers: [BOSS],
        timeoutSeconds: 600,
        reason: `step ${stepId}`,
        step: { stepId, attempt: 1 },
      },
      clock.nowMs(),
    ),
  );
  const run = await new RunHandle(created, { store, clock }).commit({
    approvalCreate: approvals,
    next: (current) => ({
      ...current,
      status: 'running',
      pendingApprovalIds: approvals.map((approval) => approval.approvalId),
    }),
  });
  return { run, pay: approvals[0]!, notify: approvals[1]! };
}

describe('requestApproval and decideApproval for graph step approvals', () => {
  it('attaches a step wait’s token to its own approval only, the run still running', async () => {
    const clock = new FixedClock();
    const { run, pay, notify } = await twoStepApprovals(clock);
    const inbox = inboxNotifier();

    const result = await requestApproval(depsWith(clock, inbox), {
      runId: run.runId,
      taskToken: 'token-pay',
      approvalId: pay.approvalId,
    });

    expect(result).toMatchObject({
      status: 'notified',
      notified: [{ approvalId: pay.approvalId, approver: BOSS }],
    });
    expect((await store.getApproval(pay.approvalId))?.taskToken).toBe('token-pay');
    expect((await store.getApproval(notify.approvalId))?.taskToken).toBeUndefined();
    expect(inbox.notices().map((notice) => notice.url)).toEqual([expect.stringContaining(pay.approvalId)]);
    expect((await store.getRun(run.runId))?.status).toBe('running');
  });

  it('answers a step’s wait on its decision while another step’s approval is still pending', async () => {
    const clock = new FixedClock();
    const { run, pay, notify } = await twoStepApprovals(clock);
    const deps = depsWith(clock, inboxNotifier());
    await requestApproval(deps, { runId: run.runId, taskToken: 'token-pay', approvalId: pay.approvalId });
    await requestApproval(deps, {
      runId: run.runId,
      taskToken: 'token-notify',
      approvalId: notify.approvalId,
    });

    const decided = await decideApproval(
      { store, clock },
      { approvalId: pay.approvalId, approver: BOSS, decision: 'denied' },
    );

    expect(decided.resumeToken).toBe('token-pay');
    expect((await store.getApproval(notify.approvalId))?.status).toBe('pending');
  });

  it('denies a step approval nobody can be sent at once, and answers its wait', async () => {
    const clock = new FixedClock();
    const { run, pay, notify } = await twoStepApprovals(clock);
    const deps = depsWith(
      clock,
      snsNotifier(wires.sns.client, 'arn:aws:sns:eu-west-1:123456789012:t', forEveryOwner()),
    );

    const result = await requestApproval(deps, {
      runId: run.runId,
      taskToken: 'token-pay',
      approvalId: pay.approvalId,
    });

    expect(result).toEqual({ status: 'undeliverable', undeliverable: [pay.approvalId], answer: 'sent' });
    expect((await store.getApproval(pay.approvalId))?.status).toBe('undeliverable');
    expect((await store.getApproval(notify.approvalId))?.status).toBe('pending');
    expect(wires.sfn.calls).toEqual([
      expect.objectContaining({
        target: 'AWSStepFunctions.SendTaskSuccess',
        body: expect.objectContaining({ taskToken: 'token-pay' }),
      }),
    ]);
  });

  it('answers at once when the approval is not the run’s any more (the step moved on)', async () => {
    const clock = new FixedClock();
    const { run, pay } = await twoStepApprovals(clock);
    await new RunHandle(run, { store, clock }).commit({
      next: (current) => ({
        ...current,
        pendingApprovalIds: current.pendingApprovalIds.filter((id) => id !== pay.approvalId),
      }),
    });

    const result = await requestApproval(depsWith(clock, inboxNotifier()), {
      runId: run.runId,
      taskToken: 'token-late',
      approvalId: pay.approvalId,
    });

    expect(result).toEqual({ status: 'not_waiting', answer: 'sent' });
    expect((await store.getApproval(pay.approvalId))?.taskToken).toBeUndefined();
  });
});
