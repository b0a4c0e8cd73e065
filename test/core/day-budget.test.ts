import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { driveRun, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

describe('per-day ceiling', () => {
  it('20 concurrent runs against one workflow never overshoot the per-day ceiling', async () => {
    // Prepare: each run makes one call costing 100 × $2 + 1000 × $10 per MTok = $0.0102 (sonnet-5-5).
    const ceiling = 0.1;
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: ceiling } }),
    );
    const clock = new FixedClock();
    const runs = await Promise.all(Array.from({ length: 20 }, () => seedRun(store, version, { clock })));
    const model = new ScriptedModel([
      { content: [text('ok')], stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 1000 } },
    ]);

    // Act
    const outcomes = await Promise.all(
      runs.map((run) => driveRun(engineDeps(store, model, { clock }), run.runId)),
    );

    // Assess
    const final = await Promise.all(runs.map((run) => store.getRun(run.runId)));
    const spent = await store.getDaySpend(version.owner, version.workflowId, '2026-11-30');
    const totalCost = roundUsd(final.reduce((sum, run) => sum + (run?.costUsd ?? 0), 0));
    expect(spent).toBeLessThanOrEqual(ceiling);
    expect(totalCost).toBeLessThanOrEqual(ceiling);
    expect(roundUsd(spent)).toBe(totalCost);
    const stopped = outcomes.filter((o) => o.at(-1)?.next === 'failed');
    expect(stopped.length).toBeGreaterThan(0);
    for (const o of stopped) expect(o.at(-1)).toMatchObject({ stopReason: 'budget_exceeded' });
    expect(final.filter((run) => run?.status === 'done').length).toBe(20 - stopped.length);
    console.log(
      `[day budget] ${20 - stopped.length} runs done, ${stopped.length} stopped; spent $${spent} of $${ceiling}`,
    );
  });

  it('gives a reservation back to the day when the run fails without making the call', async () => {
    // Prepare: the model call fails for good after the budget was reserved.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }),
    );
    const clock = new FixedClock();
    const run = await seedRun(store, version, { clock });
    const failing = {
      call: async () =>
        Promise.reject(Object.assign(new Error('invalid request'), { name: 'ModelBadRequestError' })),
    };

    // Act
    await expect(
      runTurn(engineDeps(store, failing, { clock }), { runId: run.runId, turn: 0, segmentStartTurn: 0 }),
    ).rejects.toThrow(/invalid request/);
    const reserved = await store.getDaySpend(version.owner, version.workflowId, '2026-11-30');
    await markRunFailed(
      { store, clock },
      { runId: run.runId, error: { name: 'ModelBadRequestError', message: 'invalid request' } },
    );

    // Assess
    expect(reserved).toBeGreaterThan(0);
    expect(await store.getDaySpend(version.owner, version.workflowId, '2026-11-30')).toBe(0);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', stopReason: 'error' });
  });
});
