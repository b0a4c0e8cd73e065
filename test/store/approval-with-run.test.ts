/**
 * An approval and its run in one BatchGetItem (the decision form names the run): strongly consistent, and the
 * approval's own `runId` decides which run comes back, whatever the hint says.
 */
import { describe, expect, inject, it } from 'vitest';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, ScriptedModel, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';

function countingStore() {
  const { endpoint, tableName } = inject('dynamodb');
  const store = new DynamoStore({ endpoint, tableName });
  const sent: { command: string; consistent: unknown }[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        ConsistentRead?: unknown;
        RequestItems?: Record<string, { ConsistentRead?: unknown }>;
      };
      const consistent = input.ConsistentRead ?? Object.values(input.RequestItems ?? {})[0]?.ConsistentRead;
      sent.push({ command: String(context.commandName), consistent });
      return next(args);
    },
    { step: 'initialize', name: 'requestCounter' },
  );
  return { store, sent };
}

/** A run parked on one approval, and a second run of the same workflow. */
async function parkedRun(store: DynamoStore) {
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({
      gates: { notes_append: 'needs_approval' },
      approvals: { approvers: ['a@example.com'] },
    }),
  );
  const run = await seedRun(store, version);
  const other = await seedRun(store, version);
  const model = new ScriptedModel([
    { content: [toolUse('g1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use' },
  ]);
  await runTurn(engineDeps(store, model), { runId: run.runId, turn: 0, segmentStartTurn: 0 });
  const approvalId = (await store.getRun(run.runId))!.pendingApprovalIds[0]!;
  return { run, other, approvalId };
}

describe('getApprovalWithRun', () => {
  it('reads one by one when BatchGetItem keeps leaving keys unprocessed (a throttled table)', async () => {
    // Prepare: every BatchGetItem answers nothing and leaves its keys unprocessed
    const { store, sent } = countingStore();
    const { run, approvalId } = await parkedRun(store);
    store.ctx.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'BatchGetItemCommand') return next(args);
        const input = args.input as { RequestItems: Record<string, unknown> };
        return {
          response: {},
          output: { Responses: {}, UnprocessedKeys: input.RequestItems, $metadata: {} },
        };
      },
      { step: 'initialize', name: 'leaveUnprocessed' },
    );
    sent.length = 0;

    // Act
    const both = await store.getApprovalWithRun(approvalId, run.runId);

    // Assess: a few backed-off rounds, then the approval and its run by GetItem, both found
    const commands = sent.map((request) => request.command);
    expect(commands.filter((command) => command === 'BatchGetItemCommand').length).toBe(4);
    expect(commands.slice(-2)).toEqual(['GetItemCommand', 'GetItemCommand']);
    expect(both?.approval.approvalId).toBe(approvalId);
    expect(both?.run?.runId).toBe(run.runId);
  });

  it('reads the approval and the run it names in one strongly consistent request', async () => {
    // Prepare
    const { store, sent } = countingStore();
    const { run, approvalId } = await parkedRun(store);
    sent.length = 0;

    // Act
    const both = await store.getApprovalWithRun(approvalId, run.runId);

    // Assess
    expect(sent).toEqual([{ command: 'BatchGetItemCommand', consistent: true }]);
    expect(both?.approval.approvalId).toBe(approvalId);
    expect(both?.run?.runId).toBe(run.runId);
    expect(both?.run?.status).toBe('awaiting_approval');
  });

  it('sees a decision committed just before (no stale run or approval)', async () => {
    // Prepare
    const { store } = countingStore();
    const { run, approvalId } = await parkedRun(store);
    await decideApproval(
      { store, clock: new FixedClock() },
      { approvalId, approver: 'a@example.com', decision: 'denied' },
    );

    // Act
    const both = await store.getApprovalWithRun(approvalId, run.runId);

    // Assess
    expect(both?.approval.status).toBe('denied');
    expect(both?.run?.approvalDecisions).toEqual([expect.objectContaining({ approvalId, status: 'denied' })]);
  });

  it("returns the approval's own run when the hint names another run", async () => {
    // Prepare
    const { store } = countingStore();
    const { run, other, approvalId } = await parkedRun(store);

    // Act
    const both = await store.getApprovalWithRun(approvalId, other.runId);

    // Assess
    expect(both?.run?.runId).toBe(run.runId);
  });

  it('answers undefined for an unknown approval, with or without a hint', async () => {
    // Prepare
    const { store } = countingStore();
    const { run } = await parkedRun(store);

    // Act
    const hinted = await store.getApprovalWithRun('apr_00000000000000000000000000000000', run.runId);
    const bare = await store.getApprovalWithRun('apr_00000000000000000000000000000000');

    // Assess
    expect(hinted).toBeUndefined();
    expect(bare).toBeUndefined();
  });
});

describe('getRunWithApprovals', () => {
  it("reads a run with its approvals, strongly consistent, 100 keys a request, never another run's", async () => {
    // Prepare: two parked runs; ask for run A with B's approval, A's own, and ids that name nothing
    const { store, sent } = countingStore();
    const a = await parkedRun(store);
    const b = await parkedRun(store);
    const missing = Array.from({ length: 119 }, (_, i) => `apr_missing${String(i).padStart(6, '0')}`);
    sent.length = 0;

    // Act
    const both = await store.getRunWithApprovals(a.run.runId, [b.approvalId, a.approvalId, ...missing]);

    // Assess: 122 keys in two requests, both consistent; only A's approval comes back
    expect(sent).toEqual([
      { command: 'BatchGetItemCommand', consistent: true },
      { command: 'BatchGetItemCommand', consistent: true },
    ]);
    expect(both.run?.runId).toBe(a.run.runId);
    expect(both.approvals.map((approval) => approval.approvalId)).toEqual([a.approvalId]);
  });
});
