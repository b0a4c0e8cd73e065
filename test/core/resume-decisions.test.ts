/**
 * A resume from approvals (issue #16): the decision rides on the run item, written in the same transaction as
 * the approval's, so the resume reads no approval; the live policy is a condition of the resume's first
 * commit instead of a read, and a policy that moved since is read and obeyed before anything runs.
 */
import { describe, expect, inject, it } from 'vitest';
import { decideApproval, expireApprovals } from '../../shared/core/approval-ops.ts';
import { argsHashOf } from '../../shared/core/identity.ts';
import { ApprovalAlreadyDecidedError, WorkflowHeadMovedError } from '../../shared/core/store-errors.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';

/** A store of its own that records the DynamoDB commands it sends. */
function countingStore() {
  const { endpoint, tableName } = inject('dynamodb');
  const store = new DynamoStore({ endpoint, tableName });
  const sent: string[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      // The command and the kind of item it names (RUN#, APR#, OWNER#), to tell which reads a turn makes.
      const input = args.input as { Key?: { pk?: string }; ExpressionAttributeValues?: { ':pk'?: string } };
      const pk = input.Key?.pk ?? input.ExpressionAttributeValues?.[':pk'] ?? '';
      sent.push(`${String(context.commandName)} ${pk.split('#')[0]}`);
      return next(args);
    },
    { step: 'initialize', name: 'requestCounter' },
  );
  return { store, sent };
}

const ARGS = { name: 'log', line: 'gated' };
const gatedWorkflow = () =>
  minimalWorkflow({ gates: { notes_append: 'needs_approval' }, approvals: { approvers: ['a@example.com'] } });

/** A run parked on one approval of notes_append(ARGS). */
async function parked(clock = new FixedClock()) {
  const { store, sent } = countingStore();
  const { head, version } = await seedWorkflow(store, gatedWorkflow(), { clock });
  const run = await seedRun(store, version, { clock });
  const model = new ScriptedModel([
    { content: [toolUse('g1', 'notes_append', ARGS)], stopReason: 'tool_use' },
    { content: [text('done')], stopReason: 'end_turn' },
  ]);
  const deps = engineDeps(store, model, { clock });
  const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
  const approvalId = (await store.getRun(run.runId))!.pendingApprovalIds[0]!;
  const pointer = { runId: run.runId, turn: waiting.turn, segmentStartTurn: 0 };
  return { store, sent, deps, run, head, version, approvalId, pointer, clock, model };
}

const decide = (s: Awaited<ReturnType<typeof parked>>, decision: 'approved' | 'denied') =>
  decideApproval(
    { store: s.store, clock: s.clock },
    { approvalId: s.approvalId, approver: 'a@example.com', decision },
  );

describe('the decision on the run item', () => {
  it('is written with the decision, and dropped once the run goes on', async () => {
    // Prepare
    const s = await parked();

    // Act
    await decide(s, 'approved');
    const decided = (await s.store.getRun(s.run.runId))!;
    await runTurn(s.deps, s.pointer);

    // Assess
    expect(decided.approvalDecisions).toEqual([
      {
        approvalId: s.approvalId,
        status: 'approved',
        argsHash: argsHashOf('notes_append', ARGS),
        decidedBy: 'a@example.com',
      },
    ]);
    expect((await s.store.getRun(s.run.runId))!.approvalDecisions).toBeUndefined();
  });

  it('answers a denied call without reading its approval or the workflow head', async () => {
    // Prepare
    const s = await parked();
    await decide(s, 'denied');
    s.sent.length = 0;

    // Act
    const resumed = await runTurn(s.deps, s.pointer);

    // Assess: no approval and no workflow head read (the run comes with its transcript in one Query, or by key
    // alone where the container holds the transcript; the final turn's own ledger query aside); the call
    // refused with who denied it, nothing ran.
    expect(resumed.next).toBe('done');
    expect(s.sent.filter((c) => c.startsWith('GetItemCommand') && c !== 'GetItemCommand RUN')).toEqual([]);
    expect(s.sent.filter((c) => / (APR|OWNER)$/.test(c))).toEqual([]);
    expect(JSON.stringify(s.model.requests.at(-1)?.messages.at(-1))).toContain(
      'an approver (a@example.com) denied this call',
    );
    expect((await s.store.getNoteLines(s.run.runId, 'log')) ?? []).toEqual([]);
  });

  it('is written by an expiry too, and the expired call is refused (fail closed)', async () => {
    // Prepare: the approval's time runs out; Expire marks it.
    const s = await parked();
    s.clock.advance(3_600_000);
    await expireApprovals({ store: s.store, clock: s.clock }, s.run.runId);

    // Act
    const resumed = await runTurn(s.deps, s.pointer);

    // Assess
    expect((await s.store.getRun(s.run.runId))!.approvalDecisions).toBeUndefined();
    expect(resumed.next).toBe('done');
    expect((await s.store.getNoteLines(s.run.runId, 'log')) ?? []).toEqual([]);
    expect(JSON.stringify(s.model.requests.at(-1)?.messages.at(-1))).toContain('timed out');
  });
});

describe('the live policy of a resume', () => {
  it('is a condition of its first commit: a workflow disabled after the decision runs nothing', async () => {
    // Prepare: approved, then the owner disables the workflow before the resume.
    const s = await parked();
    await decide(s, 'approved');
    await s.store.updateWorkflowHead(s.head, {
      ...s.head,
      enabled: false,
      updatedAt: new Date(0).toISOString(),
    });

    // Act
    const resumed = await runTurn(s.deps, s.pointer);

    // Assess: the assumed policy failed the commit, the head was read, and the run ended denied.
    expect(resumed.next).toBe('failed');
    expect((await s.store.getRun(s.run.runId))!.stopReason).toBe('policy_denied');
    expect((await s.store.getNoteLines(s.run.runId, 'log')) ?? []).toEqual([]);
    expect(s.model.requests).toHaveLength(1);
  });

  it('a head that moved costs none of the tries a lost race gets', async () => {
    // Prepare: approved, then version 2 (still allowing the call) is published, so the resume's assumed
    // head fails its first commit; after that, the run loses two races.
    const s = await parked();
    await decide(s, 'approved');
    await s.store.addWorkflowVersion(s.head, { ...s.head, latestVersion: 2 }, { ...s.version, version: 2 });
    let headMoved = false;
    let races = 0;
    const racing = withStoreOverrides(s.store, {
      commit: async (change: RunChange) => {
        if (headMoved && races < 2) {
          races += 1;
          // A race the turn itself does not absorb (a run moved by side writes is re-applied inside it).
          throw new ApprovalAlreadyDecidedError(s.approvalId);
        }
        try {
          return await s.store.commit(change);
        } catch (error) {
          if (error instanceof WorkflowHeadMovedError) headMoved = true;
          throw error;
        }
      },
    });

    // Act
    const resumed = await runTurn({ ...s.deps, store: racing }, s.pointer);

    // Assess: the head restart, then two lost races, and the approved call still ran once.
    expect(headMoved).toBe(true);
    expect(races).toBe(2);
    expect(resumed.next).toBe('done');
    expect(await s.store.getNoteLines(s.run.runId, 'log')).toEqual(['gated']);
  });

  it('a version published after the decision without the action withdraws the approved call', async () => {
    // Prepare: approved, then a new version no longer allows notes_append.
    const s = await parked();
    await decide(s, 'approved');
    const withdrawn = { ...s.version.definition, allowedActions: ['notes_put', 'current_time'], gates: {} };
    await s.store.addWorkflowVersion(
      s.head,
      { ...s.head, latestVersion: 2 },
      { ...s.version, version: 2, definition: withdrawn },
    );

    // Act
    const resumed = await runTurn(s.deps, s.pointer);

    // Assess: refused, never dispatched; the run went on to the model.
    expect(resumed.next).toBe('done');
    expect((await s.store.getNoteLines(s.run.runId, 'log')) ?? []).toEqual([]);
    expect(JSON.stringify(s.model.requests.at(-1)?.messages.at(-1))).toMatch(/withdrawn or disabled/);
  });
});
