import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import type { ModelRequest, ModelResponse } from '../../shared/core/ports.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { ceilingLine, totalCost } from '../budget/support.ts';
import { driveRun, engineConfig, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const DAY = '2026-11-30';

/** A clock whose waiting takes its own (virtual) time, so a wait's bound is reached without real time. */
class AdvancingClock extends FixedClock {
  override async sleep(ms: number): Promise<void> {
    this.advance(ms);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('per-day ceiling', () => {
  it('20 concurrent runs use at least 85% of the per-day ceiling and never overshoot it', async () => {
    // Prepare: each call reserves ~$0.043 (4096 tokens at $10/MTok plus the input bound) and costs
    // 100 × $2 + 3000 × $10 per MTok = $0.0302 (sonnet-5-5): in-flight reservations of other runs alone
    // would fill the $0.3 ceiling long before its settled spend does.
    const ceiling = 0.3;
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        model: { id: 'claude-sonnet-5-5', maxTokens: 4096 },
        budget: { maxUsdPerRun: 1, maxUsdPerDay: ceiling },
      }),
    );
    const clock = new FixedClock();
    const runs = await Promise.all(Array.from({ length: 20 }, () => seedRun(store, version, { clock })));
    const model = new ScriptedModel([
      { content: [text('ok')], stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 3000 } },
    ]);

    // Act
    const outcomes = await Promise.all(
      runs.map((run) => driveRun(engineDeps(store, model, { clock }), run.runId)),
    );

    // Assess
    const final = await Promise.all(runs.map((run) => store.getRun(run.runId)));
    const day = await store.getDaySpendDetail(version.owner, version.workflowId, DAY);
    const stopped = outcomes.filter((o) => o.at(-1)?.next === 'failed');
    const done = final.filter((run) => run?.status === 'done').length;
    console.log(
      ceilingLine('[day budget]', {
        done,
        stopped: stopped.length,
        spentUsd: day.totalUsd,
        ceilingUsd: ceiling,
      }),
    );
    expect(day.totalUsd).toBeLessThanOrEqual(ceiling);
    expect(day.reservedUsd).toBe(0);
    expect(totalCost(final)).toBe(roundUsd(day.totalUsd));
    expect(day.totalUsd / ceiling).toBeGreaterThanOrEqual(0.85);
    expect(done).toBe(20 - stopped.length);
    for (const o of stopped) expect(o.at(-1)).toMatchObject({ stopReason: 'budget_exceeded' });
    // A run stops for the day only when settled spend plus its own need leaves no room.
    for (const run of final.filter((r) => r?.status === 'failed')) {
      const entry = (await store.listAudit(run!.runId)).find((e) => e.type === 'budget_exceeded');
      const data = entry?.data as { scope: string; settledUsd: number; reserveUsd: number };
      expect(data.scope).toBe('day');
      expect(roundUsd(data.settledUsd + data.reserveUsd)).toBeGreaterThan(ceiling);
    }
  });

  it('a run blocked by another run’s reservation waits, hands over after the bound, then runs', async () => {
    // Prepare: room for one call a day; run A holds it with a call that has not answered yet.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 0.02 } }),
    );
    // Turn 0 reserves for itself (runs created without turn 0's reservation): its wait is what is tested.
    const [a, b] = await Promise.all([
      seedRun(store, version, { firstTurn: false }),
      seedRun(store, version, { firstTurn: false }),
    ]);
    let answer: (response: ModelResponse) => void = () => {};
    let called: () => void = () => {};
    const inCall = new Promise<void>((resolve) => {
      called = resolve;
    });
    const held = {
      call: (request: ModelRequest) =>
        new Promise<ModelResponse>((resolve) => {
          answer = resolve;
          called();
          void request;
        }),
    };
    const aTurn = runTurn(engineDeps(store, held, { clock: new FixedClock() }), {
      runId: a!.runId,
      turn: 0,
      segmentStartTurn: 0,
    });
    await inCall;
    const clock = new AdvancingClock();
    const quick = new ScriptedModel([{ content: [text('ok')], stopReason: 'end_turn' }]);
    const bDeps = engineDeps(store, quick, { clock, config: engineConfig({ budgetWaitMs: 30_000 }) });
    const before = await store.getRun(b!.runId);

    // Act: B waits its bound while A's call is out, then (A settled) runs in the fresh execution.
    const blocked = await runTurn(bDeps, { runId: b!.runId, turn: 0, segmentStartTurn: 0 });
    const afterWait = await store.getRun(b!.runId);
    answer({
      model: 'claude-sonnet-5-5',
      content: [text('ok')],
      stopReason: 'end_turn',
      usage: { inputTokens: 100, outputTokens: 50, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    });
    await aTurn;
    const resumed = await driveRun(bDeps, b!.runId);

    // Assess
    expect(blocked).toEqual({ runId: b!.runId, turn: 0, segmentStartTurn: 0, next: 'continue_as_new' });
    expect(afterWait?.rev).toBe(before?.rev);
    expect(clock.nowMs() - new FixedClock().nowMs()).toBeGreaterThanOrEqual(30_000);
    expect(resumed.at(-1)?.next).toBe('done');
    expect(quick.requests).toHaveLength(1);
    const types = (await store.listAudit(b!.runId)).map((e) => e.type);
    expect(types).not.toContain('budget_exceeded');
  });

  it('gives a reservation back to the day when the provider refuses the call (not billed)', async () => {
    // Prepare: the model call is refused with a 400 after the budget was reserved.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }),
    );
    const clock = new FixedClock();
    // Turn 0 reserves for itself (a run created without turn 0's reservation) just before the call.
    const run = await seedRun(store, version, { clock, firstTurn: false });
    const failing = {
      call: async () =>
        Promise.reject(
          Object.assign(new Error('invalid request'), { name: 'ModelBadRequestError', status: 400 }),
        ),
    };

    // Act
    await expect(
      runTurn(engineDeps(store, failing, { clock }), { runId: run.runId, turn: 0, segmentStartTurn: 0 }),
    ).rejects.toThrow(/invalid request/);
    const afterCall = await store.getDaySpendDetail(version.owner, version.workflowId, DAY);
    await markRunFailed(
      { store, clock },
      { runId: run.runId, error: { name: 'ModelBadRequestError', message: 'invalid request' } },
    );

    // Assess
    expect(afterCall).toEqual({ totalUsd: 0, reservedUsd: 0 });
    expect(await store.getDaySpend(version.owner, version.workflowId, DAY)).toBe(0);
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      costUsd: 0,
    });
  });

  it.each([
    // The call breaks off without an HTTP status (a broken stream, a timeout).
    ['without an HTTP status', { name: 'ModelConnectionError' }],
    // A 408 is a 4xx, yet a timeout: the request may have been processed and billed.
    ['with a 408', { name: 'ModelConnectionError', status: 408 }],
  ])(
    'counts a reservation as spent when the call failed %s, which may have been billed',
    async (_case, fault) => {
      // Prepare
      const { version } = await seedWorkflow(
        store,
        minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }),
      );
      const clock = new FixedClock();
      // Turn 0 reserves for itself (a run created without turn 0's reservation) just before the call.
      const run = await seedRun(store, version, { clock, firstTurn: false });
      const broken = {
        call: async () => Promise.reject(Object.assign(new Error('stream broke off'), fault)),
      };

      // Act
      await expect(
        runTurn(engineDeps(store, broken, { clock }), { runId: run.runId, turn: 0, segmentStartTurn: 0 }),
      ).rejects.toThrow(/stream broke off/);
      const reserved = (await store.getRun(run.runId))?.reservation?.usd ?? 0;
      await markRunFailed(
        { store, clock },
        { runId: run.runId, error: { name: 'ModelConnectionError', message: 'stream broke off' } },
      );

      // Assess: never free; the day keeps it as spend, not as a reservation.
      expect(reserved).toBeGreaterThan(0);
      expect(await store.getDaySpendDetail(version.owner, version.workflowId, DAY)).toEqual({
        totalUsd: reserved,
        reservedUsd: 0,
      });
      expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', costUsd: reserved });
      const settled = (await store.listAudit(run.runId)).find((e) => e.type === 'budget_settled');
      expect(settled?.data).toMatchObject({ actualUsd: reserved, unsettled: true });
    },
  );

  it('a call that costs more than its reservation is counted in full, and the next reservation sees it', async () => {
    // Prepare: a model that reports far more output than max_tokens allows ($0.2 against ~$0.013).
    const ceiling = 0.21;
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: ceiling } }),
    );
    const clock = new FixedClock();
    const overrun = new ScriptedModel([
      { content: [text('ok')], stopReason: 'end_turn', usage: { inputTokens: 0, outputTokens: 20_000 } },
    ]);

    // Act: the second run is created (and reserves, or not) after the first run's overrun.
    const first = await seedRun(store, version, { clock });
    await driveRun(engineDeps(store, overrun, { clock }), first!.runId);
    const second = await seedRun(store, version, { clock });
    const secondOutcomes = await driveRun(engineDeps(store, overrun, { clock }), second!.runId);

    // Assess
    const day = await store.getDaySpendDetail(version.owner, version.workflowId, DAY);
    expect(day).toEqual({ totalUsd: 0.2, reservedUsd: 0 });
    expect(await store.getRun(first!.runId)).toMatchObject({ status: 'done', costUsd: 0.2 });
    const settled = (await store.listAudit(first!.runId)).find((e) => e.type === 'budget_settled');
    expect(settled?.data).toMatchObject({ actualUsd: 0.2, overrunUsd: expect.any(Number) });
    expect(secondOutcomes.at(-1)).toMatchObject({ next: 'failed', stopReason: 'budget_exceeded' });
    expect(overrun.requests).toHaveLength(1);
  });
});
