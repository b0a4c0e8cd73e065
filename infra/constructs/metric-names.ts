/**
 * The runtime's own CloudWatch metrics: what the functions emit (EMF through Powertools Metrics) and what the
 * dashboard and alarms read. One table, so a renamed metric breaks the build instead of an alarm.
 * This file imports nothing, so handlers can import it without loading aws-cdk-lib.
 */

/** Every metric also carries the `service` dimension (POWERTOOLS_SERVICE_NAME), added by Powertools. */
export const SERVICE_DIMENSION = 'service';

/** Outcome values of `Turns`: the turn's `next`, or `error` when the invocation threw. */
export const TURN_OUTCOMES = [
  'continue',
  'continue_as_new',
  'await_approval',
  'done',
  'failed',
  'error',
] as const;
/** Status values of `RunsFinished`: the terminal run statuses. */
export const FINAL_RUN_STATUSES = ['done', 'failed', 'denied', 'cancelled'] as const;
/** Decision values of `ApprovalsDecided`. */
export const APPROVAL_DECISIONS = ['approved', 'denied'] as const;

type MetricSpec = {
  /** CloudWatch unit, as Powertools' `MetricUnit` spells it. */
  readonly unit: 'Count' | 'None';
  /** The one extra dimension (besides `service`) and its values; absent: `service` only. */
  readonly dimension?: { readonly name: string; readonly values: readonly string[] };
  readonly description: string;
};

/** The runtime's metrics by name. */
export const RUNTIME_METRICS = {
  Turns: {
    unit: 'Count',
    dimension: { name: 'Outcome', values: TURN_OUTCOMES },
    description: 'Turn invocations, by the outcome handed to the state machine (or `error`).',
  },
  ModelCalls: { unit: 'Count', description: 'Model calls whose answer was committed to a run.' },
  ModelCostUsd: {
    unit: 'None',
    description: 'Cost of the committed model calls in US dollars (the runtime price table).',
  },
  ModelInputTokens: { unit: 'Count', description: 'Input tokens of the committed model calls.' },
  ModelOutputTokens: { unit: 'Count', description: 'Output tokens of the committed model calls.' },
  ModelCacheReadInputTokens: { unit: 'Count', description: 'Input tokens read from the prompt cache.' },
  ModelCacheCreationInputTokens: { unit: 'Count', description: 'Input tokens written to the prompt cache.' },
  ApprovalsRequested: { unit: 'Count', description: 'Approvals created (one per gated call).' },
  ApprovalsDecided: {
    unit: 'Count',
    dimension: { name: 'Decision', values: APPROVAL_DECISIONS },
    description: 'Approvals an approver decided.',
  },
  ApprovalsExpired: { unit: 'Count', description: 'Approvals that expired undecided (denied, fail closed).' },
  RunsFinished: {
    unit: 'Count',
    dimension: { name: 'Status', values: FINAL_RUN_STATUSES },
    description: 'Runs that reached a terminal status, by that status.',
  },
  BudgetStops: {
    unit: 'Count',
    description: 'Runs stopped because a cost ceiling (run or day) was reached.',
  },
  EgressDenials: {
    unit: 'Count',
    description: 'Outbound requests of actions or deliveries refused by the egress guard.',
  },
  JobsSweepStoppedEarly: {
    unit: 'Count',
    description:
      'Scheduled jobs sweeps that ran out of time before reaching every grant (the next sweep goes on from there).',
  },
  PendingRunsSettled: {
    unit: 'Count',
    description:
      'Runs left pending (API, schedule and event starts) whose execution the jobs sweep found never existed: ended failed, reservation given back.',
  },
  PendingRunsUndecided: {
    unit: 'Count',
    description:
      'Runs left pending (API, schedule and event starts) whose execution the jobs sweep could not look up (DescribeExecution failed), and one per pending sweep that failed as a whole: tried again.',
  },
  CancelAnchorsDeferred: {
    unit: 'Count',
    description: "Cancels whose run's final audit head could not be anchored yet.",
  },
  WorkflowSigningFaults: {
    unit: 'Count',
    description: "Committed workflow changes whose owner's heads could not be signed.",
  },
} as const satisfies Record<string, MetricSpec>;

export type RuntimeMetricName = keyof typeof RUNTIME_METRICS;
