/**
 * CloudWatch metrics, dashboard widgets and alarm specs for the metrics the functions emit themselves
 * (EMF, infra/constructs/metric-names.ts). Names, units and dimensions come from that one table, so the
 * dashboard reads exactly what the code writes.
 */
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { RUNTIME_METRICS, type RuntimeMetricName, SERVICE_DIMENSION } from './metric-names.ts';

/** Where the functions' EMF metrics land: `POWERTOOLS_METRICS_NAMESPACE` and `POWERTOOLS_SERVICE_NAME`. */
export interface RuntimeMetricsSource {
  readonly namespace: string;
  readonly serviceName: string;
  readonly period: Duration;
}

/**
 * One runtime metric, summed over the period. A metric with an extra dimension (Turns, RunsFinished,
 * ApprovalsDecided) needs its value: CloudWatch identifies a metric by all of its dimensions.
 */
export function runtimeMetric(
  source: RuntimeMetricsSource,
  name: RuntimeMetricName,
  dimensionValue?: string,
): cloudwatch.Metric {
  const spec: (typeof RUNTIME_METRICS)[RuntimeMetricName] = RUNTIME_METRICS[name];
  const extra: { name: string; values: readonly string[] } | undefined =
    'dimension' in spec ? spec.dimension : undefined;
  if (extra && (dimensionValue === undefined || !extra.values.includes(dimensionValue))) {
    throw new Error(
      `runtimeMetric: ${name} needs its ${extra.name} dimension, one of ${extra.values.join(', ')}; got '${dimensionValue}'.`,
    );
  }
  return new cloudwatch.Metric({
    namespace: source.namespace,
    metricName: name,
    dimensionsMap: {
      [SERVICE_DIMENSION]: source.serviceName,
      ...(extra && dimensionValue !== undefined ? { [extra.name]: dimensionValue } : {}),
    },
    period: source.period,
    // No label here: an alarm on a labelled metric is rendered as a metric-math query.
    statistic: cloudwatch.Stats.SUM,
  });
}

/**
 * Fails synth on a namespace CloudWatch would refuse: 1–255 ASCII characters without control characters, not
 * starting with `:` and not `AWS/` (reserved for AWS services).
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_Metric.html
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricData.html
 */
export function validateMetricsNamespace(id: string, namespace: string): void {
  if (!/^[\x20-\x7e]{1,255}$/.test(namespace) || namespace.startsWith(':') || namespace.startsWith('AWS/')) {
    throw new Error(
      `${id}: metricsNamespace '${namespace}' is not a CloudWatch namespace; use 1-255 printable ASCII ` +
        "characters, not starting with ':' or 'AWS/', e.g. 'WfRuntime/prod'.",
    );
  }
}

/** One line per value of a dimensioned metric (every outcome, every final status …). */
const perValue = (source: RuntimeMetricsSource, name: 'Turns' | 'RunsFinished' | 'ApprovalsDecided') =>
  RUNTIME_METRICS[name].dimension.values.map((value) =>
    runtimeMetric(source, name, value).with({ label: value }),
  );

/** The dashboard rows of the runtime metrics. */
export function runtimeMetricRows(source: RuntimeMetricsSource): cloudwatch.IWidget[][] {
  const metric = (name: RuntimeMetricName, label: string) => runtimeMetric(source, name).with({ label });
  return [
    [
      new cloudwatch.GraphWidget({ title: 'Turns by outcome', width: 12, left: perValue(source, 'Turns') }),
      new cloudwatch.GraphWidget({
        title: 'Runs finished by status',
        width: 12,
        left: perValue(source, 'RunsFinished'),
      }),
    ],
    [
      new cloudwatch.GraphWidget({
        title: 'Model cost (USD) and tokens',
        width: 12,
        left: [metric('ModelCostUsd', 'cost USD')],
        right: [
          metric('ModelInputTokens', 'input tokens'),
          metric('ModelOutputTokens', 'output tokens'),
          metric('ModelCacheReadInputTokens', 'cache read tokens'),
          metric('ModelCacheCreationInputTokens', 'cache write tokens'),
          metric('ModelCalls', 'model calls'),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Approvals',
        width: 12,
        left: [
          metric('ApprovalsRequested', 'requested'),
          ...perValue(source, 'ApprovalsDecided'),
          metric('ApprovalsExpired', 'expired'),
        ],
      }),
    ],
    [
      new cloudwatch.GraphWidget({
        title: 'Budget stops and egress denials',
        width: 12,
        left: [metric('BudgetStops', 'budget stops'), metric('EgressDenials', 'egress denials')],
      }),
      new cloudwatch.GraphWidget({
        title: 'Jobs sweep: stopped early, pending starts',
        width: 12,
        left: [
          metric('JobsSweepStoppedEarly', 'sweeps stopped early'),
          metric('PendingRunsSettled', 'pending starts ended, never started'),
          metric('PendingRunsUndecided', 'pending starts undecided'),
        ],
      }),
    ],
    [
      // Audit faults logged after a commit (shared/store/faults.ts): the chain lags until a later anchor or signing.
      new cloudwatch.GraphWidget({
        title: 'Audit anchors deferred and signing faults',
        width: 12,
        left: [
          metric('CancelAnchorsDeferred', 'cancel anchors deferred'),
          metric('WorkflowSigningFaults', 'workflow signing faults'),
        ],
      }),
    ],
  ];
}

/** Alarms on runtime metrics that need a human: id → metric, threshold (per period) and why. */
export function runtimeMetricAlarms(
  source: RuntimeMetricsSource,
): Record<string, { metric: cloudwatch.IMetric; threshold: number; description: string }> {
  return {
    EgressDenied: {
      metric: runtimeMetric(source, 'EgressDenials'),
      threshold: 1,
      description:
        'The egress guard refused an outbound request of an action or a delivery: a workflow or a model tried ' +
        'to reach a private, metadata or unlisted destination (see the function logs, message "egress denied").',
    },
    ApprovalsExpired: {
      metric: runtimeMetric(source, 'ApprovalsExpired'),
      threshold: 1,
      description:
        'An approval expired undecided (the call was denied): approvers may not be receiving links.',
    },
    BudgetStops: {
      metric: runtimeMetric(source, 'BudgetStops'),
      threshold: 1,
      description: 'A run was stopped by its cost ceiling (per run or per day).',
    },
    CancelAnchorsDeferred: {
      metric: runtimeMetric(source, 'CancelAnchorsDeferred'),
      threshold: 1,
      description:
        "A cancelled run's final audit head could not be anchored (a contended owner chain, KMS refusing to sign; " +
        'log "cancel anchor deferred"): it is anchored by a repeated cancel, the ABORTED execution or the owner\'s next anchor.',
    },
    // Counted once per undecided run per sweep, and the sweep runs every minute: 5 in 5 minutes is one run that no
    // sweep of the window could decide (or several at once), not one failed describe, which the next minute asks again.
    PendingRunsUndecided: {
      metric: runtimeMetric(source, 'PendingRunsUndecided'),
      threshold: 5,
      description:
        'The jobs sweep could not decide pending runs (API, schedule or event starts) for 5 minutes ' +
        '(DescribeExecution failed, log "pending runs ' +
        'swept, some undecided"; or the sweep failed, log "pending runs not swept"): those runs stay pending, their ' +
        'reservations counted on the day, until a sweep decides.',
    },
    WorkflowSigningFaults: {
      metric: runtimeMetric(source, 'WorkflowSigningFaults'),
      threshold: 1,
      description:
        "A workflow change committed but its owner's audit heads could not be signed (KMS refused, the Put failed; log " +
        '"signing its owner heads failed"): the verifier reports an unsigned tail until the next signing covers it.',
    },
  };
}
