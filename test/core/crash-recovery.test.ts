import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import { runTurn } from '../../shared/core/turn.ts';
import {
  CrashError,
  driveRun,
  engineDeps,
  FaultyStore,
  ScriptedModel,
  text,
  toolUse,
} from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

const assistantPersisted = (change: RunChange) => (change.messages ?? []).some((m) => m.role === 'assistant');
const pendingRow = (tool: string) => (change: RunChange) =>
  (change.ledgerCreate ?? []).some((r) => r.tool === tool && r.status === 'pending');
const settle = (tool: string) => (change: RunChange) =>
  (change.ledgerSettle ?? []).some((r) => r.tool === tool);

/**
 * The crash points of one turn: when, which commit, how many times the non-idempotent append may have run
 * (counted at the action), and how its ledger row must end.
 */
const crashPoints: [
  string,
  'before' | 'after',
  (change: RunChange) => boolean,
  number,
  'completed' | 'failed',
][] = [
  ['after the model response is persisted', 'after', assistantPersisted, 1, 'completed'],
  [
    'after the ledger pending row of the non-idempotent call',
    'after',
    pendingRow('notes_append'),
    0,
    'failed',
  ],
  ['after dispatch, before settle of the non-idempotent call', 'before', settle('notes_append'), 1, 'failed'],
  ['after settle, before the turn commit', 'after', settle('notes_append'), 1, 'completed'],
  ['after the ledger pending row of the idempotent call', 'after', pendingRow('notes_put'), 1, 'completed'],
  ['after dispatch, before settle of the idempotent call', 'before', settle('notes_put'), 1, 'completed'],
];

describe('runTurn crash recovery', () => {
  it.each(crashPoints)(
    'crash %s: the retried turn repeats no non-idempotent effect and the run stays consistent',
    async (point, when, matches, appends, appendStatus) => {
      // Prepare: one turn that calls an idempotent and a non-idempotent action, then a final answer.
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version);
      const model = new ScriptedModel([
        {
          content: [
            text('Recording.'),
            toolUse('p1', 'notes_put', { name: 'state', value: 'v1' }),
            toolUse('a1', 'notes_append', { name: 'log', line: 'once' }),
          ],
          stopReason: 'tool_use',
        },
        { content: [text('Done.')], stopReason: 'end_turn' },
      ]);
      const pointer = { runId: run.runId, turn: 0, segmentStartTurn: 0 };

      // Act: crash at the point, then retry the same turn the way Step Functions would, and finish the run.
      const faulty = engineDeps(store, model, { store: new FaultyStore(store, when, matches, point) });
      await expect(runTurn(faulty, pointer)).rejects.toBeInstanceOf(CrashError);
      const outcomes = await driveRun(engineDeps(store, model), run.runId);

      // Assess
      expect(outcomes.at(-1)?.next).toBe('done');
      expect((await store.getNoteLines(run.runId, 'log')) ?? []).toHaveLength(appends);
      expect(await store.getNoteLines(run.runId, 'state')).toEqual(['v1']);
      const ledger = await store.listLedger(run.runId);
      expect(Object.fromEntries(ledger.map((row) => [row.tool, row.status]))).toEqual({
        notes_append: appendStatus,
        notes_put: 'completed',
      });
      if (appendStatus === 'failed') {
        expect(ledger.find((r) => r.tool === 'notes_append')?.outcome?.content).toMatch(/Outcome unknown/);
        const answer = model.requests.at(-1)!.messages.at(-1)!.content as ContentBlock[];
        expect(
          answer.some(
            (block) =>
              block.type === 'tool_result' &&
              block.tool_use_id === 'a1' &&
              /NOT repeated/.test(block.content),
          ),
        ).toBe(true);
      }
      const messages = await store.listMessages(run.runId);
      expect(messages.map((m) => m.seq)).toEqual(messages.map((_, index) => index));
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(
        transcriptProblems(messages.map((m) => ({ role: m.role, content: m.content as ContentBlock[] }))),
      ).toEqual([]);
      expect(
        verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
      ).toMatchObject({ ok: true });
      // Every crash came after the first response was persisted: it is reused, and the model is asked once per turn.
      expect(model.requests.map((r) => r.messages.filter((m) => m.role === 'assistant').length)).toEqual([
        0, 1,
      ]);
    },
  );
});
