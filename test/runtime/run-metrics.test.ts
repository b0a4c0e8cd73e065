import { describe, expect, it } from 'vitest';
import { RUNTIME_METRICS } from '../../infra/constructs/metric-names.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { metricsOfChange, turnPoint } from '../../shared/runtime/run-metrics.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const aRun = async (): Promise<Run> => {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  return { ...(await seedRun(store, version)), status: 'running' };
};
const approval = (status: Approval['status']) => ({ status }) as Approval;

describe('metricsOfChange', () => {
  it('counts the model spend a commit applied, as deltas of the run', async () => {
    const run = await aRun();
    const next: Run = {
      ...run,
      modelCalls: run.modelCalls + 1,
      costUsd: run.costUsd + 0.0007,
      usage: { inputTokens: 100, outputTokens: 50, cacheReadInputTokens: 7, cacheCreationInputTokens: 3 },
    };

    expect(metricsOfChange({ run, next })).toEqual([
      { name: 'ModelCalls', value: 1 },
      { name: 'ModelCostUsd', value: 0.0007 },
      { name: 'ModelInputTokens', value: 100 },
      { name: 'ModelOutputTokens', value: 50 },
      { name: 'ModelCacheReadInputTokens', value: 7 },
      { name: 'ModelCacheCreationInputTokens', value: 3 },
    ]);
  });

  it('counts nothing for a commit that changes no counter (a settle, a status move)', async () => {
    const run = await aRun();
    expect(metricsOfChange({ run, next: { ...run, status: 'awaiting_approval' } })).toEqual([]);
  });

  it('counts approvals requested, decided by decision, and expired; a token attached is no decision', async () => {
    const run = await aRun();
    const change: RunChange = {
      run,
      next: run,
      approvalCreate: [approval('pending'), approval('pending')],
      approvalUpdate: [
        { approval: approval('approved'), expectedStatus: 'pending' },
        { approval: approval('denied'), expectedStatus: 'pending' },
        { approval: approval('expired'), expectedStatus: 'pending' },
        { approval: approval('pending'), expectedStatus: 'pending' },
      ],
    };

    expect(metricsOfChange(change)).toEqual([
      { name: 'ApprovalsRequested', value: 2 },
      { name: 'ApprovalsDecided', value: 1, dimension: 'approved' },
      { name: 'ApprovalsDecided', value: 1, dimension: 'denied' },
      { name: 'ApprovalsExpired', value: 1 },
    ]);
  });

  it.each([
    ['done', 'end_turn', []],
    ['failed', 'budget_exceeded', [{ name: 'BudgetStops', value: 1 }]],
    ['denied', 'policy_denied', []],
    ['cancelled', 'cancelled', []],
  ] as const)('counts a run that ends %s (%s) once', async (status, stopReason, extra) => {
    const run = await aRun();
    const ended: Run = { ...run, status, stopReason };

    expect(metricsOfChange({ run, next: ended })).toEqual([
      { name: 'RunsFinished', value: 1, dimension: status },
      ...extra,
    ]);
    // A later write to the ended run (a delivery record) does not count it again.
    expect(metricsOfChange({ run: ended, next: ended })).toEqual([]);
  });

  it('uses only dimension values the construct declares', () => {
    expect(RUNTIME_METRICS.Turns.dimension.values).toEqual(
      expect.arrayContaining(['continue', 'continue_as_new', 'await_approval', 'done', 'failed', 'error']),
    );
    expect(turnPoint('error')).toEqual({ name: 'Turns', value: 1, dimension: 'error' });
    expect(turnPoint({ runId: 'r', turn: 1, segmentStartTurn: 0, next: 'done' })).toEqual({
      name: 'Turns',
      value: 1,
      dimension: 'done',
    });
  });
});
