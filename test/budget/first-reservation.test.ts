/**
 * Turn 0's reservation is made by the run's creation (shared/core/first-reservation.ts): the run item holds it
 * and the day's counter counts it in the creation's transaction, and turn 0's first attempt in the run's first
 * execution (named after the run) spends it with no write before its model call, as a turn ≥ 1 spends the one
 * its predecessor's commit made. Any other attempt counts it as spent; a day without room creates the run
 * without it, and turn 0 stops the run visibly.
 */
import { describe, expect, it } from 'vitest';
import { reserveFirstTurn } from '../../shared/core/first-reservation.ts';
import { prepareRun } from '../../shared/core/new-run.ts';
import type { ModelPort, ModelRequest } from '../../shared/core/ports.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { asAgentVersion } from '../../shared/schemas/workflow-record.ts';
import { IdempotencyConflictError } from '../../shared/store/index.ts';
import { modelOn, scripted } from '../model/helpers.ts';
import { driveRun, engineDeps, firstAttempt } from '../support/engine.ts';
import { FixedClock, randomIds, seedRun, testPlanning, testStore } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { DAY, daySpend, loopThenDone, seedCappedWorkflow, turnZero } from './reservation-fixtures.ts';

const store = testStore();

/** The store, counting run commits (each one TransactWriteItems request), and how many came before a call. */
function counting() {
  const seen = { commits: 0, beforeCall: [] as number[] };
  const counted = withStoreOverrides(store, {
    commit: (change: RunChange) => {
      seen.commits++;
      return store.commit(change);
    },
  });
  const watch = (model: ModelPort): ModelPort => ({
    maxOutputTokens: (request) => model.maxOutputTokens!(request),
    call: (request: ModelRequest) => {
      seen.beforeCall.push(seen.commits);
      return model.call(request);
    },
  });
  return { counted, watch, seen };
}

const auditOf = async (runId: string) => store.listAudit(runId);

describe("turn 0's reservation made by the run's creation", () => {
  it('is written with the run, its first message and the day counter, in one transaction', async () => {
    // Prepare
    const { version } = await seedCappedWorkflow(store);

    // Act
    const run = await seedRun(store, version);

    // Assess
    const stored = (await store.getRun(run.runId))!;
    expect(stored.status).toBe('pending');
    expect(stored.reservation).toEqual({
      turn: 0,
      usd: expect.any(Number),
      day: DAY,
      daily: true,
      ahead: { executionName: run.runId, executionId: '' },
    });
    expect(stored.reservation!.usd).toBeGreaterThan(0);
    expect(await daySpend(store, version)).toEqual({
      totalUsd: stored.reservation!.usd,
      reservedUsd: stored.reservation!.usd,
    });
    expect((await auditOf(run.runId)).map((entry) => [entry.type, entry.data.atCreation])).toEqual([
      ['run_created', undefined],
      ['budget_reserved', true],
    ]);
  });

  it('is counted once for a repeated trigger, and not at all for a creation that fails', async () => {
    // Prepare
    const { version } = await seedCappedWorkflow(store);
    const clock = new FixedClock();
    const create = (input: string) =>
      store.createRun(
        reserveFirstTurn(
          prepareRun({
            version,
            trigger: { type: 'on_demand', caller: 'test' },
            input,
            clock,
            ids: randomIds,
            actor: 'owner:test',
          }),
          asAgentVersion(version).definition,
          testPlanning(store),
          clock,
        ),
        { scope: 'api', key: 'k1', requestHash: `hash-${input}`, expiresAtEpoch: 2_000_000_000 },
      );

    // Act
    const first = await create('a');
    const repeated = await create('a');
    const conflicting = await create('b').catch((error: unknown) => error);

    // Assess: the repeated trigger's and the refused creation's reservations were never written.
    expect(first.created).toBe(true);
    expect(repeated).toMatchObject({ created: false, run: { runId: first.run.runId } });
    expect(conflicting).toBeInstanceOf(IdempotencyConflictError);
    expect(await daySpend(store, version)).toEqual({
      totalUsd: first.run.reservation!.usd,
      reservedUsd: first.run.reservation!.usd,
    });
  });

  it('lets turn 0 call the model with no write before it: two writes for a turn with one tool call', async () => {
    // Prepare: the same run shape created with and without turn 0's reservation.
    const [server, oldServer] = [await scripted(loopThenDone), await scripted(loopThenDone)];
    const { version } = await seedCappedWorkflow(store);
    const clock = new FixedClock();
    const reserved = await seedRun(store, version, { clock });
    const old = await seedRun(store, version, { clock, firstTurn: false });
    const withCreation = counting();
    const withoutIt = counting();

    // Act
    const turn0 = await runTurn(
      engineDeps(withCreation.counted, withCreation.watch(modelOn(server)), { clock }),
      turnZero(reserved.runId, firstAttempt(reserved.runId)),
    );
    const oldTurn0 = await runTurn(
      engineDeps(withoutIt.counted, withoutIt.watch(modelOn(oldServer)), { clock }),
      turnZero(old.runId, firstAttempt(old.runId)),
    );

    // Assess
    expect(turn0.next).toBe('continue');
    expect(withCreation.seen).toEqual({ commits: 2, beforeCall: [0] });
    // A run created before this change (no reservation on the item): turn 0 reserves for itself, as before.
    expect(oldTurn0.next).toBe('continue');
    expect(withoutIt.seen).toEqual({ commits: 3, beforeCall: [1] });
    const types = (await auditOf(reserved.runId)).map((entry) => entry.type);
    expect(types.slice(0, 5)).toEqual([
      'run_created',
      'budget_reserved',
      'status_changed',
      'model_call',
      'budget_settled',
    ]);
    expect(types.filter((type) => type === 'budget_reserved')).toHaveLength(2); // creation's, turn 1's ahead
    const after = (await store.getRun(reserved.runId))!;
    expect(after).toMatchObject({ status: 'running', turn: 1, reservation: { turn: 1 } });
  });

  it('ends a run with one answer in one write (pending to done), its spend settled to the cent', async () => {
    // Prepare
    const server = await scripted({ turns: [loopThenDone.turns[1]!] });
    const { version } = await seedCappedWorkflow(store);
    const clock = new FixedClock();
    const run = await seedRun(store, version, { clock });
    const { counted, watch, seen } = counting();

    // Act
    const outcomes = await driveRun(engineDeps(counted, watch(modelOn(server)), { clock }), run.runId);

    // Assess
    expect(outcomes.map((outcome) => outcome.next)).toEqual(['done']);
    expect(seen).toEqual({ commits: 1, beforeCall: [0] });
    const ended = (await store.getRun(run.runId))!;
    const assistant = (await store.listMessages(run.runId)).find((message) => message.role === 'assistant')!;
    expect(ended).toMatchObject({ status: 'done', costUsd: assistant.costUsd });
    expect(ended.reservation).toBeUndefined();
    expect(await daySpend(store, version)).toEqual({
      totalUsd: assistant.costUsd,
      reservedUsd: 0,
    });
    const statuses = (await auditOf(run.runId))
      .filter((entry) => entry.type === 'status_changed')
      .map((entry) => [entry.data.from, entry.data.to]);
    expect(statuses).toEqual([
      ['pending', 'running'],
      ['running', 'done'],
    ]);
  });

  it.each([
    [
      'a Step Functions retry of turn 0 (RetryCount 1)',
      (runId: string) => ({ ...firstAttempt(runId), retryCount: 1 }),
    ],
    [
      'a redriven first execution (RedriveCount 1)',
      (runId: string) => ({ ...firstAttempt(runId), redriveCount: 1 }),
    ],
    ['an execution started by a restart', (runId: string) => firstAttempt(`${runId}-restart-1`)],
    ['an invocation that reports no attempt', () => undefined],
  ])('is counted as spent, never free, by %s', async (_label, attemptOf) => {
    // Prepare
    const server = await scripted({ turns: [loopThenDone.turns[1]!] });
    const { version } = await seedCappedWorkflow(store);
    const clock = new FixedClock();
    const run = await seedRun(store, version, { clock });
    const held = run.reservation!;

    // Act
    const outcome = await runTurn(
      engineDeps(store, modelOn(server), { clock }),
      turnZero(run.runId, attemptOf(run.runId)),
    );

    // Assess: the creation's reservation counted as spent in full, and the call paid from a fresh one.
    expect(outcome.next).toBe('done');
    const ended = (await store.getRun(run.runId))!;
    const assistant = (await store.listMessages(run.runId)).find((message) => message.role === 'assistant')!;
    expect(ended.costUsd).toBe(roundUsd(held.usd + assistant.costUsd!));
    expect(await daySpend(store, version)).toEqual({
      totalUsd: ended.costUsd,
      reservedUsd: 0,
    });
    const settled = (await auditOf(run.runId)).filter((entry) => entry.type === 'budget_settled');
    expect(settled.map((entry) => entry.data)).toEqual([
      expect.objectContaining({ turn: 0, reservedUsd: held.usd, actualUsd: held.usd, unsettled: true }),
      expect.objectContaining({ turn: 0, actualUsd: assistant.costUsd }),
    ]);
  });

  it('is left out when the day has no room: the run is still created, and turn 0 stops it visibly', async () => {
    // Prepare: a first run spends $0.2 of the day's $0.21 (its model reports far more output than max_tokens).
    const server = await scripted([
      {
        turns: [
          {
            response: {
              content: [{ type: 'text' as const, text: 'ok' }],
              usage: { input_tokens: 0, output_tokens: 20_000 },
            },
          },
        ],
      },
    ]);
    const { version } = await seedCappedWorkflow(store, 0.21);
    const clock = new FixedClock();
    const first = await seedRun(store, version, { clock });
    await driveRun(engineDeps(store, modelOn(server), { clock }), first.runId);
    const spent = await daySpend(store, version);

    // Act
    const second = await seedRun(store, version, { clock });
    const outcomes = await driveRun(engineDeps(store, modelOn(server), { clock }), second.runId);

    // Assess
    expect(spent).toEqual({ totalUsd: 0.2, reservedUsd: 0 });
    expect(second.status).toBe('pending');
    expect(second.reservation).toBeUndefined();
    expect(outcomes.at(-1)).toMatchObject({ next: 'failed', stopReason: 'budget_exceeded' });
    expect(await store.getRun(second.runId)).toMatchObject({
      status: 'failed',
      stopReason: 'budget_exceeded',
    });
    const types = (await auditOf(second.runId)).map((entry) => entry.type);
    expect(types).toContain('budget_exceeded');
    expect(types).not.toContain('budget_reserved');
    expect(await daySpend(store, version)).toEqual(spent);
  });
});
