/**
 * `GraphStateMachine`: the second Standard state machine of the runtime. One definition interprets every graph
 * workflow: the graph lives in DynamoDB (the run's version), never in generated state machines, so publishing
 * a graph needs no deploy. Contract: docs/state-machine.md, "The graph machine".
 *
 *   Advance ─► RouteGraph ─┬ service ─► ServiceStep ─► RouteGraph        (one ready service step: the fast path)
 *                          ├ steps ───► RunSteps (Map) ─► Advance        (ready steps in parallel, each by type:
 *                          │                                              service, agent, human, external)
 *                          ├ done ────► DeliverGraph (End)
 *                          ├ paused ──► AwaitResume (task token, answered by a resume) ─► Advance
 *                          ├ stop ────► GraphStopped                      (paused, cancelled, nothing to do)
 *                          └ failed / anything else ─► MarkGraphFailed ─► GraphFailed
 *
 *   In the Map, a service step gated `needs_approval` (docs/graph-workflows.md, "Gated service steps"):
 *   ServiceTask ─► ServiceWaits ─┬ approval ─► ApproveServiceStep (RequestApproval, task token) ─► ServiceTask
 *                                │              └ States.Timeout ─► ExpireStepApproval (Expire) ─► ServiceTask
 *                                └ otherwise ─► ServiceTaskEnded
 *
 * Step Functions semantics relied on (each checked offline in test/infra/graph-state-machine.test.ts):
 * - Inline Map: iterations run in parallel, at most 40 at once, and their events join the execution's
 *   history (https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html). MaxConcurrency 10.
 * - `.waitForTaskToken`: the task pauses until SendTaskSuccess/SendTaskFailure with `$$.Task.Token`;
 *   `TimeoutSeconds(Path)` bounds the wait and fails it with `States.Timeout`, which a Catch can route
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token,
 *   https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 * - Payloads (state input/output, task results) ≤ 256 KiB and at most 25,000 history events per execution
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html): the state carries step ids only.
 *   The largest graph (100 nodes) run step by step, each by the machine's longest path, writes at most 4,130
 *   events without retries (test/infra/graph-history.test.ts), which leaves room for about 5,200 retried
 *   attempts. A resume continues the same execution (13 events a pause/resume round) and so does a step retried
 *   while the run still runs: neither is bounded by the graph, and no continue-as-new is made
 *   (docs/graph-workflows.md, "How long one execution can run").
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { loggedStateMachine } from './logged-state-machine.ts';
import { acknowledge, acknowledgeGrantWildcards, nagRef } from './nag.ts';
import {
  CALLBACK_CRASH_RETRY,
  CRASH_RETRY,
  ENGINE_RETRY,
  LAMBDA_SERVICE_RETRY,
  LAMBDA_THROTTLE_RETRY,
  WAIT_ATTEMPT,
} from './run-state-machine.ts';
import { GRAPH_NEXT, GRAPH_STATE_NAMES } from './state-names.ts';

/** The Lambda functions behind the graph machine's Task states. */
export interface GraphStateMachineHandlers {
  /** `Advance`, `CompleteStep`, `RecordStepError` (functions/graph-advance.ts). */
  readonly advance: lambda.IFunction;
  /** `ServiceStep`, `ServiceTask` (functions/graph-service.ts). */
  readonly service: lambda.IFunction;
  /**
   * `AgentTask`, `ExternalTask`: start a child run (agent or external) with the wait's token; `AwaitResume`
   * (functions/graph-wait.ts).
   */
  readonly wait: lambda.IFunction;
  /**
   * `HumanTask`: opens a human task with the wait's token and sends the signed links (functions/human-task.ts):
   * a function of its own, so only it holds the link-signing key.
   */
  readonly humanTask: lambda.IFunction;
  /** `ApproveServiceStep`: a gated service step's approval wait (functions/request-approval.ts, shared). */
  readonly requestApproval: lambda.IFunction;
  /** `ExpireStepApproval`: that wait timed out (functions/expire.ts, shared with the run machine). */
  readonly expire: lambda.IFunction;
  /** `DeliverGraph` (functions/deliver.ts, shared with the run machine). */
  readonly deliver: lambda.IFunction;
  /** `MarkGraphFailed` (functions/mark-failed.ts, shared with the run machine). */
  readonly markFailed: lambda.IFunction;
}

export interface GraphStateMachineProps {
  readonly handlers: GraphStateMachineHandlers;
  /** `TimeoutSeconds` of the Lambda tasks: each function's timeout plus a margin (as the run machine). */
  readonly taskTimeouts?: Partial<Record<keyof GraphStateMachineHandlers, Duration>>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Ready steps run at once, at most (Inline Map: at most 40). @default 10 */
  readonly maxConcurrentSteps?: number;
}

/** `AgentTask`'s bound: the longest run timeout (7 days) + the longest approval wait (7 days) + 1 day. */
export const AGENT_TASK_WAIT = Duration.days(15);

/** `AwaitResume`'s bound: how long a paused graph run waits to be resumed before it fails. */
export const PAUSE_WAIT = Duration.days(30);

/** What one Map iteration ends with: its step id, never the step's data (see `stepProcessor`). */
export const ITERATION_OUTPUT = '$.stepId';

/** The answers to a `.waitForTaskToken` wait. */
export type TaskResponseAction = 'states:SendTaskSuccess' | 'states:SendTaskFailure';

/** The step reference a Map item holds (ids and counters only). */
const STEP_REF = {
  runId: sfn.JsonPath.stringAt('$.runId'),
  stepId: sfn.JsonPath.stringAt('$.stepId'),
  type: sfn.JsonPath.stringAt('$.type'),
  attempt: sfn.JsonPath.numberAt('$.attempt'),
};

export class GraphStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;
  public readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: GraphStateMachineProps) {
    super(scope, id);
    const { handlers } = props;
    const names = GRAPH_STATE_NAMES;
    const timeouts = props.taskTimeouts ?? {};
    const concurrency = props.maxConcurrentSteps ?? 10;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 40)
      throw new Error(`GraphStateMachine: maxConcurrentSteps ${concurrency} must be 1–40 (Inline Map).`);

    const markFailed = this.lambdaTask(names.markFailed, handlers.markFailed, timeouts.markFailed, {
      payload: undefined,
      resultPath: sfn.JsonPath.DISCARD,
    });
    markFailed.next(
      new sfn.Fail(this, names.failed, {
        error: 'RunFailed',
        cause: 'The run failed; its record holds the reason.',
      }),
    );
    const advance = this.lambdaTask(names.advance, handlers.advance, timeouts.advance, {
      payload: { runId: sfn.JsonPath.stringAt('$.runId') },
      resultPath: undefined,
    });
    const serviceStep = this.lambdaTask(names.serviceStep, handlers.service, timeouts.service, {
      payload: {
        runId: sfn.JsonPath.stringAt('$.step.runId'),
        stepId: sfn.JsonPath.stringAt('$.step.stepId'),
        type: sfn.JsonPath.stringAt('$.step.type'),
        attempt: sfn.JsonPath.numberAt('$.step.attempt'),
        decide: true,
      },
      resultPath: undefined,
    });
    const deliver = this.lambdaTask(names.deliver, handlers.deliver, timeouts.deliver, {
      payload: { runId: sfn.JsonPath.stringAt('$.runId'), turn: 0, segmentStartTurn: 0 },
      resultPath: sfn.JsonPath.DISCARD,
    });
    for (const task of [advance, serviceStep, deliver])
      task.addCatch(markFailed, { errors: [sfn.Errors.ALL], resultPath: '$.error' });

    const runSteps = new sfn.Map(this, names.runSteps, {
      itemsPath: '$.steps',
      maxConcurrency: concurrency,
      resultPath: sfn.JsonPath.DISCARD,
    });
    runSteps.itemProcessor(this.stepProcessor(handlers, timeouts));
    runSteps.addCatch(markFailed, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    runSteps.next(advance);

    // Paused: wait (no polling, no history growth) until the operator resumes; then decide again.
    const awaitResume = new tasks.LambdaInvoke(this, names.awaitResume, {
      lambdaFunction: handlers.wait,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      // `rev`: the run's revision Advance (or ServiceStep) decided `paused` at, which tells this entry into the
      // state from the next one (every `paused` answer carries it).
      payload: sfn.TaskInput.fromObject({
        runId: sfn.JsonPath.stringAt('$.runId'),
        rev: sfn.JsonPath.numberAt('$.rev'),
        wait: WAIT_ATTEMPT,
        taskToken: sfn.JsonPath.taskToken,
      }),
      // Bounded like every task-token wait: a graph paused this long fails (States.Timeout → MarkGraphFailed)
      // instead of waiting out the execution's year.
      taskTimeout: sfn.Timeout.duration(PAUSE_WAIT),
      resultPath: sfn.JsonPath.DISCARD,
      retryOnServiceExceptions: false,
    });
    awaitResume
      .addRetry(LAMBDA_SERVICE_RETRY)
      .addRetry(LAMBDA_THROTTLE_RETRY)
      .addRetry(ENGINE_RETRY)
      .addRetry(CALLBACK_CRASH_RETRY);
    awaitResume.addCatch(markFailed, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    awaitResume.next(advance);

    const route = new sfn.Choice(this, names.route)
      .when(sfn.Condition.not(sfn.Condition.isPresent('$.next')), markFailed)
      .when(sfn.Condition.stringEquals('$.next', GRAPH_NEXT.service), serviceStep)
      .when(sfn.Condition.stringEquals('$.next', GRAPH_NEXT.steps), runSteps)
      .when(sfn.Condition.stringEquals('$.next', GRAPH_NEXT.done), deliver)
      .when(sfn.Condition.stringEquals('$.next', GRAPH_NEXT.paused), awaitResume)
      .when(sfn.Condition.stringEquals('$.next', GRAPH_NEXT.stop), new sfn.Succeed(this, names.stopped))
      .otherwise(markFailed);
    advance.next(route);
    serviceStep.next(route);
    // DeliverGraph ends the execution itself (`End: true`): one billed transition fewer than a Succeed state
    // after it (state-names.ts, "Terminal tasks").

    ({ logGroup: this.logGroup, stateMachine: this.stateMachine } = loggedStateMachine(this, {
      start: advance,
      comment: 'One execution of a graph workflow run (docs/state-machine.md, "The graph machine").',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));
    this.acknowledgeFindings(handlers);
  }

  /**
   * One ready step, by type: a service call, a child agent run, a child external run or a human task (the last
   * three are waits), then record it.
   */
  private stepProcessor(
    handlers: GraphStateMachineHandlers,
    timeouts: Partial<Record<keyof GraphStateMachineHandlers, Duration>>,
  ): sfn.IChainable {
    const names = GRAPH_STATE_NAMES;
    // Each iteration ends with its step id only (OutputPath): the Map gathers every iteration's output into one
    // array, and a state's output is at most 256 KiB (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html),
    // whatever ResultPath then does with it. Without this an iteration would end with the wait's answer (a
    // child's text or a form's values, up to 64 KiB each) and a handful of parallel steps would pass the limit.
    const serviceTask = this.lambdaTask(names.serviceTask, handlers.service, timeouts.service, {
      // Inside the Map a service step only runs; Advance decides once every ready step has ended. Its answer
      // says whether it waits on an approval (`$.service`).
      payload: { ...STEP_REF, decide: false },
      // Not the iteration's end: ServiceWaits reads the answer; ServiceTaskEnded keeps the step id only.
      resultPath: '$.service',
    });
    const completeStep = this.lambdaTask(names.completeStep, handlers.advance, timeouts.advance, {
      payload: { ...STEP_REF, result: sfn.JsonPath.objectAt('$.result') },
      resultPath: sfn.JsonPath.DISCARD,
      outputPath: ITERATION_OUTPUT,
    });
    const recordError = this.lambdaTask(names.recordStepError, handlers.advance, timeouts.advance, {
      payload: { ...STEP_REF, error: sfn.JsonPath.objectAt('$.error') },
      resultPath: sfn.JsonPath.DISCARD,
      outputPath: ITERATION_OUTPUT,
    });
    // A child agent run ends by itself (its run timeout, at most 7 days, is checked before every turn; an
    // approval it waits on lasts at most 7 days more), and its end answers this wait; if its execution dies
    // outside MarkFailed, the execution-ended handler ends it and answers. This bound is the backstop: a wait
    // with no TimeoutSeconds would last as long as the execution, up to a year
    // (https://docs.aws.amazon.com/step-functions/latest/dg/sfn-stuck-execution.html).
    const agentTask = this.waitTask(
      names.agentTask,
      handlers.wait,
      sfn.Timeout.duration(AGENT_TASK_WAIT),
      false,
    );
    // The human task's own timeout bounds the wait; States.Timeout is caught → its onTimeout path.
    const humanTask = this.waitTask(names.humanTask, handlers.humanTask, sfn.Timeout.at('$.timeoutSeconds'));
    // A child external run: the node's timeout is the child's own deadline (it cancels the engine's execution
    // and answers); the wait's TimeoutSecondsPath (that plus a margin, shared/graph-run/external-start.ts) is a
    // backstop whose States.Timeout is caught → RecordStepError, which fails the step and cancels the child.
    const externalTask = this.waitTask(names.externalTask, handlers.wait, sfn.Timeout.at('$.timeoutSeconds'));
    for (const wait of [agentTask, humanTask, externalTask]) {
      wait.addCatch(recordError, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
      wait.next(completeStep);
    }
    serviceTask.next(this.serviceApproval(handlers, timeouts, serviceTask, recordError));
    return new sfn.Choice(this, names.stepType)
      .when(sfn.Condition.stringEquals('$.type', 'service_task'), serviceTask)
      .when(sfn.Condition.stringEquals('$.type', 'agent_task'), agentTask)
      .when(sfn.Condition.stringEquals('$.type', 'human_task'), humanTask)
      .when(sfn.Condition.stringEquals('$.type', 'external_task'), externalTask)
      .otherwise(
        new sfn.Fail(this, 'UnknownStepType', { error: 'UnknownStepType', cause: 'No such step type.' }),
      );
  }

  /**
   * A gated service step's approval wait, with the approval machinery of agent runs: `RequestApproval` attaches
   * the wait's token to this step's approval only and sends the signed links; the decision (approval pages)
   * answers it with SendTaskSuccess; the step then runs again and acts on the decision. `TimeoutSecondsPath`
   * is what is left of the approval's window; `States.Timeout` is caught (never retried) → `Expire` records it
   * expired (fail closed) → the step runs again and fails `expired`
   * (https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token).
   * No `HeartbeatSeconds`: no worker runs during the wait, so nothing could send heartbeats; the timeout is
   * the bound (https://docs.aws.amazon.com/step-functions/latest/dg/sfn-stuck-execution.html).
   */
  private serviceApproval(
    handlers: GraphStateMachineHandlers,
    timeouts: Partial<Record<keyof GraphStateMachineHandlers, Duration>>,
    serviceTask: sfn.INextable & sfn.IChainable,
    recordError: tasks.LambdaInvoke,
  ): sfn.Choice {
    const names = GRAPH_STATE_NAMES;
    const approve = new tasks.LambdaInvoke(this, names.approveServiceStep, {
      lambdaFunction: handlers.requestApproval,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: sfn.TaskInput.fromObject({
        runId: sfn.JsonPath.stringAt('$.runId'),
        // A graph run has no turns; its service steps' ledger rows and approvals carry turn 0.
        turn: 0,
        approvalId: sfn.JsonPath.stringAt('$.service.approvalId'),
        approvalTimeoutSeconds: sfn.JsonPath.numberAt('$.service.timeoutSeconds'),
        taskToken: sfn.JsonPath.taskToken,
        wait: WAIT_ATTEMPT,
      }),
      taskTimeout: sfn.Timeout.at('$.service.timeoutSeconds'),
      resultPath: sfn.JsonPath.DISCARD,
      retryOnServiceExceptions: false,
    });
    approve
      .addRetry(LAMBDA_SERVICE_RETRY)
      .addRetry(LAMBDA_THROTTLE_RETRY)
      .addRetry(ENGINE_RETRY)
      .addRetry(CALLBACK_CRASH_RETRY);
    const expire = this.lambdaTask(names.expireStepApproval, handlers.expire, timeouts.expire, {
      payload: { runId: sfn.JsonPath.stringAt('$.runId'), turn: 0 },
      resultPath: sfn.JsonPath.DISCARD,
    });
    approve.addCatch(expire, { errors: [sfn.Errors.TIMEOUT], resultPath: sfn.JsonPath.DISCARD });
    for (const task of [approve, expire])
      task.addCatch(recordError, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    approve.next(serviceTask);
    expire.next(serviceTask);
    // A Choice comparison on a missing field is an uncatchable States.Runtime error: guard each path first.
    return new sfn.Choice(this, names.serviceWaits)
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent('$.service.next'),
          sfn.Condition.stringEquals('$.service.next', GRAPH_NEXT.approval),
          sfn.Condition.isPresent('$.service.approvalId'),
          sfn.Condition.isPresent('$.service.timeoutSeconds'),
          sfn.Condition.isNumeric('$.service.timeoutSeconds'),
          sfn.Condition.numberGreaterThanEquals('$.service.timeoutSeconds', 1),
        ),
        approve,
      )
      .otherwise(new sfn.Succeed(this, names.serviceTaskEnded, { outputPath: ITERATION_OUTPUT }));
  }

  private waitTask(
    name: string,
    fn: lambda.IFunction,
    timeout: sfn.Timeout,
    passTimeout = true,
  ): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, name, {
      lambdaFunction: fn,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: sfn.TaskInput.fromObject({
        ...STEP_REF,
        ...(passTimeout ? { timeoutSeconds: sfn.JsonPath.numberAt('$.timeoutSeconds') } : {}),
        wait: WAIT_ATTEMPT,
        taskToken: sfn.JsonPath.taskToken,
      }),
      taskTimeout: timeout,
      resultPath: '$.result',
      retryOnServiceExceptions: false,
    });
    // Never retried on States.Timeout: for a human task that is the task timing out (→ onTimeout).
    task
      .addRetry(LAMBDA_SERVICE_RETRY)
      .addRetry(LAMBDA_THROTTLE_RETRY)
      .addRetry(ENGINE_RETRY)
      .addRetry(CALLBACK_CRASH_RETRY);
    return task;
  }

  private lambdaTask(
    name: string,
    fn: lambda.IFunction,
    timeout: Duration | undefined,
    options: {
      payload: Record<string, unknown> | undefined;
      resultPath: string | undefined;
      outputPath?: string;
    },
  ): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, name, {
      lambdaFunction: fn,
      payloadResponseOnly: true,
      ...(options.payload === undefined ? {} : { payload: sfn.TaskInput.fromObject(options.payload) }),
      ...(options.resultPath === undefined ? {} : { resultPath: options.resultPath }),
      ...(options.outputPath === undefined ? {} : { outputPath: options.outputPath }),
      ...(timeout === undefined ? {} : { taskTimeout: sfn.Timeout.duration(timeout) }),
      retryOnServiceExceptions: false,
    });
    task
      .addRetry(LAMBDA_SERVICE_RETRY)
      .addRetry(LAMBDA_THROTTLE_RETRY)
      .addRetry(ENGINE_RETRY)
      .addRetry(CRASH_RETRY);
    return task;
  }

  /** Grants starting executions (starting a graph run, resuming, retrying a step). */
  public grantStartExecution(grantee: iam.IGrantable): iam.Grant {
    return this.stateMachine.grantStartExecution(grantee);
  }

  /**
   * Grants answering this state machine's waits: `SendTaskSuccess` (the api resuming a paused run, approval-http
   * submitting a human task's form) and, when asked, `SendTaskFailure` (the api closing a cancelled run's human
   * tasks). Both are authorized on the state machine whose execution waits
   * (aws/aws-cdk#8486), although the Service Authorization Reference
   * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html) lists no
   * resource type for them: test/iam/sar-resource-types.test.ts records the evidence.
   */
  public grantTaskResponse(
    grantee: iam.IGrantable,
    actions: readonly TaskResponseAction[] = ['states:SendTaskSuccess'],
  ): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...actions],
      resourceArns: [this.stateMachine.stateMachineArn],
    });
  }

  /**
   * Grants `SendTaskSuccess` on this state machine to functions that are themselves its tasks (deliver and
   * mark-failed end child runs and answer the parent step's wait). In their default policies the grant would be
   * a dependency cycle (the state machine depends on the functions), so it is a policy of its own. Step
   * Functions authorizes task-token calls against the waiting execution's state machine (aws/aws-cdk#8486).
   */
  public grantTaskResponseToTaskFunctions(
    id: string,
    roles: iam.IRole[],
    actions: readonly TaskResponseAction[] = ['states:SendTaskSuccess'],
  ): iam.Policy {
    return new iam.Policy(this, id, {
      roles,
      statements: [
        new iam.PolicyStatement({
          actions: [...actions],
          resources: [this.stateMachine.stateMachineArn],
        }),
      ],
    });
  }

  /** Grants stopping executions (cancelling a graph run). */
  public grantStopExecution(grantee: iam.IGrantable): iam.Grant {
    const grant = this.stateMachine.grantExecution(grantee, 'states:StopExecution');
    acknowledgeGrantWildcards(
      grantee,
      grant,
      'Cancelling a graph run stops its current execution, whose name is known only at run time; scoped to executions of this state machine.',
    );
    return grant;
  }

  private acknowledgeFindings(handlers: GraphStateMachineHandlers): void {
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
      reason: 'Execution logging is at level ERROR without execution data: the state carries step ids only.',
    });
  }
}
