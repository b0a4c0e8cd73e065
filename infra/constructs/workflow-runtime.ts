/**
 * `WorkflowRuntime`: the whole runtime in one reusable construct. It composes the table, the functions, the
 * state machine, the API, the triggers, approval signing and notices, and observability, and wires their
 * environment variables (env-names.ts) and least-privilege grants.
 */
import { RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AlertSubscriptionCheck } from './alert-subscriptions.ts';
import { resolveAlertTopics } from './alert-topics.ts';
import { ApprovalNotices } from './approval-notices.ts';
import { ApprovalSigningKey } from './approval-signing-key.ts';
import { APPROVER_HANDLERS, ApproversBundled, approverConstants } from './approver-bundling.ts';
import { AuditSigningKey } from './audit-signing-key.ts';
import { CredentialReader } from './credential-reader.ts';
import { DeployLimits } from './deploy-limits.ts';
import { deploymentNames } from './deployment-names.ts';
import { ENV } from './env-names.ts';
import { ExecutionEnded } from './execution-ended.ts';
import { ExternalStateMachine, externalEnginesOf } from './external-state-machine.ts';
import { GraphStateMachine } from './graph-state-machine.ts';
import { JobsSweep } from './jobs-sweep.ts';
import { acknowledge, acknowledgeGrantWildcards } from './nag.ts';
import { Observability } from './observability.ts';
import { OwnerNotices } from './owner-notices.ts';
import { RunStateMachine } from './run-state-machine.ts';
import { RunTable } from './run-table.ts';
import { RuntimeApi } from './runtime-api.ts';
import { RuntimeFunction, type RuntimeFunctionProps } from './runtime-function.ts';
import { grantSecretValue } from './secret-value-grant.ts';
import type { HandlerName } from './state-names.ts';
import {
  DELETE_ACTION,
  DELETE_PARTITIONS,
  PARTITIONED_WRITES,
  TABLE_ACCESS,
  WRITE_PARTITIONS,
} from './table-access.ts';
import { Triggers } from './triggers.ts';
import {
  ANTHROPIC_API_KEY_PLACEHOLDER,
  FUNCTION_SETTINGS,
  type ModelProvider,
  taskTimeoutFor,
  validateWorkflowRuntimeProps,
  type WorkflowRuntimeProps,
} from './workflow-runtime-props.ts';

export {
  ANTHROPIC_API_KEY_PLACEHOLDER,
  type ModelProvider,
  type WorkflowRuntimeProps,
} from './workflow-runtime-props.ts';

/** The workflow runtime: everything a team deploys into its account. */
export class WorkflowRuntime extends Construct {
  /** The single DynamoDB table. */
  public readonly table: RunTable;
  /** The run state machine. */
  public readonly runStateMachine: RunStateMachine;
  /** The external state machine: runs every `kind: external` workflow (docs/state-machine.md, "The external machine"). */
  public readonly externalStateMachine: ExternalStateMachine;
  /** The graph state machine: runs every graph workflow (docs/state-machine.md, "The graph machine"). */
  public readonly graphStateMachine: GraphStateMachine;
  /** The HTTP API. */
  public readonly api: RuntimeApi;
  /** Event bus, schedule group, Scheduler role. */
  public readonly triggers: Triggers;
  /** The approval-notices topic and subscriptions. */
  public readonly approvalNotices: ApprovalNotices;
  /** The role read per owner (tagged session) to resolve workflow credentials. */
  public readonly credentialReader: CredentialReader;
  /** The owner-notices topic (failed, denied, expired runs) and its per-owner subscriptions. */
  public readonly ownerNotices: OwnerNotices;
  /** The approval-link signing keyring. */
  public readonly signingKey: ApprovalSigningKey;
  /** The KMS key that signs audit chain heads. */
  public readonly auditSigningKey: AuditSigningKey;
  /** The Anthropic API key secret (`undefined` with Bedrock). */
  public readonly anthropicApiKeySecret: secretsmanager.Secret | secretsmanager.ISecret | undefined;
  /** Alarms and dashboard. */
  public readonly observability: Observability;
  /** The functions, by handler name. */
  public readonly functions: Readonly<Record<HandlerName, RuntimeFunction>>;
  /** The schedule of the delegated-jobs sweep (docs/jobs.md). */
  public readonly jobsSweep: JobsSweep;
  /** The rules that end a run whose execution ended outside MarkFailed (docs/state-machine.md). */
  public readonly executionEnded: ExecutionEnded;
  /** The model provider. */
  public readonly modelProvider: ModelProvider;
  /** Base URL of approval links. */
  public readonly approvalBaseUrl: string;

  constructor(scope: Construct, id: string, props: WorkflowRuntimeProps = {}) {
    super(scope, id);
    this.modelProvider = props.modelProvider ?? 'anthropic';
    validateWorkflowRuntimeProps(id, props, this.modelProvider);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    // The credential prefix and metrics namespace are this deployment's alone (deployment-names.ts).
    const { credentialSecretPrefix: credentialPrefix, metricsNamespace } = deploymentNames(this, props);

    this.table = new RunTable(this, 'Table', { removalPolicy });
    // Before the functions: the approver declarations are compiled into four of them (approver-bundling.ts).
    this.approvalNotices = new ApprovalNotices(this, 'ApprovalNotices', {
      ...(props.approvers === undefined ? {} : { approvers: props.approvers }),
    });
    const approverHandlers: readonly HandlerName[] = APPROVER_HANDLERS;
    const functionScope = new Construct(this, 'Functions');
    const make = (handlerName: HandlerName): RuntimeFunction => {
      const { id: fnId, ...settings } = FUNCTION_SETTINGS[handlerName];
      const fnProps: RuntimeFunctionProps = {
        handlerName,
        ...settings,
        logRemovalPolicy: removalPolicy,
        environment: { ...settings.environment, [ENV.tableName]: this.table.tableName },
        // Turn bundles only the deployment's model provider (shared/runtime/aws/model.ts).
        ...(handlerName === 'turn'
          ? { bundledEnvironment: { [ENV.modelProvider]: this.modelProvider } }
          : {}),
        ...(approverHandlers.includes(handlerName)
          ? { bundledConstants: approverConstants(this.approvalNotices) }
          : {}),
        ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
        ...(props.logLevel === undefined ? {} : { logLevel: props.logLevel }),
        metricsNamespace,
        ...(props.traceAwsCalls === undefined ? {} : { traceAwsCalls: props.traceAwsCalls }),
      };
      const fn = new RuntimeFunction(functionScope, fnId, fnProps);
      this.grantTableAccess(fn, handlerName);
      return fn;
    };
    const fns = {
      turn: make('turn'),
      'request-approval': make('request-approval'),
      expire: make('expire'),
      deliver: make('deliver'),
      'mark-failed': make('mark-failed'),
      'approval-http': make('approval-http'),
      api: make('api'),
      'workflow-write': make('workflow-write'),
      'start-run': make('start-run'),
      'jobs-sweep': make('jobs-sweep'),
      mcp: make('mcp'),
      'graph-advance': make('graph-advance'),
      'graph-service': make('graph-service'),
      'graph-wait': make('graph-wait'),
      'human-task': make('human-task'),
      external: make('external'),
    } satisfies Record<HandlerName, RuntimeFunction>;
    this.functions = fns;

    this.runStateMachine = new RunStateMachine(this, 'RunStateMachine', {
      handlers: {
        turn: fns.turn.function,
        requestApproval: fns['request-approval'].function,
        expire: fns.expire.function,
        deliver: fns.deliver.function,
        markFailed: fns['mark-failed'].function,
      },
      // A task outlives its function by a minute, so the Lambda timeout (a clear error) always fires first.
      taskTimeouts: {
        turn: taskTimeoutFor('turn'),
        expire: taskTimeoutFor('expire'),
        deliver: taskTimeoutFor('deliver'),
        markFailed: taskTimeoutFor('mark-failed'),
      },
      logRemovalPolicy: removalPolicy,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.graphStateMachine = new GraphStateMachine(this, 'GraphStateMachine', {
      handlers: {
        advance: fns['graph-advance'].function,
        service: fns['graph-service'].function,
        wait: fns['graph-wait'].function,
        humanTask: fns['human-task'].function,
        requestApproval: fns['request-approval'].function,
        expire: fns.expire.function,
        deliver: fns.deliver.function,
        markFailed: fns['mark-failed'].function,
      },
      taskTimeouts: {
        advance: taskTimeoutFor('graph-advance'),
        service: taskTimeoutFor('graph-service'),
        expire: taskTimeoutFor('expire'),
        deliver: taskTimeoutFor('deliver'),
        markFailed: taskTimeoutFor('mark-failed'),
      },
      logRemovalPolicy: removalPolicy,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.externalStateMachine = new ExternalStateMachine(this, 'ExternalStateMachine', {
      handlers: {
        external: fns.external.function,
        deliver: fns.deliver.function,
        markFailed: fns['mark-failed'].function,
      },
      taskTimeouts: {
        external: taskTimeoutFor('external'),
        deliver: taskTimeoutFor('deliver'),
        markFailed: taskTimeoutFor('mark-failed'),
      },
      logRemovalPolicy: removalPolicy,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    this.api = new RuntimeApi(this, 'Api', {
      apiFunction: fns.api.function,
      workflowWriteFunction: fns['workflow-write'].function,
      mcpFunction: fns.mcp.function,
      approvalFunction: fns['approval-http'].function,
      ...(props.apiAuth === undefined ? {} : { auth: props.apiAuth }),
      ...(props.apiThrottle === undefined ? {} : { throttle: props.apiThrottle }),
      accessLogRemovalPolicy: removalPolicy,
      ...(props.logRetention === undefined ? {} : { accessLogRetention: props.logRetention }),
    });
    this.triggers = new Triggers(this, 'Triggers', {
      startRunFunction: fns['start-run'].function,
      ...(props.eventBusName === undefined ? {} : { eventBusName: props.eventBusName }),
    });
    this.signingKey = new ApprovalSigningKey(this, 'ApprovalSigningKey');
    this.ownerNotices = new OwnerNotices(this, 'OwnerNotices', {
      ...(props.ownerNotices === undefined ? {} : { owners: props.ownerNotices }),
    });
    this.approvalBaseUrl = props.approvalBaseUrl?.replace(/\/+$/, '') ?? `${this.api.endpoint}/approvals`;
    // Environment sizes and filter policies a deploy would be refused for, refused at synth (deploy-limits.ts).
    this.node.addValidation(new DeployLimits(this));
    this.node.addValidation(
      new ApproversBundled(
        this.approvalNotices,
        APPROVER_HANDLERS.map((handler) => fns[handler]),
      ),
    );

    const stateMachineArn = this.runStateMachine.stateMachine.stateMachineArn;

    // turn: the model, the workflows' credentials; the approval URL is also the runtime's own host, which the
    // egress guard of turn and deliver must never reach.
    // Every function that gates or shows actions (turn, deliver, the approval pages) applies the same policy.
    const internalHosts = (props.internalHosts ?? []).join(',');
    for (const fn of [fns.turn, fns.deliver, fns['approval-http']])
      fn.addEnvironment(ENV.internalHosts, internalHosts);
    fns.turn
      .addEnvironment(ENV.credentialSecretPrefix, credentialPrefix)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);
    this.credentialReader = new CredentialReader(this, 'CredentialReader', {
      namePrefix: credentialPrefix,
      readers: [fns.turn.role, fns.deliver.role, fns['graph-service'].role, fns.external.role],
    });
    fns.turn.addEnvironment(ENV.credentialRoleArn, this.credentialReader.role.roleArn);
    this.anthropicApiKeySecret = this.configureModel(fns.turn, props);

    // request-approval: signed links out through the topic; answers the wait at once when nothing is pending.
    fns['request-approval']
      .addEnvironment(ENV.signingSecretArn, this.signingKey.secretArn)
      .addEnvironment(ENV.approvalTopicArn, this.approvalNotices.topicArn)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);
    this.signingKey.grantRead(fns['request-approval']);
    this.approvalNotices.grantPublish(fns['request-approval']);
    this.runStateMachine.grantTaskResponseToTaskFunction(
      'RequestApprovalTaskResponse',
      fns['request-approval'].role,
    );

    // The handlers that end runs (and request-approval, for undeliverable approvals) tell the owner, with a
    // link to the run in the API. The external function ends external runs `failed` or `denied` in its own
    // steps (their executions stop without MarkExternalFailed), so it tells their owners too.
    for (const fn of [fns['mark-failed'], fns.deliver, fns.expire, fns['request-approval'], fns.external]) {
      fn.addEnvironment(ENV.ownerTopicArn, this.ownerNotices.topicArn).addEnvironment(
        ENV.apiUrl,
        this.api.endpoint,
      );
      this.ownerNotices.grantPublish(fn);
    }

    // workflow-write and api refuse workflows (and delegation grants) naming an approver the approval topic does
    // not reach for the owner: the declarations are in their bundles (approver-bundling.ts).

    // deliver: HTTP destinations may use credentials; alerts go to the alert topic.
    fns.deliver
      .addEnvironment(ENV.credentialSecretPrefix, credentialPrefix)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl)
      .addEnvironment(ENV.credentialRoleArn, this.credentialReader.role.roleArn);
    if (props.alertTopic !== undefined) {
      fns.deliver.addEnvironment(ENV.alertTopicArn, props.alertTopic.topicArn);
      props.alertTopic.grantPublish(fns.deliver);
    }
    // Topics a workflow may name in destination.topicArn: Deliver may publish there, the API checks the name;
    // both check a topic declared for some owners against the run's or the caller's owner.
    const {
      topics: alertTopics,
      ownersJson: alertTopicOwners,
      shared: sharedAlertTopics,
    } = resolveAlertTopics(this, props.alertTopics ?? [], props.alertTopic);
    // A subscription in this app that would receive several owners' reports is refused at synth.
    this.node.addValidation(new AlertSubscriptionCheck(this, sharedAlertTopics));
    if (alertTopics.length > 0) {
      const arns = alertTopics.map((topic) => topic.topicArn).join(',');
      fns.deliver.addEnvironment(ENV.alertTopicArns, arns);
      for (const topic of alertTopics) topic.grantPublish(fns.deliver);
    }
    for (const fn of [fns.deliver, fns['workflow-write']])
      if (alertTopicOwners !== undefined) fn.addEnvironment(ENV.alertTopicOwners, alertTopicOwners);

    // approval-http: verifies links, resumes the waiting execution.
    fns['approval-http']
      .addEnvironment(ENV.signingSecretArn, this.signingKey.secretArn)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);
    this.signingKey.grantRead(fns['approval-http']);
    this.runStateMachine.grantTaskResponse(fns['approval-http']);

    // api: starts and cancels runs, manages schedules and event rules.
    fns.api
      .addEnvironment(ENV.stateMachineArn, stateMachineArn)
      .addEnvironment(ENV.credentialSecretPrefix, credentialPrefix)
      .addEnvironment(ENV.apiAuth, this.api.auth.kind);
    for (const [key, value] of Object.entries(this.triggers.environment()))
      fns.api.addEnvironment(key, value);
    this.runStateMachine.grantStartExecution(fns.api);
    this.runStateMachine.grantStopExecution(fns.api);
    this.triggers.grantManageSchedules(fns.api);
    this.triggers.grantManageRules(fns.api);
    this.triggers.grantPutEvents(fns.api);
    this.grantWorkflowWrites(fns['workflow-write'], credentialPrefix, [props.alertTopic, ...alertTopics]);

    // start-run: starts runs for schedules and events.
    fns['start-run'].addEnvironment(ENV.stateMachineArn, stateMachineArn);
    this.runStateMachine.grantStartExecution(fns['start-run']);

    // jobs-sweep: every minute, and when a run execution ends, settles delegated jobs whose runs ended and
    // starts queued ones (docs/jobs.md).
    fns['jobs-sweep'].addEnvironment(ENV.stateMachineArn, stateMachineArn);
    this.runStateMachine.grantStartExecution(fns['jobs-sweep']);
    // A job cancelled while the sweep was starting it has its run cancelled by the sweep (shared/jobs/lifecycle.ts,
    // startJobRun → cancelRun), which stops the run's execution.
    this.runStateMachine.grantStopExecution(fns['jobs-sweep']);
    this.jobsSweep = new JobsSweep(this, 'JobsSweep', {
      sweepFunction: fns['jobs-sweep'].function,
      runStateMachine: this.runStateMachine.stateMachine,
    });

    // An execution that ended outside MarkFailed (throttled past its retries, stopped, timed out) ends its run.
    this.executionEnded = new ExecutionEnded(this, 'ExecutionEnded', {
      runMachines: [this.runStateMachine.stateMachine, this.graphStateMachine.stateMachine],
      markFailed: fns['mark-failed'].function,
      externalMachine: this.externalStateMachine.stateMachine,
      external: fns.external.function,
    });

    // mcp: the job operations as MCP tools (docs/jobs.md): submits start runs, cancels stop them.
    fns.mcp
      .addEnvironment(ENV.stateMachineArn, stateMachineArn)
      .addEnvironment(ENV.apiAuth, this.api.auth.kind);
    this.runStateMachine.grantStartExecution(fns.mcp);
    this.runStateMachine.grantStopExecution(fns.mcp);
    // Graph runs: the api and start-run start them (and the api pauses, resumes, retries and cancels them);
    // a service step acts with the workflow's credentials; graph-wait starts child agent runs on the run
    // machine; a child run's end (deliver, mark-failed) and the api's cancel answer the graph's waits.
    const graphArn = this.graphStateMachine.stateMachine.stateMachineArn;
    for (const fn of [fns.api, fns['start-run']]) {
      fn.addEnvironment(ENV.graphStateMachineArn, graphArn);
      this.graphStateMachine.grantStartExecution(fn);
    }
    this.graphStateMachine.grantStopExecution(fns.api);
    fns['graph-service']
      .addEnvironment(ENV.internalHosts, internalHosts)
      .addEnvironment(ENV.credentialSecretPrefix, credentialPrefix)
      .addEnvironment(ENV.credentialRoleArn, this.credentialReader.role.roleArn)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);
    fns['graph-wait'].addEnvironment(ENV.stateMachineArn, stateMachineArn);
    this.runStateMachine.grantStartExecution(fns['graph-wait']);
    // Gated service steps (docs/graph-workflows.md): the approval pages answer a step's approval wait, and
    // request-approval answers it at once when nothing is pending (a task of this machine: its own policy).
    this.graphStateMachine.grantTaskResponse(fns['approval-http']);
    this.graphStateMachine.grantTaskResponseToTaskFunctions('StepApprovalTaskResponse', [
      fns['request-approval'].role,
    ]);
    // An external_task's child run starts on the external machine; the external function ends it and answers
    // the step's wait (as deliver and mark-failed do for every child run). states:StartExecution is authorized
    // on the stateMachine resource, SendTaskSuccess on the waiting execution's state machine
    // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html); both are
    // checked offline by test/iam/recorded-calls.test.ts.
    fns['graph-wait'].addEnvironment(
      ENV.externalStateMachineArn,
      this.externalStateMachine.stateMachine.stateMachineArn,
    );
    this.externalStateMachine.grantStartExecution(fns['graph-wait']);
    this.graphStateMachine.grantTaskResponseToTaskFunctions('ChildRunEndTaskResponse', [
      fns.deliver.role,
      fns['mark-failed'].role,
      fns.external.role,
    ]);
    // A failed graph run's agent children, those of its open steps and of agent steps whose wait gave up on them,
    // are stopped by mark-failed (a task of the run machine: its own policy; shared/graph-run/end-children.ts).
    // graph-advance only records the step's failure: ending a run needs writes, anchors and a signer it lacks.
    this.runStateMachine.grantStopExecutionToTaskFunction('ChildRunStop', fns['mark-failed'].role);
    this.grantHumanTasks(fns);

    // External runs: the api and start-run start them on the external machine; the external function calls
    // the engines (the workflow's credential from the owner's secrets, through the egress guard) and ends runs
    // (it anchors their audit heads). The deployment's engines go to workflow-write (save-time check) and to it.
    const externalArn = this.externalStateMachine.stateMachine.stateMachineArn;
    for (const fn of [fns.api, fns['start-run']]) {
      fn.addEnvironment(ENV.externalStateMachineArn, externalArn);
      this.externalStateMachine.grantStartExecution(fn);
    }
    // An API start without an Idempotency-Key whose StartExecution may have happened (a throttle, a timeout)
    // asks whether it did before ending the run (shared/runs/start-run.ts): DescribeExecution, authorized on the
    // execution (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html),
    // on the executions of the three machines the api starts, and no other (test/iam/start-describe.test.ts).
    for (const machine of [
      this.runStateMachine.stateMachine,
      this.graphStateMachine.stateMachine,
      this.externalStateMachine.stateMachine,
    ])
      acknowledgeGrantWildcards(
        fns.api,
        machine.grantExecution(fns.api, 'states:DescribeExecution'),
        "An API start asks whether its run's execution exists after an uncertain StartExecution; the execution's name is the run id, known only at run time; scoped to executions of this state machine.",
      );
    // The jobs sweep asks the same of API, schedule and event starts left pending (shared/runs/pending-sweep.ts),
    // for runs of all three machines: the execution ARN comes from each machine's ARN
    // (test/iam/pending-sweep-grants.test.ts).
    fns['jobs-sweep']
      .addEnvironment(ENV.graphStateMachineArn, graphArn)
      .addEnvironment(ENV.externalStateMachineArn, externalArn);
    for (const machine of [
      this.runStateMachine.stateMachine,
      this.graphStateMachine.stateMachine,
      this.externalStateMachine.stateMachine,
    ])
      acknowledgeGrantWildcards(
        fns['jobs-sweep'],
        machine.grantExecution(fns['jobs-sweep'], 'states:DescribeExecution'),
        "The jobs sweep asks whether a pending run's execution exists (an API, schedule or event start); the execution's name is the run id, known only at run time; scoped to executions of this state machine.",
      );
    const engines = JSON.stringify(externalEnginesOf(props));
    for (const fn of [fns['workflow-write'], fns.external]) fn.addEnvironment(ENV.externalEngines, engines);
    fns.external
      .addEnvironment(ENV.credentialSecretPrefix, credentialPrefix)
      .addEnvironment(ENV.credentialRoleArn, this.credentialReader.role.roleArn)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);

    // Audit: the functions that anchor runs (a cancel through the api or the jobs MCP server, the jobs sweep's
    // ends included) or change workflows sign the owner's chain heads; the api verifies.
    const auditSigners = [
      fns.api,
      fns['workflow-write'],
      fns.deliver,
      fns['mark-failed'],
      fns.external,
      fns.mcp,
      fns['jobs-sweep'],
    ];
    this.auditSigningKey = new AuditSigningKey(this, 'AuditSigningKey', {
      signers: auditSigners.map((fn) => fn.role),
      verifiers: [fns.api.role],
      removalPolicy,
    });
    for (const fn of auditSigners) fn.addEnvironment(ENV.auditSigningKeyArn, this.auditSigningKey.keyArn);

    this.observability = new Observability(this, 'Observability', {
      stateMachine: this.runStateMachine.stateMachine,
      otherStateMachines: {
        Graph: this.graphStateMachine.stateMachine,
        External: this.externalStateMachine.stateMachine,
      },
      turnFunction: fns.turn.function,
      approvalFunction: fns['approval-http'].function,
      functions: Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, fn.function])),
      httpApi: this.api.httpApi,
      triggerDeadLetterQueue: this.triggers.deadLetters.queue,
      executionEndedDeadLetterQueue: this.executionEnded.deadLetters.queue,
      ...(props.alarmTopic === undefined ? {} : { alarmTopic: props.alarmTopic }),
      metricsNamespace,
    });
  }

  /**
   * The table actions of TABLE_ACCESS: DeleteItem only in the function's DELETE_PARTITIONS, and its item writes
   * in its WRITE_PARTITIONS when it has them (a `dynamodb:LeadingKeys` condition each: RunTable.grantIn); the
   * rest table-wide.
   */
  private grantTableAccess(fn: RuntimeFunction, handlerName: HandlerName): void {
    const actions = TABLE_ACCESS[handlerName];
    const writes = WRITE_PARTITIONS[handlerName] ?? {};
    const scoped = new Map<string, readonly string[]>();
    for (const action of PARTITIONED_WRITES) {
      const partitions = writes[action];
      if (partitions === undefined) {
        if (WRITE_PARTITIONS[handlerName] !== undefined && actions.includes(action))
          throw new Error(
            `${handlerName} may send ${action} but its WRITE_PARTITIONS name no partition for it (table-access.ts)`,
          );
        continue;
      }
      if (!actions.includes(action))
        throw new Error(
          `WRITE_PARTITIONS scope ${action} of ${handlerName}, which TABLE_ACCESS does not give it (table-access.ts)`,
        );
      scoped.set(action, partitions);
    }
    if (actions.includes(DELETE_ACTION)) {
      const partitions = DELETE_PARTITIONS[handlerName];
      if (partitions === undefined)
        throw new Error(
          `${handlerName} may delete but DELETE_PARTITIONS names no partition for it (table-access.ts)`,
        );
      scoped.set(DELETE_ACTION, partitions);
    }
    this.table.grant(
      fn,
      actions.filter((action) => !scoped.has(action)),
    );
    // One statement per partition set: actions scoped alike share it.
    const byPartitions = new Map<string, string[]>();
    for (const [action, partitions] of scoped) {
      const key = JSON.stringify(partitions);
      byPartitions.set(key, [...(byPartitions.get(key) ?? []), action]);
    }
    for (const [key, grouped] of byPartitions) this.table.grantIn(fn, grouped, JSON.parse(key) as string[]);
  }

  /**
   * Human tasks of graph runs (docs/graph-workflows.md, "Human tasks on AWS"), the same service as the local
   * stack's: the human-task function (the graph machine's `HumanTask` state) opens the task and sends each
   * assignee a signed link through the approval topic, approval-http serves the form and answers the wait, the
   * api closes a cancelled run's tasks, graph-advance records a timed-out task expired (table only).
   * graph-wait (child runs, AwaitResume) holds neither the signing key nor the topic (docs/security.md,
   * "Human tasks: who holds the signing key").
   */
  private grantHumanTasks(fns: Record<HandlerName, RuntimeFunction>): void {
    const humanTask = fns['human-task'];
    humanTask
      .addEnvironment(ENV.signingSecretArn, this.signingKey.secretArn)
      .addEnvironment(ENV.approvalTopicArn, this.approvalNotices.topicArn)
      .addEnvironment(ENV.approvalBaseUrl, this.approvalBaseUrl);
    // secretsmanager:GetSecretValue on the keyring: links and form nonces are signed with it
    // (https://docs.aws.amazon.com/secretsmanager/latest/userguide/auth-and-access_iam-policies.html).
    this.signingKey.grantRead(humanTask);
    // sns:Publish on the approval topic (and its key through SNS): assignees are reached only through its
    // filtered subscriptions (https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-use-cases.html,
    // https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).
    this.approvalNotices.grantPublish(humanTask);
    // SendTaskSuccess (a task already submitted) and SendTaskFailure (a task no assignee can be sent, or already
    // expired or closed) on the machine whose wait the function is: a policy of its own, as the machine
    // depends on the function
    // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html).
    this.graphStateMachine.grantTaskResponseToTaskFunctions(
      'HumanTaskTaskResponse',
      [humanTask.role],
      ['states:SendTaskSuccess', 'states:SendTaskFailure'],
    );
    // graph-wait answers its own waits with SendTaskSuccess only: a child run that had already ended, a
    // resume that came first.
    this.graphStateMachine.grantTaskResponseToTaskFunctions('GraphWaitTaskResponse', [
      fns['graph-wait'].role,
    ]);
    // approval-http already reads the keyring for the approval pages; a submitted form answers the graph's wait.
    this.graphStateMachine.grantTaskResponse(fns['approval-http']);
    // The api's cancel closes the run's open human tasks, failing their waits with HumanTask.Closed.
    this.graphStateMachine.grantTaskResponse(fns.api, ['states:SendTaskSuccess', 'states:SendTaskFailure']);
  }

  /**
   * The WorkflowWrite function (docs/deploy.md, "Workflow writes"): creates workflows and saves, replaces and
   * publishes versions, which may create, change or delete the workflow's schedule or event rule. Nothing
   * else: it starts no runs, answers no waits and puts no events.
   */
  private grantWorkflowWrites(
    fn: RuntimeFunction,
    credentialPrefix: string,
    [alertTopic, ...alertTopics]: readonly (sns.ITopic | undefined)[],
  ): void {
    // The save-time checks: the owner's credential namespace, the alert topics a destination may name (the
    // default and the declared ones; names only, no publish), the engines (set with the external function's),
    // the approvers (set above).
    fn.addEnvironment(ENV.credentialSecretPrefix, credentialPrefix).addEnvironment(
      ENV.apiAuth,
      this.api.auth.kind,
    );
    if (alertTopic !== undefined) fn.addEnvironment(ENV.alertTopicArn, alertTopic.topicArn);
    const declared = alertTopics.flatMap((topic) => (topic ? [topic.topicArn] : []));
    if (declared.length > 0) fn.addEnvironment(ENV.alertTopicArns, declared.join(','));
    for (const [key, value] of Object.entries(this.triggers.environment())) fn.addEnvironment(key, value);
    // scheduler:Create/Update/DeleteSchedule in the group with iam:PassRole of the Scheduler role only, and
    // events:PutRule/PutTargets/DeleteRule/RemoveTargets on the prefixed rules: the grants and their citations
    // are in triggers.ts, shared with the api function (enable, disable, delete sync the same triggers).
    this.triggers.grantManageSchedules(fn);
    this.triggers.grantManageRules(fn);
  }

  /** The API's base URL (no trailing slash). */
  public get apiUrl(): string {
    return this.api.endpoint;
  }

  private configureModel(
    turn: RuntimeFunction,
    props: WorkflowRuntimeProps,
  ): secretsmanager.Secret | secretsmanager.ISecret | undefined {
    if (this.modelProvider === 'bedrock') {
      const stack = Stack.of(this);
      // An inference profile needs InvokeModel* on the profile ARN (in this account) AND on the foundation
      // model in every destination region; the region wildcard also matches the empty region of global
      // profiles' model ARNs (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html,
      // https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html).
      const resources = props.bedrockModelArns ?? [
        `arn:${stack.partition}:bedrock:*::foundation-model/anthropic.*`,
        `arn:${stack.partition}:bedrock:*:${stack.account}:inference-profile/*.anthropic.*`,
      ];
      const grant = iam.Grant.addToPrincipal({
        grantee: turn,
        actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
        resourceArns: [...resources],
      });
      acknowledgeGrantWildcards(
        turn,
        grant,
        'Workflows choose among Anthropic models on Bedrock (by model id or cross-region inference profile); ' +
          'access is limited to Anthropic models, not to all of Bedrock. Narrow it with bedrockModelArns.',
      );
      return undefined;
    }
    const secret =
      props.anthropicApiKeySecret ??
      new secretsmanager.Secret(this, 'AnthropicApiKey', {
        description: 'Anthropic API key (plain string). Put the real key after deploying: docs/deploy.md.',
        secretStringValue: SecretValue.unsafePlainText(ANTHROPIC_API_KEY_PLACEHOLDER),
      });
    if (props.anthropicApiKeySecret === undefined) {
      acknowledge(secret, 'AwsSolutions-SMG4', {
        reason:
          'An Anthropic API key is issued by Anthropic, not generated by Secrets Manager: rotate it in the Anthropic ' +
          'console and put the new value (docs/deploy.md).',
      });
    }
    turn.addEnvironment(ENV.anthropicSecretArn, secret.secretArn);
    grantSecretValue(secret, turn);
    return secret;
  }
}
