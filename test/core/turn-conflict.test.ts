/**
 * A write conflict inside a turn continues from what is persisted: a side write (resume bookkeeping, an
 * approver's decision) landing between the model call and its commit, or between a dispatch and its
 * settle, costs neither a second model call nor a second dispatch; a cancel racing the turn ends the run
 * cancelled, with honest closing results.
 */
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { LedgerConflictError, RunConflictError } from '../../shared/core/store-errors.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { cancelRun } from '../../shared/runs/cancel-run.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { assistantPersisted, countingCatalog, InterleavingStore, settleOf } from '../support/races.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** One turn with an idempotent, a non-idempotent and a read-only call, then a final answer. */
const script = () =>
  new ScriptedModel([
    {
      content: [
        text('Recording.'),
        toolUse('p1', 'notes_put', { name: 'state', value: 'v1' }),
        toolUse('a1', 'notes_append', { name: 'log', line: 'once' }),
        toolUse('t1', 'current_time', {}),
      ],
      stopReason: 'tool_use',
    },
    { content: [text('Done.')], stopReason: 'end_turn' },
  ]);

async function prepare() {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version);
  const model = script();
  const base = engineDeps(store, model);
  const actions = countingCatalog(base.actions);
  return { run, model, actions, base };
}

/** The local stack's resume recording a new execution on the run: a side write that only moves `rev`. */
const resumeBookkeeping = (runId: string) => async () => {
  const current = (await store.getRun(runId))!;
  await store.commit({ run: current, next: { ...current, executionArn: `arn:local:${runId}-resume-1` } });
};

async function assertConsistent(runId: string, owner: string) {
  const messages = await store.listMessages(runId);
  expect(messages.map((m) => m.seq)).toEqual(messages.map((_, index) => index));
  expect(
    transcriptProblems(messages.map((m) => ({ role: m.role, content: m.content as ContentBlock[] }))),
  ).toEqual([]);
  const audit = await store.listAudit(runId);
  expect(verifyAuditChain(audit, { owner, runId })).toMatchObject({ ok: true });
  expect(verifyTranscriptBinding(audit, messages)).toEqual({ ok: true });
  expect((await store.listLedger(runId)).filter((row) => row.status === 'pending')).toEqual([]);
  return messages;
}

describe('a side write racing a turn', () => {
  it.each<[string, (change: RunChange) => boolean]>([
    ['between the model call and its commit', assistantPersisted],
    ['between the idempotent dispatch and its settle', settleOf('notes_put')],
    ['between the non-idempotent dispatch and its settle', settleOf('notes_append')],
  ])('%s: one model call per turn, one dispatch per call, and the run finishes', async (_point, matches) => {
    // Prepare
    const { run, model, actions, base } = await prepare();
    const racing = new InterleavingStore(store, matches, resumeBookkeeping(run.runId));

    // Act
    const outcomes = await driveRun({ ...base, store: racing, actions }, run.runId);

    // Assess
    expect(outcomes.at(-1)?.next).toBe('done');
    expect(model.requests).toHaveLength(2);
    expect(actions.runs).toEqual({ notes_put: 1, notes_append: 1, current_time: 1 });
    expect(await store.getNoteLines(run.runId, 'log')).toEqual(['once']);
    const ledger = await store.listLedger(run.runId);
    expect(ledger.map((row) => [row.tool, row.status, row.outcomeUnknown ?? false]).sort()).toEqual([
      ['current_time', 'completed', false],
      ['notes_append', 'completed', false],
      ['notes_put', 'completed', false],
    ]);
    const after = await store.getRun(run.runId);
    expect(after).toMatchObject({ status: 'done', executionArn: `arn:local:${run.runId}-resume-1` });
    await assertConsistent(run.runId, run.owner);
  });

  it('an approver deciding another call while the turn commits does not repeat the model call', async () => {
    // Prepare: the side write is an audit-only commit on the run, as a decision makes.
    const { run, model, actions, base } = await prepare();
    const decision = async () => {
      const current = (await store.getRun(run.runId))!;
      await store.commit({
        run: current,
        next: current,
        audit: [
          { type: 'approval_decided', actor: 'approver:boss@example.com', data: { approvalId: 'other' } },
        ],
      });
    };

    // Act
    const outcomes = await driveRun(
      { ...base, store: new InterleavingStore(store, assistantPersisted, decision), actions },
      run.runId,
    );

    // Assess
    expect(outcomes.at(-1)?.next).toBe('done');
    expect(model.requests).toHaveLength(2);
    expect(actions.runs).toEqual({ notes_put: 1, notes_append: 1, current_time: 1 });
    await assertConsistent(run.runId, run.owner);
  });
});

describe('a cancel racing a turn', () => {
  const cancel = (runId: string, owner: string, executions: RecordingExecutions) => () =>
    cancelRun({ store, executions, clock: new FixedClock() }, { owner, runId, actor: `owner:${owner}` });

  it('landing between the model call and its commit ends the run cancelled without calling the model again', async () => {
    // Prepare
    const { run, model, actions, base } = await prepare();
    const executions = new RecordingExecutions();
    const racing = new InterleavingStore(store, assistantPersisted, cancel(run.runId, run.owner, executions));

    // Act
    const outcome = await runTurn(
      { ...base, store: racing, actions },
      { runId: run.runId, turn: 0, segmentStartTurn: 0 },
    );

    // Assess
    expect(outcome).toMatchObject({ next: 'failed', stopReason: 'cancelled' });
    expect(model.requests).toHaveLength(1);
    expect(actions.runs).toEqual({});
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'cancelled' });
    await assertConsistent(run.runId, run.owner);
  });

  it.each<[string, (error: unknown, change: RunChange) => unknown]>([
    ['the run conflict', (error) => error],
    [
      'the settled ledger row',
      (error, change) =>
        error instanceof RunConflictError
          ? new LedgerConflictError(change.run.runId, change.ledgerSettle![0]!.toolUseId, 'already settled')
          : error,
    ],
  ])(
    'landing while a non-idempotent call is in flight (reported as %s) says per call: completed, outcome unknown, not executed',
    async (_reported, report) => {
      // Prepare: p1 completes, a1 is dispatched (it ran) and the cancel lands before its settle.
      const { run, model, actions, base } = await prepare();
      const executions = new RecordingExecutions();
      const racing = new InterleavingStore(
        store,
        settleOf('notes_append'),
        cancel(run.runId, run.owner, executions),
        report,
      );

      // Act
      const outcome = await runTurn(
        { ...base, store: racing, actions },
        { runId: run.runId, turn: 0, segmentStartTurn: 0 },
      );

      // Assess: the run is cancelled, nothing was repeated, and the closing message tells the truth.
      expect(outcome).toMatchObject({ next: 'failed', stopReason: 'cancelled' });
      expect(model.requests).toHaveLength(1);
      expect(actions.runs).toEqual({ notes_put: 1, notes_append: 1 });
      expect(await store.getNoteLines(run.runId, 'log')).toEqual(['once']);
      const messages = await assertConsistent(run.runId, run.owner);
      const closing = messages.at(-1)!.content as ContentBlock[];
      const answer = (id: string) =>
        closing.find((block) => block.type === 'tool_result' && block.tool_use_id === id) as
          | { content: string }
          | undefined;
      expect(answer('p1')?.content).not.toMatch(/Not executed|Outcome unknown/);
      expect(answer('a1')?.content).toMatch(
        /^Outcome unknown: this call was dispatched, but the run was cancelled before its result was recorded/,
      );
      expect(answer('t1')?.content).toBe('Not executed: the run was cancelled.');
      const ledger = await store.listLedger(run.runId);
      expect(ledger.find((row) => row.tool === 'notes_append')).toMatchObject({
        status: 'failed',
        outcomeUnknown: true,
        outcome: { outcomeUnknown: true },
      });
      expect(ledger.find((row) => row.tool === 'current_time')).toBeUndefined();
      // The run's execution: the recorded one, else its first, named after the run (shared/runs/execution-arn.ts).
      expect(executions.stops.map((stop) => stop.executionArn)).toEqual([
        run.executionArn ?? executions.arnOf(run.kind, run.runId),
      ]);
    },
  );
});
