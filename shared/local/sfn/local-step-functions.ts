/**
 * An in-process stand-in for the Step Functions API subset the product uses, built on aws-local-stepfunctions:
 * the synthesized definition runs unchanged in meaning, its Task states calling the handler modules in process.
 */
import { randomUUID } from 'node:crypto';
import type { StateMachine } from 'aws-local-stepfunctions';
import type { Clock } from '../../core/ports.ts';
import { deferred } from './deferred.ts';
import { LOCAL_START_TIME, prepareDefinition, type TaskPlan } from './definition.ts';
import { LocalDefinitionError, LocalSfnClosedError, SfnApiError } from './errors.ts';
import {
  createMachine,
  describe,
  type ExecutionRecord,
  type Outcome,
  outcomeOf,
  stopped,
} from './execution-record.ts';
import { type EngineEvent, historyEventsOf, toLocalEvent, transitionsOf } from './history.ts';
import { RetryCounts } from './retry-counts.ts';
import {
  buildTaskOverrides,
  RETRY_COUNT_PLACEHOLDER,
  type StartRequest,
  TASK_TOKEN_PLACEHOLDER,
} from './tasks.ts';
import { TaskTokens, type WaitInfo } from './tokens.ts';
import type {
  ExecutionDescription,
  ExecutionStatus,
  ExecutionSummary,
  Handler,
  LocalSfnEvent,
  LocalStepFunctionsOptions,
} from './types.ts';
import { validateExecutionInput, validateExecutionName, validateTaskOutput } from './validation.ts';

const DEFAULT_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:local';
/** How long `close()` waits for task handlers still running before it returns anyway. */
const CLOSE_WAIT_MS = 15_000;
const systemClock: Clock = { nowMs: () => Date.now() };

/** Runs executions of one state machine in the background, with task tokens, as Step Functions would. */
export class LocalStepFunctions {
  readonly stateMachineArn: string;
  readonly #executionArnPrefix: string;
  readonly #machine: StateMachine;
  readonly #plans: ReadonlyMap<string, TaskPlan>;
  readonly #handlers: Readonly<Record<string, Handler>>;
  readonly #clock: Clock;
  readonly #retryIntervalOverrides: Record<string, number | number[]>;
  readonly #waitTimeOverrides: Record<string, number>;
  readonly #onEvent: ((event: LocalSfnEvent) => void) | undefined;
  readonly #tokens = new TaskTokens();
  readonly #executions = new Map<string, ExecutionRecord>();
  /** Task handlers still running: an aborted execution settles at once, its in-flight handler does not. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(options: LocalStepFunctionsOptions) {
    this.stateMachineArn = options.stateMachineArn ?? DEFAULT_STATE_MACHINE_ARN;
    if (!this.stateMachineArn.includes(':stateMachine:')) {
      throw new LocalDefinitionError(`stateMachineArn is not a state machine ARN: ${this.stateMachineArn}`);
    }
    this.#executionArnPrefix = this.stateMachineArn.replace(':stateMachine:', ':execution:');
    const prepared = prepareDefinition(
      options.definition,
      options.functionByState,
      Object.keys(options.handlers),
    );
    this.#machine = createMachine(prepared.definition);
    this.#plans = prepared.plans;
    this.#handlers = Object.fromEntries(
      Object.entries(options.handlers).map(([name, handler]) => [name, this.#tracked(handler)]),
    );
    this.#clock = options.clock ?? systemClock;
    this.#retryIntervalOverrides = { ...options.retryIntervalOverrides };
    this.#waitTimeOverrides = { ...options.waitTimeOverrides };
    this.#onEvent = options.onEvent;
  }

  /** StartExecution: same name + same input while running is idempotent; otherwise the name is taken. */
  async startExecution(request: {
    name?: string;
    input?: string;
  }): Promise<{ executionArn: string; startDate: Date }> {
    return this.#start({ stateMachineArn: this.stateMachineArn, ...request, input: request.input ?? '{}' });
  }

  /** DescribeExecution. */
  async describeExecution(executionArn: string): Promise<ExecutionDescription> {
    return describe(this.#get(executionArn));
  }

  /** StopExecution: the execution ends ABORTED; its open task tokens close (they answer TaskTimedOut). */
  async stopExecution(
    executionArn: string,
    options: { error?: string; cause?: string } = {},
  ): Promise<{ stopDate: Date }> {
    const record = this.#get(executionArn);
    if (record.status === 'RUNNING') {
      Object.assign(record, {
        status: 'ABORTED',
        stopDate: this.#now(),
        error: options.error,
        cause: options.cause,
      });
      record.abort?.();
      this.#tokens.closeExecution(executionArn, stopped());
      if (!record.abort) record.finish();
    }
    return { stopDate: record.stopDate ?? this.#now() };
  }

  /** SendTaskSuccess: `output` is a JSON string, the result of the waiting Task state. */
  /** True when this state machine minted the token (an endpoint serving several machines routes by it). */
  ownsToken(taskToken: string): boolean {
    return this.#tokens.mintedHere(taskToken);
  }

  /** True when the execution ARN is one of this state machine's. */
  ownsExecution(executionArn: string): boolean {
    return executionArn.startsWith(`${this.#executionArnPrefix}:`);
  }

  async sendTaskSuccess(taskToken: string, output: string): Promise<void> {
    this.#tokens.succeed(taskToken, validateTaskOutput(output));
  }

  /** SendTaskFailure: the waiting state fails with `error` (matched by Retry/Catch) and `cause`. */
  async sendTaskFailure(taskToken: string, error?: string, cause?: string): Promise<void> {
    this.#tokens.fail(taskToken, error, cause);
  }

  /** SendTaskHeartbeat. */
  async sendTaskHeartbeat(taskToken: string): Promise<void> {
    this.#tokens.heartbeat(taskToken);
  }

  /** ListExecutions, newest first. */
  async listExecutions(filter: { status?: ExecutionStatus } = {}): Promise<ExecutionSummary[]> {
    return [...this.#executions.values()]
      .filter((record) => filter.status === undefined || record.status === filter.status)
      .reverse()
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime())
      .map(({ executionArn, stateMachineArn, name, status, startDate, stopDate }) => ({
        executionArn,
        stateMachineArn,
        name,
        status,
        startDate,
        ...(stopDate ? { stopDate } : {}),
      }));
  }

  /** Test helper: resolves with the description once the execution has ended and its events were counted. */
  async waitForExecution(
    executionArn: string,
    options: { timeoutMs?: number } = {},
  ): Promise<ExecutionDescription> {
    const record = this.#get(executionArn);
    const timeoutMs = options.timeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${executionArn} still ${record.status} after ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([record.done, timeout]);
    } finally {
      clearTimeout(timer);
    }
    return describe(record);
  }

  /** State transitions so far (each state entered, each retry): what AWS bills. */
  stateTransitions(executionArn: string): number {
    return this.#get(executionArn).stateTransitions;
  }

  /** Approximate AWS history length so far (AWS stops an execution at 25,000 events). */
  historyEventCount(executionArn: string): number {
    return this.#get(executionArn).historyEvents;
  }

  /** Open callback waits, optionally of one execution (tokens included: for tests and local tooling). */
  openTaskTokens(executionArn?: string): WaitInfo[] {
    return this.#tokens.openWaits(executionArn);
  }

  /** Stops every running execution (ABORTED), closes all tokens, waits until they have wound down. */
  async close(): Promise<void> {
    this.#closed = true;
    const records = [...this.#executions.values()];
    for (const record of records) {
      await this.stopExecution(record.executionArn, {
        error: 'Local.Closed',
        cause: 'LocalStepFunctions closed',
      });
    }
    await Promise.all(records.map((record) => record.done));
    // A Lambda on AWS finishes its invocation even when its execution is stopped; here that invocation shares the
    // process with the store and the model server the caller closes next, so wait for it (its own failure was
    // already reported to the aborted execution, or is moot).
    // Bounded, so a handler that never returns cannot hold Ctrl-C (a Lambda's own timeout plays this part on AWS).
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.#inFlight]), bound]);
    clearTimeout(timer);
  }

  #tracked(handler: Handler): Handler {
    return (event) => {
      const invocation = handler(event);
      this.#inFlight.add(invocation);
      const forget = () => this.#inFlight.delete(invocation);
      invocation.then(forget, forget);
      return invocation;
    };
  }

  #start(request: StartRequest): { executionArn: string; startDate: Date } {
    if (this.#closed) throw new LocalSfnClosedError();
    if (request.stateMachineArn !== this.stateMachineArn) {
      throw new SfnApiError(
        'StateMachineDoesNotExist',
        `State Machine Does Not Exist: '${request.stateMachineArn}'`,
      );
    }
    const name = request.name ?? randomUUID();
    validateExecutionName(name);
    const input = validateExecutionInput(request.input);
    const executionArn = `${this.#executionArnPrefix}:${name}`;
    const existing = this.#executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === request.input) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new SfnApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`, {
        executionArn,
      });
    }
    const { promise: done, resolve: finish } = deferred<void>();
    const record: ExecutionRecord = {
      executionArn,
      stateMachineArn: this.stateMachineArn,
      name,
      status: 'RUNNING',
      startDate: this.#now(),
      input: request.input,
      stateTransitions: 0,
      historyEvents: 0,
      done,
      finish,
    };
    this.#executions.set(executionArn, record);
    // In the background, as on AWS: the first state must not run inside the caller's StartExecution.
    setImmediate(() => this.#run(record, input));
    return { executionArn, startDate: record.startDate };
  }

  #run(record: ExecutionRecord, input: Parameters<StateMachine['run']>[0]): void {
    if (record.status !== 'RUNNING') {
      record.finish();
      return;
    }
    const { executionArn } = record;
    const retries = new RetryCounts();
    const overrides = buildTaskOverrides(this.#plans, {
      executionArn,
      handlers: this.#handlers,
      tokens: this.#tokens,
      isStopped: () => record.status !== 'RUNNING',
      startExecution: (request) => this.#start(request),
      retryCount: (stateName) => retries.current(stateName),
    });
    const execution = this.#machine.run(input, {
      context: {
        // Never redriven: RedriveExecution is not emulated (README.md), so 0, as AWS reports before a redrive.
        // `$$.Execution.StartTime` selects the execution's startDate, as on AWS (definition.ts).
        Execution: {
          Id: executionArn,
          Name: record.name,
          RedriveCount: 0,
          [LOCAL_START_TIME]: record.startDate.toISOString(),
        },
        StateMachine: { Id: this.stateMachineArn, Name: this.stateMachineArn.split(':').at(-1) },
        State: { RetryCount: RETRY_COUNT_PLACEHOLDER },
        Task: { Token: TASK_TOKEN_PLACEHOLDER },
      },
      overrides: {
        taskResourceLocalHandlers: overrides,
        retryIntervalOverrides: this.#retryIntervalOverrides,
        waitTimeOverrides: this.#waitTimeOverrides,
      },
    });
    record.abort = execution.abort;
    const settled = execution.result.then(
      (output): Outcome => ({ status: 'SUCCEEDED', output: JSON.stringify(output) }),
      (error: unknown) => outcomeOf(error),
    );
    const recorded = settled.then((outcome) => {
      this.#tokens.closeExecution(executionArn, stopped());
      if (record.status === 'RUNNING') Object.assign(record, outcome, { stopDate: this.#now() });
    });
    const counted = this.#count(record, execution.eventLogs, retries);
    void Promise.all([recorded, counted]).finally(() => record.finish());
  }

  async #count(
    record: ExecutionRecord,
    events: AsyncGenerator<unknown>,
    retries: RetryCounts,
  ): Promise<void> {
    for await (const raw of events) {
      const event = raw as EngineEvent;
      retries.observe(event);
      record.stateTransitions += transitionsOf(event);
      record.historyEvents += historyEventsOf(event, this.#plans);
      try {
        this.#onEvent?.(toLocalEvent(record.executionArn, event, record.stateTransitions));
      } catch {
        // A progress display must not break the execution.
      }
    }
  }

  #get(executionArn: string): ExecutionRecord {
    const record = this.#executions.get(executionArn);
    if (!record)
      throw new SfnApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`, {
        executionArn,
      });
    return record;
  }

  #now(): Date {
    return new Date(this.#clock.nowMs());
  }
}
