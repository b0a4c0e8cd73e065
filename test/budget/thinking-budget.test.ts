/**
 * Reservations cover thinking: for every model family of the price table, with thinking on, a call can
 * cost no more than was reserved, the per-run ceiling stops a run before a call that could cross it, and
 * 10 concurrent runs against a per-day ceiling never overshoot it while using at least 85% of it.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../shared/core/ports.ts';
import { DEFAULT_PRICES, roundUsd } from '../../shared/core/pricing.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { ceilingLine, totalCost, WorstCaseModel, worstCaseUsd } from './support.ts';

const store = testStore();
const DAY = '2026-11-30';
// More runs than the per-day ceiling has room for (7.5 worst-case calls), so reservations race for it: 3 of the
// 10 are stopped. (20 runs did the same work twice per model family, 18 families; the 20-run race itself is
// test/core/day-budget.test.ts.)
const RUNS = 10;

const thinkingWorkflow = (model: string, budget: Record<string, unknown>) =>
  minimalWorkflow({
    model: { id: model, maxTokens: 1024, thinking: 'high' },
    budget: { maxTurns: 3, ...budget },
  });

/** The worst-case cost of the first call of `thinkingWorkflow(model)`, from one unconstrained run. */
async function probe(model: string): Promise<{ reserveUsd: number; costUsd: number; request: ModelRequest }> {
  const { version } = await seedWorkflow(store, thinkingWorkflow(model, { maxUsdPerRun: 100 }));
  const clock = new FixedClock();
  const run = await seedRun(store, version, { clock });
  const recorder = new WorstCaseModel();
  const requests: ModelRequest[] = [];
  const port = {
    call: (request: ModelRequest) => {
      requests.push(request);
      return recorder.call(request);
    },
  };
  await driveRun(engineDeps(store, port, { clock }), run.runId);
  const ended = await store.getRun(run.runId);
  return { reserveUsd: worstCaseUsd(requests[0]!), costUsd: ended?.costUsd ?? -1, request: requests[0]! };
}

describe.each(Object.keys(DEFAULT_PRICES))('thinking on, %s', (model) => {
  it('reserves what the call can cost: the run ceiling holds even when thinking fills max_tokens', async () => {
    // Prepare: a ceiling one micro-dollar below what the call can cost.
    const { reserveUsd, costUsd } = await probe(model);
    const { version } = await seedWorkflow(
      store,
      thinkingWorkflow(model, { maxUsdPerRun: roundUsd(reserveUsd - 0.000001) }),
    );
    const clock = new FixedClock();
    const run = await seedRun(store, version, { clock });
    const worst = new WorstCaseModel();

    // Act
    const outcomes = await driveRun(engineDeps(store, worst, { clock }), run.runId);

    // Assess: the unconstrained run spent exactly the reservation; the constrained one never called.
    expect(costUsd).toBe(reserveUsd);
    expect(outcomes.at(-1)).toMatchObject({ next: 'failed', stopReason: 'budget_exceeded' });
    expect(worst.calls).toBe(0);
    expect((await store.getRun(run.runId))?.costUsd).toBe(0);
  });

  it(`${RUNS} concurrent runs against a per-day ceiling: overshoot 0, at least 85% usable`, async () => {
    // Prepare: room for 7.5 worst-case calls.
    const { reserveUsd } = await probe(model);
    const ceiling = roundUsd(reserveUsd * 7.5);
    const { version } = await seedWorkflow(
      store,
      thinkingWorkflow(model, { maxUsdPerRun: 100, maxUsdPerDay: ceiling }),
    );
    const clock = new FixedClock();
    const runs = await Promise.all(Array.from({ length: RUNS }, () => seedRun(store, version, { clock })));
    const worst = new WorstCaseModel();

    // Act
    const outcomes = await Promise.all(
      runs.map((run) => driveRun(engineDeps(store, worst, { clock }), run.runId)),
    );

    // Assess
    const final = await Promise.all(runs.map((run) => store.getRun(run.runId)));
    const day = await store.getDaySpendDetail(version.owner, version.workflowId, DAY);
    const done = final.filter((run) => run?.status === 'done').length;
    const stopped = outcomes.filter((o) => o.at(-1)?.next === 'failed');
    console.log(
      ceilingLine(model, { done, stopped: stopped.length, spentUsd: day.totalUsd, ceilingUsd: ceiling }),
    );
    expect(day.totalUsd).toBeLessThanOrEqual(ceiling);
    expect(day.reservedUsd).toBe(0);
    expect(totalCost(final)).toBe(roundUsd(day.totalUsd));
    expect(day.totalUsd / ceiling).toBeGreaterThanOrEqual(0.85);
    expect(done).toBe(7);
    expect(worst.calls).toBe(7);
    for (const o of stopped) expect(o.at(-1)).toMatchObject({ stopReason: 'budget_exceeded' });
  });
});
