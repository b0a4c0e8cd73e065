/**
 * A model's tool_use id becomes the ledger key `TOOL#<id>` and goes back to the model in its tool_result. An id
 * the Messages API refuses back (outside ^[A-Za-z0-9_-]+$), or two calls with one id, fail the turn with a named
 * error naming the id, before any call is gated or dispatched (shared/core/transcript-limits.ts unusableReason).
 */
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import type { Action, ActionCatalog } from '../../shared/core/actions.ts';
import { unusableReason } from '../../shared/core/transcript-limits.ts';
import * as z from '../../shared/zod.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** A run whose one model answer is `uses`, with an action counting how often it ran. */
async function runWith(uses: ReturnType<typeof toolUse>[]) {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version);
  let dispatched = 0;
  const counted: Action = {
    name: 'current_time',
    description: 'counts its calls',
    input: z.strictObject({}),
    idempotent: false,
    irreversible: false,
    run: async () => {
      dispatched++;
      return { content: 'now', isError: false };
    },
  };
  const deps = engineDeps(
    store,
    new ScriptedModel([
      { content: [text('Calling.'), ...uses], stopReason: 'tool_use' },
      { content: [text('Done.')], stopReason: 'end_turn' },
    ]),
  );
  const actions: ActionCatalog = {
    resolve: (name, definition) =>
      name === 'current_time' ? counted : deps.actions.resolve(name, definition),
  };
  const outcomes = await driveRun({ ...deps, actions }, run.runId);
  return { run, outcomes, dispatched: () => dispatched };
}

describe('tool_use ids', () => {
  it('fails the turn naming an id the API would refuse back, before any call is dispatched', async () => {
    const { run, outcomes, dispatched } = await runWith([
      toolUse('ok_1', 'current_time', {}),
      toolUse('bad id#€', 'current_time', {}),
    ]);

    expect(outcomes.map((outcome) => outcome.next)).toEqual(['failed']);
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: {
        name: 'ModelOutputInvalidError',
        message: expect.stringContaining(
          `the tool call id "bad id#€" is not letters, digits, '_' and '-' only`,
        ),
      },
    });
    expect(dispatched()).toBe(0);
    expect(await store.listLedger(run.runId)).toEqual([]);
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({ ok: true });
  });

  it('fails the turn naming an id two calls share, before either is dispatched', async () => {
    const { run, outcomes, dispatched } = await runWith([
      toolUse('twice', 'current_time', {}),
      toolUse('twice', 'current_time', {}),
    ]);

    expect(outcomes.map((outcome) => outcome.next)).toEqual(['failed']);
    expect((await store.getRun(run.runId))?.error).toEqual({
      name: 'ModelOutputInvalidError',
      message: `(the model's response was not kept: two tool calls have the id "twice")`,
    });
    expect(dispatched()).toBe(0);
    expect(await store.listLedger(run.runId)).toEqual([]);
  });

  it('accepts the ids the API issues', () => {
    expect(unusableReason([toolUse('toolu_01D7FLrfh4GYq7yT1ULFeyMV', 'current_time', {})])).toBeUndefined();
    expect(unusableReason([toolUse('', 'current_time', {})])).toBe(
      `the tool call id "" is not letters, digits, '_' and '-' only`,
    );
  });
});
