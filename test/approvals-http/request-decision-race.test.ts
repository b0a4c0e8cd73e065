/**
 * RequestApproval sends the links before it stores the task token (one commit after the notices). The approval
 * pages refuse a decision until the token is stored (request-store-fault.test.ts), but the decision itself
 * (`decideApproval`, called directly here) must stay safe in between: it finds no token and resumes nothing; RequestApproval's
 * commit, fenced on the approval's status and token, must not overwrite the decision, and must answer the wait
 * itself when nothing is left pending, or the run would sit until the wait timed out.
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { runTurn } from '../../shared/core/turn.ts';
import type { ApprovalNotice } from '../../shared/notify/index.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { BOSS, keyring, PUBLIC_BASE, recordingLogger, store } from './support.ts';

/** A run parked on one gated call per entry of `calls` (one approval each). */
async function parkOn(clock: FixedClock, calls: string[]) {
  const workflow = minimalWorkflow({
    gates: { notes_append: 'needs_approval' },
    approvals: { approvers: [BOSS], timeoutSeconds: 600 },
  });
  const { version } = await seedWorkflow(store, workflow, { clock });
  const { runId } = await seedRun(store, version, { clock });
  const model = new ScriptedModel([
    {
      content: calls.map((line, i) => toolUse(`g${i}`, 'notes_append', { name: 'log', line })),
      stopReason: 'tool_use',
    },
    { content: [text('finished')], stopReason: 'end_turn' },
  ]);
  const waiting = await runTurn(engineDeps(store, model, { clock }), { runId, turn: 0, segmentStartTurn: 0 });
  if (waiting.next !== 'await_approval') throw new Error(`expected a parked run, got ${waiting.next}`);
  return { runId, approvalIds: waiting.approvalIds ?? [] };
}

/** What the decision page does on a POST: the approval and its run in one read, then the decision. */
async function decideAsThePage(clock: FixedClock, runId: string, approvalId: string) {
  const loaded = (await store.getApprovalWithRun(approvalId, runId))!;
  return decideApproval(
    { store, clock },
    { approvalId, approver: BOSS, decision: 'approved' },
    { approval: loaded.approval, run: loaded.run! },
  );
}

/** RequestApproval whose channel lets the approver decide `decideOn` the moment its link is handed over. */
async function requestWithFastApprover(
  clock: FixedClock,
  runId: string,
  approvalIds: string[],
  decideOn: string,
) {
  const answered: string[] = [];
  const decisions: Awaited<ReturnType<typeof decideApproval>>[] = [];
  const result = await requestApproval(
    {
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: {
        channel: 'test',
        reaches: () => true,
        notify: async (notice: ApprovalNotice) => {
          if (notice.url.includes(decideOn)) decisions.push(await decideAsThePage(clock, runId, decideOn));
        },
      },
      taskTokens: {
        sendSuccess: async (token) => {
          answered.push(token);
          return 'sent';
        },
        sendFailure: async () => 'sent',
      },
      logger: recordingLogger(),
    },
    { runId, taskToken: 'token-1', approvalIds },
  );
  return { result, answered, decisions };
}

describe('RequestApproval and a decision made before the token is stored', () => {
  it('keeps the decision and answers the wait itself when it was the only approval', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalIds } = await parkOn(clock, ['one']);
    const [approvalId] = approvalIds as [string];

    // Act
    const { result, answered, decisions } = await requestWithFastApprover(
      clock,
      runId,
      approvalIds,
      approvalId,
    );

    // Assess: the decision found no token to resume with; RequestApproval resumed the run instead
    expect(decisions.map((d) => d.resumeToken)).toEqual([undefined]);
    expect(result.status).toBe('not_waiting');
    expect(answered).toEqual(['token-1']);
    expect((await store.getApproval(approvalId))?.status).toBe('approved');
    const types = (await store.listAudit(runId)).map((entry) => entry.type);
    expect(types.slice(-2)).toEqual(['approval_decided', 'approval_notified']);
    expect((await store.getRun(runId))?.approvalDecisions?.map((d) => d.status)).toEqual(['approved']);
  });

  it('stores the token on the approval still pending and leaves the wait to its decision', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalIds } = await parkOn(clock, ['one', 'two']);
    const [first, second] = approvalIds as [string, string];

    // Act: the first is decided while the links go out; the second after RequestApproval's commit
    const { result, answered } = await requestWithFastApprover(clock, runId, approvalIds, first);
    const last = await decideAsThePage(clock, runId, second);

    // Assess
    expect(result.status).toBe('notified');
    expect(answered).toEqual([]);
    expect((await store.getApproval(first))?.taskToken).toBeUndefined();
    expect((await store.getApproval(second))?.taskToken).toBe('token-1');
    expect(last.resumeToken).toBe('token-1');
  });
});
