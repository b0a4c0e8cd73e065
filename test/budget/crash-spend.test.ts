/**
 * A paid call is never free: a Turn that crashes inside the model call after the provider answered is
 * tried again and makes the call again; both calls count against the run and the day.
 */
import { describe, expect, it } from 'vitest';
import { costSoFar } from '../../shared/cli/progress.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { modelOn, scripted } from '../model/helpers.ts';
import { CrashError, engineDeps, firstAttempt } from '../support/engine.ts';
import { FixedClock, seedRun, testStore } from '../support/store.ts';
import {
  crashingAfterAnswer,
  daySpend,
  loopThenDone,
  seedCappedWorkflow,
  turnZero,
} from './reservation-fixtures.ts';

const store = testStore();

describe('spend after a crash during the model call', () => {
  it('counts the crashed call: spend recorded ≥ calls made × their cost', async () => {
    // Prepare
    const server = await scripted({ turns: [loopThenDone.turns[1]!] });
    const model = crashingAfterAnswer(modelOn(server));
    const { version } = await seedCappedWorkflow(store);
    const clock = new FixedClock();
    const run = await seedRun(store, version, { clock });
    const deps = engineDeps(store, model, { clock });

    // Act: the Turn crashes, Step Functions runs it again.
    // Its first attempt spends the reservation the run's creation made; the retry counts that one as spent.
    const first = firstAttempt(run.runId);
    await expect(runTurn(deps, turnZero(run.runId, first))).rejects.toThrow(CrashError);
    const outcome = await runTurn(deps, turnZero(run.runId, { ...first, retryCount: 1 }));

    // Assess
    expect(outcome.next).toBe('done');
    expect(server.requests).toHaveLength(2);
    const assistant = (await store.listMessages(run.runId)).find((m) => m.role === 'assistant');
    const perCall = assistant?.costUsd ?? 0;
    expect(perCall).toBeGreaterThan(0);
    const ended = await store.getRun(run.runId);
    expect(ended!.costUsd).toBeGreaterThanOrEqual(roundUsd(server.requests.length * perCall));
    const day = await daySpend(store, version);
    expect(day).toEqual({ totalUsd: ended!.costUsd, reservedUsd: 0 });
    const settlements = (await store.listAudit(run.runId)).filter((e) => e.type === 'budget_settled');
    expect(settlements.map((e) => e.data)).toEqual([
      expect.objectContaining({ unsettled: true }),
      expect.objectContaining({ actualUsd: perCall }),
    ]);
    // What the CLI's run watch shows as the run's cost agrees with the run.
    expect(roundUsd(costSoFar(await store.listAudit(run.runId)))).toBe(ended!.costUsd);
  });
});
