/**
 * A run that ends while a dispatched call never settled (a crash after dispatch, then a run timeout,
 * MarkFailed or a cancel) never tells the model or the transcript that the call was "not executed": it is
 * outcome unknown, and its pending ledger row is settled so. Calls never dispatched are "not executed".
 */
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { cancelRun } from '../../shared/runs/cancel-run.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { CrashError, engineDeps, FaultyStore, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { settleOf } from '../support/races.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** a1 is dispatched (the note is appended) and the runtime dies before settling it; t1 never dispatched. */
async function crashedAfterDispatch() {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version);
  const model = new ScriptedModel([
    {
      content: [
        text('Logging.'),
        toolUse('a1', 'notes_append', { name: 'log', line: 'sent' }),
        toolUse('t1', 'current_time', {}),
      ],
      stopReason: 'tool_use',
    },
  ]);
  const faulty = new FaultyStore(store, 'before', settleOf('notes_append'), 'before settle');
  await expect(
    runTurn(engineDeps(store, model, { store: faulty }), { runId: run.runId, turn: 0, segmentStartTurn: 0 }),
  ).rejects.toBeInstanceOf(CrashError);
  expect(await store.getNoteLines(run.runId, 'log')).toEqual(['sent']);
  expect((await store.listLedger(run.runId)).map((row) => row.status)).toEqual(['pending']);
  return { run, model };
}

const endings: [string, (runId: string, owner: string) => Promise<unknown>, string, RegExp][] = [
  [
    'a run timeout',
    async (runId) => {
      const clock = new FixedClock();
      clock.advance(30 * 24 * 3600 * 1000);
      const model = new ScriptedModel([]);
      return runTurn(engineDeps(store, model, { clock }), { runId, turn: 0, segmentStartTurn: 0 });
    },
    'failed',
    /^Outcome unknown: this call was dispatched, but the run timed out before its result was recorded/,
  ],
  [
    'MarkFailed',
    (runId) =>
      markRunFailed(
        { store, clock: new FixedClock() },
        { runId, error: { name: 'States.TaskFailed', message: 'x' } },
      ),
    'failed',
    /^Outcome unknown: this call was dispatched, but the run failed \(States\.TaskFailed\) before/,
  ],
  [
    'a cancel',
    (runId, owner) =>
      cancelRun(
        { store, executions: new RecordingExecutions(), clock: new FixedClock() },
        { owner, runId, actor: `owner:${owner}` },
      ),
    'cancelled',
    /^Outcome unknown: this call was dispatched, but the run was cancelled before its result was recorded/,
  ],
];

describe('ending a run with a dispatched call that never settled', () => {
  it.each(endings)(
    '%s answers it as outcome unknown and settles its ledger row',
    async (_name, end, status, unknown) => {
      // Prepare
      const { run } = await crashedAfterDispatch();

      // Act
      await end(run.runId, run.owner);

      // Assess
      expect(await store.getRun(run.runId)).toMatchObject({ status });
      const messages = await store.listMessages(run.runId);
      const closing = messages.at(-1)!;
      expect(closing.role).toBe('user');
      const results = closing.content as ContentBlock[];
      expect(results).toEqual([
        { type: 'tool_result', tool_use_id: 'a1', content: expect.stringMatching(unknown), is_error: true },
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: expect.stringMatching(/^Not executed: /),
          is_error: true,
        },
      ]);
      expect(JSON.stringify(results[0])).not.toMatch(/Not executed/);
      const ledger = await store.listLedger(run.runId);
      expect(ledger).toEqual([
        expect.objectContaining({ toolUseId: 'a1', status: 'failed', outcomeUnknown: true }),
      ]);
      expect(await store.getNoteLines(run.runId, 'log')).toEqual(['sent']);
      expect(
        transcriptProblems(messages.map((m) => ({ role: m.role, content: m.content as ContentBlock[] }))),
      ).toEqual([]);
      const audit = await store.listAudit(run.runId);
      expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
      expect(verifyTranscriptBinding(audit, messages)).toEqual({ ok: true });
      expect(audit.some((entry) => entry.type === 'settle' && entry.data.outcomeUnknown === true)).toBe(true);
    },
  );
});
