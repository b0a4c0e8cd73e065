/**
 * The decision page reads an approval and its run with one BatchGetItem, which is no snapshot: the task token
 * can be attached between the two reads. The decision must not then write the approval back without the token
 * (or with an old one): the run would not be resumed until its wait timed out.
 */
import { describe, expect, inject, it } from 'vitest';
import { attachTaskToken, decideApproval } from '../../shared/core/approval-ops.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, ScriptedModel, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';

async function parkedRun() {
  const { endpoint, tableName } = inject('dynamodb');
  const store = new DynamoStore({ endpoint, tableName });
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({
      gates: { notes_append: 'needs_approval' },
      approvals: { approvers: ['a@example.com'] },
    }),
  );
  const run = await seedRun(store, version);
  const model = new ScriptedModel([
    { content: [toolUse('g1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use' },
  ]);
  const deps = engineDeps(store, model);
  await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
  const approvalId = (await store.getRun(run.runId))!.pendingApprovalIds[0]!;
  return { store, deps: { store, clock: deps.clock }, runId: run.runId, approvalId };
}

describe('a decision made from an approval read before its task token was attached', () => {
  it('keeps the token and hands it back to resume the run', async () => {
    // Prepare: the approval read without a token, then the token attached, then the run read (moved by it)
    const { store, deps, runId, approvalId } = await parkedRun();
    const staleApproval = (await store.getApproval(approvalId))!;
    expect(staleApproval.taskToken).toBeUndefined();
    await attachTaskToken(deps, runId, 'token-1');
    const freshRun = (await store.getRun(runId))!;

    // Act
    const result = await decideApproval(
      deps,
      { approvalId, approver: 'a@example.com', decision: 'approved' },
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
    const { store, deps, runId, approvalId } = await parkedRun();
    await attachTaskToken(deps, runId, 'token-1');
    const staleApproval = (await store.getApproval(approvalId))!;
    await attachTaskToken(deps, runId, 'token-2');
    const freshRun = (await store.getRun(runId))!;

    // Act
    const result = await decideApproval(
      deps,
      { approvalId, approver: 'a@example.com', decision: 'denied' },
      { approval: staleApproval, run: freshRun },
    );

    // Assess
    expect(result.resumeToken).toBe('token-2');
    expect((await store.getApproval(approvalId))?.taskToken).toBe('token-2');
  });
});
