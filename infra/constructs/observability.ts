/**
 * `Observability`: alarms on what needs a human (failed or timed-out executions of the run, graph and external
 * state machines: `AWS/States` `ExecutionsFailed` / `ExecutionsTimedOut` by `StateMachineArn`,
 * https://docs.aws.amazon.com/step-functions/latest/dg/procedure-cw-metrics.html; turn errors and throttles,
 * approval page errors, API 5xx, dead letters, egress denials, expired approvals, budget stops, deferred cancel
 * anchors, workflow signing faults) and one dashboard of the runtime (the run, graph and external state
 * machines' executions among them), including the metrics the functions emit themselves
 * (infra/constructs/metric-names.ts).
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { RUNTIME_FUNCTION_DEFAULTS } from './runtime-function.ts';
import { runtimeMetricAlarms, runtimeMetricRows, validateMetricsNamespace } from './runtime-metrics.ts';

/** Properties of `Observability`. */
export interface ObservabilityProps {
  /** The run state machine. */
  readonly stateMachine: sfn.IStateMachine;
  /**
   * The other state machines graphed and alarmed beside it, by title (`Graph`, `External`): each gets the run
   * machine's two execution alarms, `<title>ExecutionsFailed` and `<title>ExecutionsTimedOut`.
   * @default - none
   */
  readonly otherStateMachines?: Readonly<Record<string, sfn.IStateMachine>>;
  /** The `Turn` function. */
  readonly turnFunction: lambda.IFunction;
  /** The approval pages function (functions/approval-http.ts). */
  readonly approvalFunction: lambda.IFunction;
  /** All functions, by handler name, for the dashboard. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** The HTTP API (only its metrics are used). */
  readonly httpApi: Pick<
    apigw.IHttpApi,
    'metricCount' | 'metricClientError' | 'metricServerError' | 'metricLatency'
  >;
  /**
   * Topic notified when an alarm fires or recovers. It must be encrypted with a customer managed key (or not
   * at all): CloudWatch cannot publish to a topic under the AWS managed key alias/aws/sns.
   * @default - no actions; alarms show in the console
   */
  readonly alarmTopic?: sns.ITopic;
  /** The triggers' dead-letter queue (trigger-dead-letters.ts): any message in it is a run that did not start. */
  readonly triggerDeadLetterQueue?: sqs.IQueue;
  /**
   * The execution-ended dead-letter queue (execution-ended-dead-letters.ts): any message in it is a run that may
   * stay `running` until it is redriven.
   */
  readonly executionEndedDeadLetterQueue?: sqs.IQueue;
  /** Dashboard name. @default - generated */
  readonly dashboardName?: string;
  /** `POWERTOOLS_METRICS_NAMESPACE` of the functions. @default 'WfRuntime' */
  readonly metricsNamespace?: string;
  /** `POWERTOOLS_SERVICE_NAME` of the functions (the `service` dimension). @default 'wf-runtime' */
  readonly serviceName?: string;
}

const FIVE_MINUTES = Duration.minutes(5);

/** The runtime's alarms and dashboard. */
export class Observability extends Construct {
  /** All alarms, keyed by construct id. */
  public readonly alarms: Readonly<Record<string, cloudwatch.Alarm>>;
  /** The dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const sum = { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM };
    const emitted = {
      namespace: props.metricsNamespace ?? RUNTIME_FUNCTION_DEFAULTS.metricsNamespace,
      serviceName: props.serviceName ?? RUNTIME_FUNCTION_DEFAULTS.serviceName,
      period: FIVE_MINUTES,
    };
    validateMetricsNamespace(`Observability '${id}'`, emitted.namespace);
    const api5xx = props.httpApi.metricServerError(sum);

    const alarm = (alarmId: string, metric: cloudwatch.IMetric, threshold: number, description: string) =>
      new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
    this.alarms = {
      ExecutionsFailed: alarm(
        'ExecutionsFailed',
        props.stateMachine.metricFailed(sum),
        1,
        'A run execution failed: the run is marked failed (MarkFailed), or MarkFailed itself failed.',
      ),
      ExecutionsTimedOut: alarm(
        'ExecutionsTimedOut',
        props.stateMachine.metricTimedOut(sum),
        1,
        'A run execution timed out.',
      ),
      ...Object.fromEntries(
        Object.entries(props.otherStateMachines ?? {}).flatMap(([title, machine]) => [
          [
            `${title}ExecutionsFailed`,
            alarm(
              `${title}ExecutionsFailed`,
              machine.metricFailed(sum),
              1,
              `A ${title.toLowerCase()} run execution failed: the run is marked failed (Mark${title}Failed), ` +
                `or Mark${title}Failed itself failed.`,
            ),
          ],
          [
            `${title}ExecutionsTimedOut`,
            alarm(
              `${title}ExecutionsTimedOut`,
              machine.metricTimedOut(sum),
              1,
              `A ${title.toLowerCase()} run execution timed out.`,
            ),
          ],
        ]),
      ),
      TurnErrors: alarm(
        'TurnErrors',
        props.turnFunction.metricErrors(sum),
        5,
        'The Turn function raised 5 or more errors in 5 minutes (model outages, throttling, bugs).',
      ),
      TurnThrottles: alarm(
        'TurnThrottles',
        props.turnFunction.metricThrottles(sum),
        1,
        'The Turn function was throttled: raise the account concurrency or lower the run rate.',
      ),
      ApprovalHttpErrors: alarm(
        'ApprovalHttpErrors',
        props.approvalFunction.metricErrors(sum),
        1,
        'The approval pages function failed: approvers may be unable to decide.',
      ),
      Api5xx: alarm(
        'Api5xx',
        api5xx,
        5,
        'The HTTP API (/v1 and /approvals) returned 5 or more 5xx in 5 minutes.',
      ),
      ...(props.triggerDeadLetterQueue === undefined
        ? {}
        : {
            TriggerDeadLetters: alarm(
              'TriggerDeadLetters',
              props.triggerDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
                period: FIVE_MINUTES,
                statistic: cloudwatch.Stats.MAXIMUM,
              }),
              1,
              'A schedule or event could not start its run and waits in the trigger dead-letter queue ' +
                '(docs/event-triggers.md, "Undelivered triggers").',
            ),
          }),
      ...(props.executionEndedDeadLetterQueue === undefined
        ? {}
        : {
            ExecutionEndedDeadLetters: alarm(
              'ExecutionEndedDeadLetters',
              props.executionEndedDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
                period: FIVE_MINUTES,
                statistic: cloudwatch.Stats.MAXIMUM,
              }),
              1,
              'An execution that ended outside MarkFailed could not end its run, which stays running until ' +
                'the event is redriven (docs/state-machine.md, "Executions that end outside MarkFailed").',
            ),
          }),
      ...Object.fromEntries(
        Object.entries(runtimeMetricAlarms(emitted)).map(([alarmId, spec]) => [
          alarmId,
          alarm(alarmId, spec.metric, spec.threshold, spec.description),
        ]),
      ),
    };
    if (props.alarmTopic !== undefined) {
      const action = new actions.SnsAction(props.alarmTopic);
      for (const each of Object.values(this.alarms)) {
        each.addAlarmAction(action);
        each.addOkAction(action);
      }
    }

    const executions = (title: string, machine: sfn.IStateMachine) =>
      new cloudwatch.GraphWidget({
        title: `${title} executions`,
        width: 12,
        left: [
          machine.metricStarted(sum).with({ label: 'started' }),
          machine.metricSucceeded(sum).with({ label: 'succeeded' }),
          machine.metricFailed(sum).with({ label: 'failed' }),
          machine.metricTimedOut(sum).with({ label: 'timed out' }),
          machine.metricAborted(sum).with({ label: 'aborted' }),
        ],
      });
    const others = Object.entries(props.otherStateMachines ?? {}).map(([title, machine]) =>
      executions(title, machine),
    );
    const fns = Object.entries(props.functions);
    const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.Metric) =>
      fns.map(([name, fn]) => metric(fn).with({ label: name }));
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      ...(props.dashboardName === undefined ? {} : { dashboardName: props.dashboardName }),
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          executions('Run', props.stateMachine),
          new cloudwatch.GraphWidget({
            title: 'Turn duration',
            width: 12,
            left: [
              props.turnFunction
                .metricDuration({ period: FIVE_MINUTES, statistic: 'p50' })
                .with({ label: 'p50' }),
              props.turnFunction
                .metricDuration({ period: FIVE_MINUTES, statistic: 'p99' })
                .with({ label: 'p99' }),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Lambda errors',
            width: 12,
            left: perFunction((fn) => fn.metricErrors(sum)),
          }),
          new cloudwatch.GraphWidget({
            title: 'Lambda throttles',
            width: 12,
            left: perFunction((fn) => fn.metricThrottles(sum)),
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'HTTP API',
            width: 12,
            left: [
              props.httpApi.metricCount(sum).with({ label: 'requests' }),
              props.httpApi.metricClientError(sum).with({ label: '4xx' }),
              api5xx.with({ label: '5xx' }),
            ],
            right: [
              props.httpApi
                .metricLatency({ period: FIVE_MINUTES, statistic: 'p99' })
                .with({ label: 'latency p99' }),
            ],
          }),
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            width: 12,
            alarms: Object.values(this.alarms),
          }),
        ],
        // Graph and external runs' executions (a row wraps past 24 columns).
        ...(others.length > 0 ? [others] : []),
        ...runtimeMetricRows(emitted),
      ],
    });
  }
}
