/**
 * The requests a turn makes (issue #16): writes that belong to the same moment share one transaction, the
 * workflow version is read once per container, and nothing that must be durable first is held back.
 */
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import type { Action, ActionCatalog } from '../../shared/core/actions.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { ApprovalAlreadyDecidedError } from '../../shared/core/store-errors.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { runExecutionInput } from '../../shared/runs/start-run.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import {
  CrashError,
  driveRun,
  engineDeps,
  FaultyStore,
  firstAttempt,
  ScriptedModel,
  text,
  toolUse,
} from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';

/** A store of its own (its own version cache) that counts the DynamoDB requests it sends, by command. */
function countingStore() {
  const { endpoint, tableName } = inject('dynamodb');
  const store = new DynamoStore({ endpoint, tableName });
  const sent: string[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'requestCounter' },
  );
  return { store, sent };
}

/**
 * Another container of the Turn function than the one that ran the previous turn: it holds none of the run, but
 * has run this workflow version before (its version cache is warm, as a reused container's is), and counts from now.
 */
async function otherContainer(run: { owner: string; workflowId: string; workflowVersion: number }) {
  const counting = countingStore();
  await counting.store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
  counting.sent.length = 0;
  return counting;
}

const loop = (calls: number) =>
  new ScriptedModel([
    ...Array.from({ length: calls }, (_, i) => ({
      content: [toolUse(`t${i}`, 'notes_append', { name: 'log', line: `line ${i}` })],
      stopReason: 'tool_use' as const,
    })),
    { content: [text('done')], stopReason: 'end_turn' as const },
  ]);

const reads = (sent: string[]) =>
  sent.filter(
    (name) => name === 'GetItemCommand' || name === 'QueryCommand' || name === 'BatchGetItemCommand',
  );
const transactions = (sent: string[]) => sent.filter((name) => name === 'TransactWriteItemsCommand');

describe('requests per turn', () => {
  it('a plain turn reads the run and the live policy (one BatchGetItem: the container holds the transcript), and writes two transactions', async () => {
    // Prepare: a first turn reads the version into the container's cache (and reserves the second's call).
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(2));
    const attempt = firstAttempt('plain');
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0, attempt });
    sent.length = 0;

    // Act: the next entry into Turn, first attempt, same execution.
    const second = await runTurn(deps, {
      runId: run.runId,
      turn: first.turn,
      segmentStartTurn: 0,
      attempt: firstAttempt('plain'),
    });

    // Assess: the run and the workflow head by key in one request (the transcript is the one this container
    // read and wrote); assistant + pending row, then settle + results + commit + the next turn's reservation
    // (the reservation this turn spent rode on the previous turn's commit).
    expect(second.next).toBe('continue');
    expect(reads(sent)).toEqual(['BatchGetItemCommand']);
    expect(transactions(sent)).toHaveLength(2);
    // The tool's own write (notes_append) is the action's, not the runtime's.
    expect(sent.filter((name) => name === 'UpdateItemCommand')).toHaveLength(1);
    expect((await store.getRun(run.runId))?.reservation).toMatchObject({ turn: second.turn, ahead: {} });
  });

  it("a run's first turn reads the run, its first message and the live policy in one BatchGetItem (the head named by its execution's input)", async () => {
    // Prepare: a container that has never read the run (the run was created elsewhere, as StartRun does).
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(testStore(), minimalWorkflow());
    const run = await seedRun(testStore(), version);
    await store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
    const model = loop(1);
    const deps = engineDeps(store, model);
    sent.length = 0;

    // Act: turn 0 as the run's first execution starts it (shared/runs/start-run.ts).
    const first = await runTurn(deps, { ...runExecutionInput(run), attempt: firstAttempt('first') });

    // Assess: one read request; the model was offered the live policy's tools, and the call ran.
    expect(first.next).toBe('continue');
    expect(reads(sent)).toEqual(['BatchGetItemCommand']);
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toContain('notes_append');
    expect(model.requests[0]?.messages).toHaveLength(1);
  });

  it('a plain turn on another container than the previous turn’s reads the run, its transcript and the live policy in one BatchGetItem (the previous outcome names them)', async () => {
    // Prepare: three turns in one container; the fourth lands on a container that has never read the run
    // (Lambda gives a run's turns no affinity), with the state the previous outcome left.
    const { version } = await seedWorkflow(testStore(), minimalWorkflow());
    const run = await seedRun(testStore(), version);
    const model = loop(4);
    const deps = engineDeps(testStore(), model);
    let outcome = await runTurn(deps, { ...runExecutionInput(run), attempt: firstAttempt('elsewhere') });
    for (let i = 0; i < 2; i++) {
      if (outcome.next !== 'continue') throw new Error(`turn ${outcome.turn}: ${outcome.next}`);
      const { readHint } = outcome;
      outcome = await runTurn(deps, {
        runId: run.runId,
        turn: outcome.turn,
        segmentStartTurn: 0,
        ...(readHint ? { readHint } : {}),
        attempt: firstAttempt('elsewhere'),
      });
    }
    if (outcome.next !== 'continue') throw new Error(`turn ${outcome.turn}: ${outcome.next}`);
    const readHint = outcome.readHint;
    const held = (await testStore().getRun(run.runId))!;
    const { store, sent } = await otherContainer(run);
    const elsewhere = engineDeps(store, model);

    // Act
    const fourth = await runTurn(elsewhere, {
      runId: run.runId,
      turn: outcome.turn,
      segmentStartTurn: 0,
      ...(readHint ? { readHint } : {}),
      attempt: firstAttempt('elsewhere'),
    });

    // Assess: the hint names the run's head and its message count; one read request (the workflow version, read
    // once per container, was read ahead as in the other tests); the model got the whole transcript and the
    // live policy's tools.
    expect(readHint).toEqual({
      owner: run.owner,
      workflowId: run.workflowId,
      messageCount: held.messageCount,
    });
    expect(fourth.next).toBe('continue');
    expect(reads(sent)).toEqual(['BatchGetItemCommand']);
    expect(model.requests.at(-1)?.messages).toHaveLength(held.messageCount);
    expect(model.requests.at(-1)?.tools.map((tool) => tool.name)).toContain('notes_append');
  });

  it('a turn without the hint on another container reads the run with its transcript, then the head: two reads', async () => {
    // Prepare: as above, the state without `readHint` (an outcome an earlier release's Turn wrote).
    const { version } = await seedWorkflow(testStore(), minimalWorkflow());
    const run = await seedRun(testStore(), version);
    const model = loop(2);
    const first = await runTurn(engineDeps(testStore(), model), {
      ...runExecutionInput(run),
      attempt: firstAttempt('nohint'),
    });
    const { store, sent } = await otherContainer(run);

    // Act
    const second = await runTurn(engineDeps(store, model), {
      runId: run.runId,
      turn: first.turn,
      segmentStartTurn: 0,
      attempt: firstAttempt('nohint'),
    });

    // Assess
    expect(second.next).toBe('continue');
    expect(reads(sent)).toEqual(['QueryCommand', 'GetItemCommand']);
  });

  it('a parking turn on another container than the previous turn’s reads in one request too', async () => {
    // Prepare: the first turn runs an allowed call; the second (gated) lands elsewhere.
    const { version } = await seedWorkflow(
      testStore(),
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com'] },
      }),
    );
    const run = await seedRun(testStore(), version);
    const model = new ScriptedModel([
      { content: [toolUse('t0', 'current_time', {})], stopReason: 'tool_use' },
      { content: [toolUse('t1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use' },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);
    const first = await runTurn(engineDeps(testStore(), model), {
      ...runExecutionInput(run),
      attempt: firstAttempt('park'),
    });
    if (first.next !== 'continue') throw new Error(first.next);
    const { store, sent } = await otherContainer(run);

    // Act
    const parking = await runTurn(engineDeps(store, model), {
      runId: run.runId,
      turn: first.turn,
      segmentStartTurn: 0,
      ...(first.readHint ? { readHint: first.readHint } : {}),
      attempt: firstAttempt('park'),
    });

    // Assess: one read, one transaction (the assistant message with its approval); the parking outcome names
    // nothing for the next turn to read ahead (a resume checks the head by a condition).
    expect(parking.next).toBe('await_approval');
    expect(parking).not.toHaveProperty('readHint');
    expect(reads(sent)).toEqual(['BatchGetItemCommand']);
    expect(transactions(sent)).toHaveLength(1);
  });

  it('reads the run, its transcript and the head in one request: two reads fewer than separate reads would take', async () => {
    /** The reads of a later plain turn, with the store as it is or without its one-request read. */
    async function plainTurnReads(oneRequest: boolean) {
      const { store, sent } = countingStore();
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version);
      const used = oneRequest
        ? store
        : new Proxy(store, {
            get: (target, property) =>
              property === 'getRunWithMessages' ? undefined : Reflect.get(target, property, target),
          });
      const deps = engineDeps(used, loop(2));
      const first = await runTurn(deps, {
        runId: run.runId,
        turn: 0,
        segmentStartTurn: 0,
        attempt: firstAttempt('r'),
      });
      sent.length = 0;
      const second = await runTurn(deps, {
        runId: run.runId,
        turn: first.turn,
        segmentStartTurn: 0,
        attempt: firstAttempt('r'),
      });
      expect(second.next).toBe('continue');
      return reads(sent).sort();
    }

    // Act
    const twoReads = await plainTurnReads(false);
    const oneQuery = await plainTurnReads(true);

    // Assess: GetItem run + Query transcript + GetItem head, against one BatchGetItem of the run and the head
    // (the transcript held by the container, which read and wrote it).
    expect(twoReads).toEqual(['GetItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect(oneQuery).toEqual(['BatchGetItemCommand']);
  });

  it('a plain turn invoked without its attempt reserves its own call: three transactions', async () => {
    // Prepare
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(2));
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    sent.length = 0;

    // Act
    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    // Assess: reservation, assistant + pending row, settle + results + commit; nothing reserved ahead.
    expect(second.next).toBe('continue');
    expect(transactions(sent)).toHaveLength(3);
    expect((await store.getRun(run.runId))?.reservation).toBeUndefined();
  });

  it("the final turn reads no ledger when nothing was refused, and stores the answer with the run's end", async () => {
    // Prepare
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    const first = await runTurn(deps, {
      runId: run.runId,
      turn: 0,
      segmentStartTurn: 0,
      attempt: firstAttempt('final'),
    });
    sent.length = 0;

    // Act
    const last = await runTurn(deps, {
      runId: run.runId,
      turn: first.turn,
      segmentStartTurn: 0,
      attempt: firstAttempt('final'),
    });

    // Assess: the assistant message with the run's end, in one transaction.
    expect(last.next).toBe('done');
    expect(reads(sent)).toEqual(['BatchGetItemCommand']);
    expect(transactions(sent)).toHaveLength(1);
    expect((await store.getRun(run.runId))?.status).toBe('done');
  });

  it('stores the assistant message with the pending row of its first call, before the call runs', async () => {
    // Prepare: an allowed action that looks at the store while it runs.
    const { store } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const seen: { rowStatus: string | undefined; assistantStored: boolean }[] = [];
    const probe: Action = {
      name: 'notes_append',
      description: 'Looks at the store (standing in for notes_append).',
      input: z.unknown(),
      idempotent: false,
      irreversible: false,
      run: async () => {
        const rows = await store.listLedger(run.runId);
        const messages = await store.listMessages(run.runId);
        seen.push({
          rowStatus: rows.find((row) => row.toolUseId === 'p1')?.status,
          assistantStored: messages.some((message) => message.role === 'assistant'),
        });
        return { content: 'looked', isError: false };
      },
    };
    const deps = engineDeps(
      store,
      new ScriptedModel([
        { content: [toolUse('p1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use' },
        { content: [text('done')], stopReason: 'end_turn' },
      ]),
    );
    const actions: ActionCatalog = {
      resolve: (name, definition) =>
        name === 'notes_append' ? probe : deps.actions.resolve(name, definition),
    };

    // Act
    await driveRun({ ...deps, actions }, run.runId);

    // Assess: pending before dispatch, and the message that asked for the call stored with it.
    expect(seen).toEqual([{ rowStatus: 'pending', assistantStored: true }]);
    expect((await store.listLedger(run.runId)).map((row) => row.status)).toEqual(['completed']);
  });

  it('reads a workflow version once per container, and each owner only its own', async () => {
    // Prepare
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const versionReads = () => sent.filter((name) => name === 'GetItemCommand').length;
    sent.length = 0;

    // Act
    const found = await store.getWorkflowVersion(version.owner, version.workflowId, version.version);
    const afterFirst = versionReads();
    const again = await store.getWorkflowVersion(version.owner, version.workflowId, version.version);
    const foreign = await store.getWorkflowVersion('someone-else', version.workflowId, version.version);

    // Assess
    expect(found?.version).toBe(version.version);
    expect(again).toEqual(found);
    expect(afterFirst).toBe(1);
    expect(versionReads()).toBe(2); // the foreign owner's look-up went to the table, and found nothing
    expect(foreign).toBeUndefined();
  });

  it('a decision on a run waiting for one approval reads the approval and the run, and writes once', async () => {
    // Prepare: a run parked on one approval.
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com'] },
      }),
    );
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const [approvalId] = (await store.getRun(run.runId))!.pendingApprovalIds;
    sent.length = 0;

    // Act
    const decided = await decideApproval(
      { store, clock: deps.clock },
      { approvalId: approvalId!, approver: 'a@example.com', decision: 'approved' },
    );

    // Assess
    expect(waiting.next).toBe('await_approval');
    expect(decided.approval.status).toBe('approved');
    expect(sent).toEqual(['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('a decision given the approval and run its page just loaded reads neither again', async () => {
    // Prepare
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com'] },
      }),
    );
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const waiting = (await store.getRun(run.runId))!;
    const approval = (await store.getApproval(waiting.pendingApprovalIds[0]!))!;
    sent.length = 0;

    // Act
    const decided = await decideApproval(
      { store, clock: deps.clock },
      { approvalId: approval.approvalId, approver: 'a@example.com', decision: 'approved' },
      { approval, run: waiting },
    );

    // Assess
    expect(decided.approval.status).toBe('approved');
    expect(sent).toEqual(['TransactWriteItemsCommand']);
  });

  it('a decision given a stale approval (decided meanwhile) is refused, and changes nothing', async () => {
    // Prepare: the page loaded the approval, then another approver decided it.
    const { store } = countingStore();
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com', 'b@example.com'] },
      }),
    );
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const waiting = (await store.getRun(run.runId))!;
    const approval = (await store.getApproval(waiting.pendingApprovalIds[0]!))!;
    await decideApproval(
      { store, clock: deps.clock },
      { approvalId: approval.approvalId, approver: 'b@example.com', decision: 'denied' },
    );

    // Act
    const late = decideApproval(
      { store, clock: deps.clock },
      { approvalId: approval.approvalId, approver: 'a@example.com', decision: 'approved' },
      { approval, run: waiting },
    );

    // Assess
    await expect(late).rejects.toBeInstanceOf(ApprovalAlreadyDecidedError);
    expect(await store.getApproval(approval.approvalId)).toMatchObject({
      status: 'denied',
      decidedBy: 'b@example.com',
    });
  });

  it('a resume whose calls were all held for approval reads the run and transcript only', async () => {
    // Prepare: a run parked on its only call, approved.
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com'] },
      }),
    );
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const parked = (await store.getRun(run.runId))!;
    await decideApproval(
      { store, clock: deps.clock },
      { approvalId: parked.pendingApprovalIds[0]!, approver: 'a@example.com', decision: 'approved' },
    );
    sent.length = 0;

    // Act
    const resumed = await runTurn(deps, { runId: run.runId, turn: waiting.turn, segmentStartTurn: 0 });

    // Assess: the run alone by key (the transcript held by the container that parked it); no ledger query (no
    // row yet), no approval read (its decision rides on the run item), no workflow head read (a condition of
    // the resume's first commit).
    expect(parked.awaitingUnrecorded).toBe(true);
    expect(resumed.next).toBe('done');
    expect(reads(sent)).toEqual(['GetItemCommand']);
    expect(await store.listLedger(run.runId)).toEqual([expect.objectContaining({ status: 'completed' })]);
  });

  it('a resume that crashed after recording its dispatch reads the ledger when tried again', async () => {
    // Prepare: the resume commits the approved call's pending row, then crashes before running it.
    const { store } = countingStore();
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['a@example.com'] },
      }),
    );
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(1));
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    await decideApproval(
      { store, clock: deps.clock },
      {
        approvalId: (await store.getRun(run.runId))!.pendingApprovalIds[0]!,
        approver: 'a@example.com',
        decision: 'approved',
      },
    );
    const crashing = new FaultyStore(store, 'after', (c) => (c.ledgerCreate?.length ?? 0) > 0, 'dispatch');
    const pointer = { runId: run.runId, turn: waiting.turn, segmentStartTurn: 0 };
    await expect(runTurn({ ...deps, store: crashing as never }, pointer)).rejects.toThrow(CrashError);
    const crashed = (await store.getRun(run.runId))!;

    // Act
    const retried = await runTurn(deps, pointer);

    // Assess: the hint went with the row; the retry found the row and the run went on.
    expect(crashed.status).toBe('awaiting_approval');
    expect(crashed.awaitingUnrecorded).toBeUndefined();
    expect(retried.next).toBe('done');
    expect(await store.listLedger(run.runId)).toHaveLength(1);
  });

  it('splits merged writes that would not fit one transaction: 60 refused calls in one answer', async () => {
    // Prepare: 60 calls of an action the workflow does not allow (each a refused row and two audit entries).
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const calls = Array.from({ length: 60 }, (_, i) => toolUse(`d${i}`, 'http_request', { i }));
    const model = new ScriptedModel([
      { content: calls, stopReason: 'tool_use' },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);

    // Act
    const outcomes = await driveRun(engineDeps(store, model), run.runId);

    // Assess: every call refused and answered, in more than one transaction (DynamoDB takes 100 items).
    expect(outcomes.map((outcome) => outcome.next)).toEqual(['continue', 'done']);
    const rows = await store.listLedger(run.runId);
    expect(rows).toHaveLength(60);
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['refused']));
    expect(transactions(sent).length).toBeGreaterThan(4);
  });
});

describe('the transcript read alongside the run', () => {
  it('is read again after the run when a commit landed between the two reads', async () => {
    // Prepare: a store whose first read of run and transcript misses the last message (a Query is not a
    // snapshot: a commit can land while it pages).
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = engineDeps(store, loop(2));
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    let stale = true;
    const racing = withStoreOverrides(store, {
      getRunWithMessages: async (runId: string, headHint?: { owner: string; workflowId: string }) => {
        const read = await store.getRunWithMessages(runId, headHint);
        if (!stale) return read;
        stale = false;
        return { ...read, messages: read.messages.slice(0, -1) };
      },
    });
    sent.length = 0;

    // Act
    const second = await runTurn({ ...deps, store: racing }, { ...first, segmentStartTurn: 0 });

    // Assess: the short transcript was not used: read again (the one request, then listMessages' Query), and
    // the turn answered the right message.
    expect(second.next).toBe('continue');
    expect(reads(sent)).toEqual(['BatchGetItemCommand', 'QueryCommand']);
    const messages = await store.listMessages(run.runId);
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
  });
});
