/**
 * A `pending` idempotent ledger row (the runtime stopped after its dispatch) is sent again with its
 * Idempotency-Key. One written before the gate denied numbers past 2^53 (shared/core/inexact-number.ts) can hold
 * such a number, read back rounded from the transcript: if the first send never arrived, sending it again would
 * act on another number than the model wrote. It is not sent again; its outcome stays unknown, as a
 * non-idempotent call's does.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Action, ActionCatalog } from '../../shared/core/actions.ts';
import { RunHandle } from '../../shared/core/engine.ts';
import { effectiveGrant } from '../../shared/core/gate.ts';
import { argsHashOf, idempotencyKeyFor } from '../../shared/core/identity.ts';
import { resumePending } from '../../shared/core/tool-dispatch.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import { asAgentVersion } from '../../shared/schemas/workflow-record.ts';
import { engineDeps, ScriptedModel } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** Resumes the pending row of a call `{ id }` to an idempotent action; answers its outcome and what was sent. */
async function resumeWith(id: number) {
  // `notes_put` stands for an idempotent action taking a number (an account id).
  const sent: unknown[] = [];
  const credit: Action = {
    name: 'notes_put',
    description: 'Credit an account.',
    input: z.object({ id: z.number() }).strict(),
    idempotent: true,
    irreversible: false,
    run: async (input) => {
      sent.push(input);
      return { content: 'credited', isError: false };
    },
  };
  const actions: ActionCatalog = { resolve: (name) => (name === 'notes_put' ? credit : undefined) };
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version);
  const definition = asAgentVersion(version).definition;
  const clock = new FixedClock();
  const deps = engineDeps(store, new ScriptedModel([]), { actions, clock });
  const use = { type: 'tool_use' as const, id: 'c1', name: 'notes_put', input: { id } };
  const row: LedgerRow = {
    schemaVersion: 1,
    runId: run.runId,
    toolUseId: 'c1',
    turn: 0,
    tool: 'notes_put',
    argsHash: argsHashOf('notes_put', { id }),
    idempotent: true,
    idempotencyKey: idempotencyKeyFor(run.runId, 0, 'c1'),
    status: 'pending',
    attempts: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  const assistant = {
    schemaVersion: 1 as const,
    runId: run.runId,
    seq: 1,
    turn: 0,
    role: 'assistant' as const,
    content: [use],
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  const ctx = { assistant, definition, grant: effectiveGrant(definition, definition, true) };
  const outcome = await resumePending(new RunHandle(run, { store, clock }), deps, ctx, use, row);
  return { outcome, sent };
}

describe('resuming a pending idempotent call', () => {
  it('sends a call with safe numbers again', async () => {
    const { outcome, sent } = await resumeWith(Number.MAX_SAFE_INTEGER);
    expect(sent).toEqual([{ id: Number.MAX_SAFE_INTEGER }]);
    expect(outcome).toEqual({ content: 'credited', isError: false });
  });

  it('does not send one holding a number past 2^53 again: its outcome is unknown', async () => {
    const { outcome, sent } = await resumeWith(JSON.parse('12345678901234567890'));
    expect(sent).toEqual([]);
    expect(outcome).toMatchObject({ content: expect.stringMatching(/^Outcome unknown: .*NOT repeated/s) });
  });
});
