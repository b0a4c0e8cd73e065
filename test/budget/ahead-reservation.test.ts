/**
 * The next turn's reservation rides on a turn's commit (shared/core/attempt.ts). Only the first attempt of the
 * next entry into Turn, in the same execution, may spend it; a retry (a crash that may have followed a paid
 * call), an execution started by a restart, or a re-entry after a call counts it as spent: never free. A
 * first attempt that ends without a call gives it back.
 */
import { describe, expect, it } from 'vitest';
import { isFirstAttempt, markModelCalled, unusedAheadReservation } from '../../shared/core/attempt.ts';
import type { ModelPort } from '../../shared/core/ports.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import { runTurn } from '../../shared/core/turn.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { modelOn, scripted } from '../model/helpers.ts';
import { CrashError, engineDeps, firstAttempt } from '../support/engine.ts';
import { FixedClock, seedRun, testStore } from '../support/store.ts';
import {
  crashingAfterAnswer,
  DAY,
  daySpend,
  loopThenDone,
  seedCappedWorkflow,
  turnZero,
} from './reservation-fixtures.ts';

const store = testStore();

async function setUp(model: (real: ModelPort) => ModelPort, maxUsdPerDay = 5) {
  const server = await scripted(loopThenDone);
  const { head, version } = await seedCappedWorkflow(store, maxUsdPerDay);
  const clock = new FixedClock();
  // Turn 0 reserves for itself (a run created without turn 0's reservation): these are the turns' own.
  const run = await seedRun(store, version, { clock, firstTurn: false });
  const deps = engineDeps(store, model(modelOn(server)), { clock });
  const turn0 = await runTurn(deps, turnZero(run.runId, firstAttempt('one')));
  return { server, head, version, run, deps, turn0 };
}

const settled = async (runId: string) =>
  (await store.listAudit(runId)).filter((entry) => entry.type === 'budget_settled').map((e) => e.data);

describe('the reservation made ahead by the previous commit', () => {
  it('is made by the turn commit, held by the run and the day, and spent by the next first attempt', async () => {
    // Prepare
    const { server, version, run, deps, turn0 } = await setUp((real) => real);
    const held = (await store.getRun(run.runId))!.reservation;
    const dayAhead = await daySpend(store, version);

    // Act
    const turn1 = await runTurn(deps, { ...turn0, attempt: firstAttempt('one') });

    // Assess
    // Held by the execution's name (the previous release's parse needs `executionId`, empty here)
    expect(held).toMatchObject({ turn: 1, ahead: { executionName: 'one', executionId: '' } });
    expect(dayAhead.reservedUsd).toBe(held!.usd);
    expect(turn1.next).toBe('done');
    expect(server.requests).toHaveLength(2);
    const ended = (await store.getRun(run.runId))!;
    const assistants = (await store.listMessages(run.runId)).filter((m) => m.role === 'assistant');
    expect(ended.costUsd).toBe(roundUsd(assistants.reduce((sum, m) => sum + (m.costUsd ?? 0), 0)));
    expect(await daySpend(store, version)).toEqual({
      totalUsd: ended.costUsd,
      reservedUsd: 0,
    });
    const reserved = (await store.listAudit(run.runId)).filter((e) => e.type === 'budget_reserved');
    expect(reserved.map((e) => e.data)).toEqual([
      expect.not.objectContaining({ ahead: true }),
      expect.objectContaining({ turn: 1, ahead: true }),
    ]);
  });

  it.each([
    ['a Step Functions retry of the same entry (RetryCount 1)', { ...firstAttempt('one'), retryCount: 1 }],
    ['a redriven execution (RedriveCount 1)', { ...firstAttempt('one'), redriveCount: 1 }],
    ['an execution started after a restart (another Execution.Id)', firstAttempt('resumed')],
  ])('is counted as spent when the call may have been paid: %s', async (_label, retry) => {
    // Prepare: the next turn's first attempt crashes after the provider answered its call.
    const { server, version, run, deps, turn0 } = await setUp((real) => crashingAfterAnswer(real, 2));
    const held = (await store.getRun(run.runId))!.reservation!;
    await expect(runTurn(deps, { ...turn0, attempt: firstAttempt('one') })).rejects.toThrow(CrashError);

    // Act
    const outcome = await runTurn(deps, { ...turn0, attempt: retry });

    // Assess: three calls made and paid; the crashed one counted at its reservation.
    expect(outcome.next).toBe('done');
    expect(server.requests).toHaveLength(3);
    const ended = (await store.getRun(run.runId))!;
    const assistants = (await store.listMessages(run.runId)).filter((m) => m.role === 'assistant');
    const answered = roundUsd(assistants.reduce((sum, m) => sum + (m.costUsd ?? 0), 0));
    expect(ended.costUsd).toBe(roundUsd(answered + held.usd));
    expect(ended.costUsd).toBeGreaterThanOrEqual(roundUsd(answered + assistants.at(-1)!.costUsd!));
    expect(await daySpend(store, version)).toEqual({
      totalUsd: ended.costUsd,
      reservedUsd: 0,
    });
    expect(await settled(run.runId)).toContainEqual(
      expect.objectContaining({ turn: 1, reservedUsd: held.usd, actualUsd: held.usd, unsettled: true }),
    );
  });

  it('is given back when the first attempt ends the run without a call (the workflow was disabled)', async () => {
    // Prepare
    const { server, head, version, run, deps, turn0 } = await setUp((real) => real);
    const held = (await store.getRun(run.runId))!.reservation!;
    const spentBefore = (await store.getRun(run.runId))!.costUsd;
    await store.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date().toISOString() });

    // Act
    const outcome = await runTurn(deps, { ...turn0, attempt: firstAttempt('one') });

    // Assess
    expect(outcome).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    expect(server.requests).toHaveLength(1);
    const ended = (await store.getRun(run.runId))!;
    expect(ended.costUsd).toBe(spentBefore);
    expect(ended.reservation).toBeUndefined();
    expect(await daySpend(store, version)).toEqual({
      totalUsd: spentBefore,
      reservedUsd: 0,
    });
    expect(await settled(run.runId)).toContainEqual(
      expect.objectContaining({ turn: 1, reservedUsd: held.usd, actualUsd: 0, unused: true }),
    );
  });

  it('is left out when the day ceiling refuses it: the turn commits, and the next turn stops at the ceiling', async () => {
    // Prepare: a ceiling that fits the first call's reservation exactly, so the second's cannot fit too.
    const probe = await setUp((real) => real);
    const first = (await store.listAudit(probe.run.runId)).find((e) => e.type === 'budget_reserved')!;
    const ceiling = (first.data as { usd: number }).usd;
    const { server, run, deps, turn0 } = await setUp((real) => real, ceiling);

    // Act
    const outcome = await runTurn(deps, { ...turn0, attempt: firstAttempt('one') });

    // Assess
    expect(turn0.next).toBe('continue');
    expect(outcome).toMatchObject({ next: 'failed', stopReason: 'budget_exceeded' });
    expect(server.requests).toHaveLength(1);
    const reserved = (await store.listAudit(run.runId)).filter((e) => e.type === 'budget_reserved');
    expect(reserved).toHaveLength(1);
    expect((await store.getRun(run.runId))!.messageCount).toBe(3);
  });
});

describe('attempt.ts', () => {
  const run = (reservation: Run['reservation']) => ({ turn: 1, reservation }) as Run;
  const ahead = { turn: 1, usd: 0.1, day: DAY, daily: false, ahead: { executionId: 'e1' } };
  const attempt = { retryCount: 0, redriveCount: 0, executionId: 'e1' };

  it('lets only a first attempt of the reserving execution spend it, and only before its own call', () => {
    // Prepare
    const again = { ...attempt };

    // Act
    const before = unusedAheadReservation(run(ahead), again);
    markModelCalled(again);

    // Assess
    expect(before).toEqual(ahead);
    expect(isFirstAttempt(again)).toBe(false);
    expect(unusedAheadReservation(run(ahead), again)).toBeUndefined();
    expect(unusedAheadReservation(run(ahead), undefined)).toBeUndefined();
    expect(unusedAheadReservation(run({ ...ahead, turn: 0 }), attempt)).toBeUndefined();
    expect(unusedAheadReservation(run({ ...ahead, ahead: undefined }), attempt)).toBeUndefined();
  });

  it('matches a reservation held by name to its execution’s ARN, and one held by ARN (previous release) as before', () => {
    // Prepare
    const arn = (name: string) => `arn:aws:states:eu-west-1:123456789012:execution:wf-runs:${name}`;
    const byName = { ...ahead, ahead: { executionName: 'seg-2', executionId: '' as const } };
    const byArn = { ...ahead, ahead: { executionId: arn('seg-2') } };
    const first = (name: string) => ({ ...attempt, executionId: arn(name) });

    // Assess
    expect(unusedAheadReservation(run(byName), first('seg-2'))).toEqual(byName);
    expect(unusedAheadReservation(run(byName), first('seg-20'))).toBeUndefined();
    expect(unusedAheadReservation(run(byName), first('x-seg-2'))).toBeUndefined();
    expect(unusedAheadReservation(run(byArn), first('seg-2'))).toEqual(byArn);
    expect(unusedAheadReservation(run(byArn), first('seg-3'))).toBeUndefined();
  });
});
