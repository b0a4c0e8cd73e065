/**
 * `ExternalStateMachine`: the third Standard state machine of the runtime. One definition runs every
 * `kind: external` workflow: it hands the run to an engine through the registry's adapter and watches it.
 * Contract: docs/state-machine.md, "The external machine".
 *
 *   ExternalStart ─► RouteExternal ─┬ wait ───► ObserveWait (SecondsPath) ─► ExternalObserve ─► RouteExternal
 *        ▲                          ├ retry_start ► StartWait (SecondsPath) ─► ExternalStart   (engine at capacity)
 *                                   ├ finish ─► ExternalFinish ─► RouteExternal    (verify the result artifact)
 *                                   ├ deliver ► DeliverExternal (End)      (mode live only)
 *                                   ├ stop ───► ExternalStopped   (shadow, report_only, ended by the handler)
 *                                   └ missing / anything else ─► AbandonExternal ─► MarkExternalFailed ─► ExternalFailed
 *
 * Start, Observe and Finish are caught to AbandonExternal (shared/external/run/abandon.ts): the engine's
 * execution is asked to cancel before the run ends, so a failed run never leaves its engine working unasked.
 * AbandonExternal itself is caught to MarkExternalFailed (the run ends even if the store fails it); Deliver
 * runs after the run ended `done` (nothing left to cancel) and is caught to MarkExternalFailed directly.
 *
 * Step Functions semantics relied on (each checked offline in test/infra/external-state-machine.test.ts):
 * - Wait `SecondsPath`: "a time, in seconds, to wait … specified using a path from the state's input data. You
 *   must specify an integer value"; `Seconds` ranges 0–99999999
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/state-wait.html). The handler always answers an
 *   integer ≥ 1 (shared/external/run/backoff.ts), and the Choice routes to the Wait only when
 *   `$.waitSeconds` is present and numeric.
 * - Choice: rules are tried in order, the first match wins, `Default` otherwise; comparing a path that does not
 *   exist is a `States.Runtime` error, which no Catch handles — hence the `IsPresent` guards first
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html).
 * - Retry / Catch: retriers are tried in order; `MaxAttempts`, `IntervalSeconds`, `BackoffRate`, `MaxDelaySeconds`
 *   and `JitterStrategy` bound them; a Catch routes what is left, here to MarkExternalFailed
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html). Retrying a crashed
 *   Start is safe: the key comes from the run id, so the engine answers the same execution (deduplicated).
 * - AbandonExternal's `Parameters` take the whole state as `state.$: "$"` (a key ending in `.$` takes its value
 *   from a path of the input: https://docs.aws.amazon.com/step-functions/latest/dg/input-output-inputpath-params.html),
 *   and `ResultPath: null` "passes the original input to the output", so MarkExternalFailed still reads the
 *   Catch's `$.error` (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultpath.html).
 * - A Standard execution lasts at most one year and holds at most 25,000 history events
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). The run's deadline (budget
 *   `runTimeoutSeconds`) ends the loop long before a year, and Observe spreads its rounds so that one execution
 *   makes at most 2,000 of them (≤ 10 events each). StartWait's rounds (the engine at capacity) count in the
 *   same 2,000 (shared/external/run/backoff.ts): a round is StartWait (2 events: WaitStateEntered/Exited),
 *   ExternalStart (5: TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded, TaskStateExited) and
 *   RouteExternal (2), 9 in all (https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html).
 *   At the 60 s back-off cap a 7-day deadline (the longest `runTimeoutSeconds`) would be 10,080 rounds,
 *   ~90,700 events, so the rounds are spread instead: at most 2,000 rounds in all, ≤ 18,000 events.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { BUILTIN_ENGINE_FACTORIES } from '../../shared/external/builtins.ts';
import {
  createEngineRegistry,
  type EnginesConfig,
  EnginesConfigSchema,
} from '../../shared/external/index.ts';
import { loggedStateMachine } from './logged-state-machine.ts';
import { acknowledge, nagRef } from './nag.ts';
import {
  CRASH_RETRY,
  ENGINE_RETRY,
  LAMBDA_SERVICE_RETRY,
  LAMBDA_THROTTLE_RETRY,
} from './run-state-machine.ts';
import { EXTERNAL_NEXT, EXTERNAL_RETRY_LATER_ERRORS, EXTERNAL_STATE_NAMES } from './state-names.ts';

/** The Lambda functions behind the external machine's Task states. */
export interface ExternalStateMachineHandlers {
  /** `ExternalStart`, `ExternalObserve`, `ExternalFinish` (functions/external.ts). */
  readonly external: lambda.IFunction;
  /** `DeliverExternal` (functions/deliver.ts, shared with the run machine). */
  readonly deliver: lambda.IFunction;
  /** `MarkExternalFailed` (functions/mark-failed.ts, shared with the run machine). */
  readonly markFailed: lambda.IFunction;
}

export interface ExternalStateMachineProps {
  readonly handlers: ExternalStateMachineHandlers;
  /** `TimeoutSeconds` of the Lambda tasks: each function's timeout plus a margin (as the run machine). */
  readonly taskTimeouts?: Partial<Record<keyof ExternalStateMachineHandlers, Duration>>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * Start got no usable answer (or a credential could not be loaded now): retried with the same key, which the
 * engine deduplicates; bounded, then AbandonExternal. An engine at capacity (429/503) is not retried here: Start
 * answers `retry_start` and the run waits in StartWait until its deadline (shared/external/run/start.ts).
 */
export const EXTERNAL_RETRY_LATER: sfn.RetryProps = {
  errors: [...EXTERNAL_RETRY_LATER_ERRORS],
  interval: Duration.seconds(5),
  maxAttempts: 6,
  backoffRate: 2,
  maxDelay: Duration.seconds(120),
  jitterStrategy: sfn.JitterType.FULL,
};

/**
 * The deployment's engines, validated at synth time with the same registry the functions build (an unknown
 * engine, a bad setting: the synth fails naming `engines.<name>.settings.<field>`).
 */
export function externalEnginesOf(props: { readonly externalEngines?: EnginesConfig }): EnginesConfig {
  const config = EnginesConfigSchema.parse(props.externalEngines ?? {});
  createEngineRegistry(BUILTIN_ENGINE_FACTORIES, config);
  return config;
}

const step = (name: 'start' | 'observe' | 'finish') => ({
  runId: sfn.JsonPath.stringAt('$.runId'),
  step: name,
});

export class ExternalStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;
  public readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExternalStateMachineProps) {
    super(scope, id);
    const { handlers } = props;
    const names = EXTERNAL_STATE_NAMES;
    const timeouts = props.taskTimeouts ?? {};

    const markFailed = this.lambdaTask(names.markFailed, handlers.markFailed, timeouts.markFailed, undefined);
    markFailed.next(
      new sfn.Fail(this, names.failed, {
        error: 'RunFailed',
        cause: 'The run failed; its record holds the reason.',
      }),
    );
    // The whole state goes along (`state`): the Catch's error is at `$.error`, absent when the route's default
    // led here. Its answer is discarded, so MarkExternalFailed gets that same state.
    const abandon = this.lambdaTask(names.abandon, handlers.external, timeouts.external, {
      runId: sfn.JsonPath.stringAt('$.runId'),
      step: 'abandon',
      state: sfn.JsonPath.objectAt('$'),
    });
    abandon.addCatch(markFailed, { errors: [sfn.Errors.ALL], resultPath: '$.abandonError' });
    abandon.next(markFailed);
    const start = this.lambdaTask(names.start, handlers.external, timeouts.external, step('start'));
    start.addRetry(EXTERNAL_RETRY_LATER);
    const observe = this.lambdaTask(names.observe, handlers.external, timeouts.external, step('observe'));
    const finish = this.lambdaTask(names.finish, handlers.external, timeouts.external, step('finish'));
    const deliver = this.lambdaTask(names.deliver, handlers.deliver, timeouts.deliver, {
      runId: sfn.JsonPath.stringAt('$.runId'),
      turn: 0,
      segmentStartTurn: 0,
    });
    for (const task of [start, observe, finish])
      task.addCatch(abandon, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    deliver.addCatch(markFailed, { errors: [sfn.Errors.ALL], resultPath: '$.error' });

    const wait = new sfn.Wait(this, names.wait, { time: sfn.WaitTime.secondsPath('$.waitSeconds') });
    wait.next(observe);
    // The engine at capacity: Start waits (its back-off, the engine's Retry-After capped) and runs again.
    const startWait = new sfn.Wait(this, names.startWait, {
      time: sfn.WaitTime.secondsPath('$.waitSeconds'),
    });
    startWait.next(start);
    const numericWait = sfn.Condition.and(
      sfn.Condition.isPresent('$.waitSeconds'),
      sfn.Condition.isNumeric('$.waitSeconds'),
    );
    const route = new sfn.Choice(this, names.route)
      .when(sfn.Condition.not(sfn.Condition.isPresent('$.next')), abandon)
      .when(sfn.Condition.and(sfn.Condition.stringEquals('$.next', EXTERNAL_NEXT.wait), numericWait), wait)
      .when(
        sfn.Condition.and(sfn.Condition.stringEquals('$.next', EXTERNAL_NEXT.retryStart), numericWait),
        startWait,
      )
      .when(sfn.Condition.stringEquals('$.next', EXTERNAL_NEXT.finish), finish)
      .when(sfn.Condition.stringEquals('$.next', EXTERNAL_NEXT.deliver), deliver)
      .when(sfn.Condition.stringEquals('$.next', EXTERNAL_NEXT.stop), new sfn.Succeed(this, names.stopped))
      .otherwise(abandon);
    start.next(route);
    observe.next(route);
    finish.next(route);
    // DeliverExternal ends the execution itself (`End: true`): one billed transition fewer than a Succeed state
    // after it (state-names.ts, "Terminal tasks").

    ({ logGroup: this.logGroup, stateMachine: this.stateMachine } = loggedStateMachine(this, {
      start,
      comment: 'One external run: start, observe with backoff, verify, deliver (docs/state-machine.md).',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));
    this.acknowledgeFindings(handlers);
  }

  /** Grants starting executions (starting an external run). */
  public grantStartExecution(grantee: iam.IGrantable): iam.Grant {
    return this.stateMachine.grantStartExecution(grantee);
  }

  private lambdaTask(
    name: string,
    fn: lambda.IFunction,
    timeout: Duration | undefined,
    payload: Record<string, unknown> | undefined,
  ): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, name, {
      lambdaFunction: fn,
      payloadResponseOnly: true,
      // MarkExternalFailed takes the whole state (runId, and `error` when a Catch led there).
      ...(payload === undefined ? {} : { payload: sfn.TaskInput.fromObject(payload) }),
      // The steps answer the run pointer with `next`; Deliver's, Abandon's and MarkFailed's are discarded.
      ...(payload === undefined || 'turn' in payload || payload.step === 'abandon'
        ? { resultPath: sfn.JsonPath.DISCARD }
        : {}),
      ...(timeout === undefined ? {} : { taskTimeout: sfn.Timeout.duration(timeout) }),
      retryOnServiceExceptions: false,
    });
    // Every step is idempotent (a retried Start sends the same key; Observe and Finish re-read the run).
    task
      .addRetry(LAMBDA_SERVICE_RETRY)
      .addRetry(LAMBDA_THROTTLE_RETRY)
      .addRetry(ENGINE_RETRY)
      .addRetry(CRASH_RETRY);
    return task;
  }

  private acknowledgeFindings(handlers: ExternalStateMachineHandlers): void {
    const role = this.stateMachine.role;
    for (const fn of new Set(Object.values(handlers) as lambda.IFunction[])) {
      acknowledge(role, `AwsSolutions-IAM5[Resource::${nagRef(this, fn.functionArn)}:*]`, {
        reason:
          'LambdaInvoke grants lambda:InvokeFunction on the function and its qualified ARNs (<arn>:*) of this one handler.',
      });
    }
    acknowledge(role, 'AwsSolutions-IAM5[Resource::*]', {
      reason: 'CloudWatch Logs delivery and X-Ray support no resource-level permissions.',
    });
    acknowledge(this.stateMachine, 'AwsSolutions-SF1', {
      reason:
        'Execution logging is at level ERROR without execution data: the state carries the run id only.',
    });
  }
}
