/**
 * Metric points derived from what the core already returns: a committed `RunChange` (the run before and
 * after, approvals created and updated) and a turn's outcome. Pure: no Powertools here, so the derivation is
 * tested on its own and the core stays unaware of metrics.
 */
import type { RuntimeMetricName } from '../../infra/constructs/metric-names.ts';
import type { TurnOutcome } from '../core/outcome.ts';
import { roundUsd } from '../core/pricing.ts';
import type { RunChange } from '../core/store-port.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';

/** One value of one metric; `dimension` is the value of the metric's extra dimension, if it has one. */
export type MetricPoint = { name: RuntimeMetricName; value: number; dimension?: string };

/** The `Turns` point of one invocation: its outcome, or `error` when it threw. */
export const turnPoint = (outcome: TurnOutcome | 'error'): MetricPoint => ({
  name: 'Turns',
  value: 1,
  dimension: outcome === 'error' ? 'error' : outcome.next,
});

/** What one committed change means in metrics: model spend, approvals, a run that ended, a budget stop. */
export function metricsOfChange(change: RunChange): MetricPoint[] {
  const { run: before, next: after } = change;
  const points: MetricPoint[] = [];
  const add = (name: RuntimeMetricName, value: number, dimension?: string) => {
    if (value > 0) points.push(dimension === undefined ? { name, value } : { name, value, dimension });
  };

  // Model spend: the deltas the commit applied, so a replayed turn (which commits nothing) counts nothing.
  add('ModelCalls', after.modelCalls - before.modelCalls);
  // Rounded as the core rounds dollars, so float noise in a difference never shows up as spend.
  add('ModelCostUsd', roundUsd(after.costUsd - before.costUsd));
  add('ModelInputTokens', after.usage.inputTokens - before.usage.inputTokens);
  add('ModelOutputTokens', after.usage.outputTokens - before.usage.outputTokens);
  add('ModelCacheReadInputTokens', after.usage.cacheReadInputTokens - before.usage.cacheReadInputTokens);
  add(
    'ModelCacheCreationInputTokens',
    after.usage.cacheCreationInputTokens - before.usage.cacheCreationInputTokens,
  );

  add('ApprovalsRequested', change.approvalCreate?.length ?? 0);
  for (const { approval, expectedStatus } of change.approvalUpdate ?? []) {
    if (expectedStatus !== 'pending') continue;
    if (approval.status === 'approved' || approval.status === 'denied')
      add('ApprovalsDecided', 1, approval.status);
    if (approval.status === 'expired') add('ApprovalsExpired', 1);
  }

  if (!isTerminalRunStatus(before.status) && isTerminalRunStatus(after.status)) {
    add('RunsFinished', 1, after.status);
    if (after.stopReason === 'budget_exceeded') add('BudgetStops', 1);
  }
  return points;
}
