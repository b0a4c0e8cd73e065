/**
 * The store's logged faults (shared/store/faults.ts) as metrics of the invocation, flushed with its others: a
 * deferred cancel anchor and a workflow signing fault are only log lines otherwise, and both have alarms
 * (infra/constructs/runtime-metrics.ts).
 */
import type { StoreFaults } from '../store/faults.ts';
import { recordPoints, type Telemetry } from './telemetry.ts';

/** Counts each fault as one point of its metric. */
export const storeFaultMetrics = (telemetry: Telemetry): StoreFaults => ({
  workflowSigningFault: () => recordPoints(telemetry.metrics, [{ name: 'WorkflowSigningFaults', value: 1 }]),
  cancelAnchorDeferred: () => recordPoints(telemetry.metrics, [{ name: 'CancelAnchorsDeferred', value: 1 }]),
});
