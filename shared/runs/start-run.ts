/**
 * Starting a run, for every trigger: create it idempotently (schedule time / event id / Idempotency-Key),
 * then start its execution with the run pointer only. A repeated trigger returns the existing run, but for a
 * schedule's or an event's whose run ended without ever starting: that one gets a new run (startRun).
 */

import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { cutText } from '../core/byte-caps.ts';
import { isoAt } from '../core/engine.ts';
import { type FirstTurnPlanning, reserveFirstTurn } from '../core/first-reservation.ts';
import { prepareRun } from '../core/new-run.ts';
import type { Clock, Ids } from '../core/ports.ts';
import { releasePart } from '../core/reservation-parts.ts';
import { RunHandle } from '../core/run-handle.ts';
import { RunConflictError } from '../core/store-errors.ts';
import { storedError } from '../core/stored-error.ts';
import { externalPayloadFor, MAX_EXTERNAL_PAYLOAD_BYTES } from '../external/run/key.ts';
import { kindOf } from '../schemas/any-workflow.ts';
import type { Run, TriggerProvenance } from '../schemas/run.ts';
import { isAgentVersion } from '../schemas/workflow-record.ts';
import type { DynamoStore, Idempotency, NewRun } from '../store/index.ts';
import { CANCEL_ANCHOR_ATTEMPTS } from './cancel-run.ts';
import { firstTurnPlanning } from './first-turn.ts';
import {
  ExecutionNotStartedError,
  type ExecutionsPort,
  type RunExecutionInput,
  RunNotStartedError,
  RunStartPendingError,
} from './ports.ts';

/** Idempotency markers of API starts are kept for a week; a key reused after that starts a new run. */
export const IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 3600;

/**
 * A schedule's or an event's marker (scheduled time, event id) outlives the trigger dead-letter queue's
 * retention, 14 days (infra/constructs/trigger-dead-letters.ts): a trigger redriven from the queue on its last
 * day still finds the run it started, if it did, and never starts a second one; a run that ended without ever
 * starting is replaced by a new one, which takes the marker over (docs/event-triggers.md).
 */
export const TRIGGER_IDEMPOTENCY_TTL_SECONDS = 15 * 24 * 3600;

/** How long a start's idempotency marker holds, by what started it. */
export const idempotencyTtlSeconds = (trigger: TriggerProvenance): number =>
  trigger.type === 'schedule' || trigger.type === 'event'
    ? TRIGGER_IDEMPOTENCY_TTL_SECONDS
    : IDEMPOTENCY_TTL_SECONDS;

export type StartRunDeps = {
  store: DynamoStore;
  executions: ExecutionsPort;
  clock: Clock;
  ids: Ids;
  /** What turn 0's reservation is estimated from (first-turn.ts); default: the engine's defaults. */
  firstTurn?: FirstTurnPlanning;
};

/** The run's input is more than its workflow's kind can store (an external run's payload carries it). */
export class RunInputTooLargeError extends Error {
  readonly bytes: number;
  readonly limit: number;
  constructor(bytes: number, limit: number) {
    super(
      `is ${bytes} bytes in the external engine's payload (as UTF-8 JSON, with the workflow's payload); an external run's payload is at most ${limit}`,
    );
    this.name = 'RunInputTooLargeError';
    this.bytes = bytes;
    this.limit = limit;
  }
}

export class WorkflowNotRunnableError extends Error {
  readonly reason: 'not_found' | 'disabled' | 'not_runnable_kind' | 'mode_off';
  constructor(
    workflowId: string,
    reason: 'not_found' | 'disabled' | 'not_runnable_kind' | 'mode_off',
    detail?: string,
  ) {
    super(
      reason === 'not_found'
        ? `workflow ${workflowId} not found`
        : reason === 'disabled'
          ? `workflow ${workflowId} is disabled`
          : `workflow ${workflowId} cannot be run: ${detail}`,
    );
    this.name = 'WorkflowNotRunnableError';
    this.reason = reason;
  }
}

export type StartRunRequest = {
  owner: string;
  workflowId: string;
  trigger: TriggerProvenance;
  input?: unknown;
  /** Scope and key of the idempotency marker (e.g. `api` + Idempotency-Key, `event:<wf>` + event id). */
  idempotency?: { scope: string; key: string };
  actor: string;
};

/** The idempotency key scope for each trigger type. */
export function idempotencyFor(trigger: TriggerProvenance, workflowId: string, apiKey?: string) {
  if (trigger.type === 'schedule') return { scope: `schedule:${workflowId}`, key: trigger.scheduledTime };
  if (trigger.type === 'event') return { scope: `event:${workflowId}`, key: trigger.eventId };
  return apiKey ? { scope: `api:${workflowId}`, key: apiKey } : undefined;
}

export async function startRun(
  deps: StartRunDeps,
  request: StartRunRequest,
): Promise<{ run: Run; created: boolean }> {
  const head = await deps.store.getWorkflowHead(request.owner, request.workflowId);
  if (!head || head.deleted) throw new WorkflowNotRunnableError(request.workflowId, 'not_found');
  if (!head.enabled) throw new WorkflowNotRunnableError(request.workflowId, 'disabled');
  const version = await deps.store.getWorkflowVersion(request.owner, request.workflowId, head.latestVersion);
  if (!version) throw new WorkflowNotRunnableError(request.workflowId, 'not_found');
  // Each kind runs on its own executor; a kind without one here is refused before anything is written.
  const runnable =
    isAgentVersion(version) ||
    (version.definition.kind === 'graph' && !!deps.executions.graph) ||
    (version.definition.kind === 'external' && !!deps.executions.external);
  if (!runnable)
    throw new WorkflowNotRunnableError(
      request.workflowId,
      'not_runnable_kind',
      `this deployment has no executor for workflows of kind '${kindOf(version.definition)}' yet`,
    );
  // An external workflow in mode `off` is saved but not run (docs/external-engines.md, modes).
  if (version.definition.kind === 'external' && version.definition.mode === 'off')
    throw new WorkflowNotRunnableError(request.workflowId, 'mode_off', "its mode is 'off'");
  // An external run stores its payload (the workflow's payload with this input) on its run item, beside the input
  // and the result: refused here, before anything is written, rather than failing a commit once the engine ran.
  if (version.definition.kind === 'external') {
    const bytes = Buffer.byteLength(
      JSON.stringify(externalPayloadFor(version.definition, request.input)),
      'utf8',
    );
    if (bytes > MAX_EXTERNAL_PAYLOAD_BYTES)
      throw new RunInputTooLargeError(bytes, MAX_EXTERNAL_PAYLOAD_BYTES);
  }
  const prepare = (trigger: TriggerProvenance): NewRun => {
    const created = prepareRun({
      version,
      trigger,
      input: request.input,
      clock: deps.clock,
      ids: deps.ids,
      actor: request.actor,
    });
    // An agent run reserves its turn 0 with its creation (core/first-reservation.ts); other kinds have no turns.
    return isAgentVersion(version)
      ? reserveFirstTurn(created, version.definition, deps.firstTurn ?? firstTurnPlanning(), deps.clock)
      : created;
  };
  const idempotency: Idempotency | undefined = request.idempotency && {
    ...request.idempotency,
    requestHash: sha256Hex(
      canonicalJson({
        workflowId: request.workflowId,
        input: request.input ?? null,
        trigger: request.trigger.type,
      }),
    ),
    expiresAtEpoch: Math.floor(deps.clock.nowMs() / 1000) + idempotencyTtlSeconds(request.trigger),
  };
  const found = await launchRun(deps, prepare(request.trigger), idempotency);
  const { trigger } = request;
  if (trigger.type !== 'schedule' && trigger.type !== 'event') return found;
  if (found.created || !idempotency || !replaceable(request, found.run)) return found;
  // A trigger that comes again after its run ended without ever starting (a redrive from the dead-letter queue,
  // a late retry): a new run in its place, taking the marker over from the ended run in its creation's
  // transaction, conditional on the marker still naming that run (Idempotency.replaces), and linking the ended
  // run to it in the same transaction (`replacedBy`, conditional on no link yet: shared/store/runs.ts). Of two at
  // once, one creates; the other is answered the run that one created, and starts it if it is still pending, by
  // its name, as any retry does (launchRun).
  const replacesRunId = found.run.runId;
  return launchRun(deps, prepare({ ...trigger, replacesRunId }), {
    ...idempotency,
    replaces: replacesRunId,
  });
}

/**
 * Whether a schedule's or an event's trigger that found its run (by its idempotency marker) starts a new run in
 * its place: only when that run provably never ran. `failed` with `ExecutionNotStarted` is how a run ends once
 * no execution named after it existed (endUnstarted: the jobs sweep's DescribeExecution, or a refused start),
 * and it is terminal: no execution of it runs, its turn 0's reservation was given back, and the one way out of
 * `failed` (a graph step's retry) needs a step, which a run that never started has none of. An API start with
 * an Idempotency-Key is answered its run whatever its end: its caller reads the answer (docs/api.md).
 */
function replaceable(request: StartRunRequest, run: Run): boolean {
  return (
    (request.trigger.type === 'schedule' || request.trigger.type === 'event') &&
    run.trigger.type === request.trigger.type &&
    run.owner === request.owner &&
    run.workflowId === request.workflowId &&
    run.status === 'failed' &&
    run.error?.name === 'ExecutionNotStarted'
  );
}

/**
 * Creates a prepared run (once: a repeated idempotency marker returns the existing run) and starts its
 * execution with the run pointer only. Shared by every kind of trigger, delegated jobs included. The execution
 * is named after the run, so its ARN is known without being written (execution-arn.ts): nothing is written
 * after the start, and turn 0's first commit cannot lose a race to a write of the ARN.
 */
export async function launchRun(
  deps: StartRunDeps,
  prepared: NewRun,
  idempotency: Idempotency | undefined,
): Promise<{ run: Run; created: boolean }> {
  const { run, created } = await deps.store.createRun(prepared, idempotency);
  // A recorded ARN is the previous release's mark of a started run, and a run that left `pending` was moved
  // by its execution: nothing to start. A pending run found again by a retried trigger may never have been
  // started (its trigger failed in between): starting is idempotent by execution name, so it is started again,
  // the same execution if it runs (`ExecutionAlreadyExists`, answered with its ARN, if it ended).
  if (run.executionArn || run.status !== 'pending') return { run, created };
  // The executor by kind: a graph run on the graph state machine, an agent run on the run state machine.
  let executionArn: string;
  try {
    ({ executionArn } = await startExecutionFor(deps.executions, run));
  } catch (error) {
    // With a key (or found again), a retried trigger starts it; without one, nothing would: settled here.
    if (!created || idempotency) throw new RunStartPendingError(run.runId, true, { cause: error });
    ({ executionArn } = await settleFirstStart(deps, run, error));
  }
  // The ARN the port derives for the run's name is the one started: nothing to record.
  if (deps.executions.arnOf?.(run.kind, run.runId) === executionArn) return { run, created };
  try {
    const stored = await deps.store.commit({ run, next: { ...run, executionArn } });
    return { run: stored, created };
  } catch (error) {
    if (!(error instanceof RunConflictError)) throw error;
    // The first turn may already have moved the run: for an agent run the arn is a convenience. A graph
    // run's cancel stops its execution by this arn, so it is recorded on the fresh run (a conflicting
    // Advance reads the run again and decides the same).
    const fresh = (await deps.store.getRun(run.runId)) ?? run;
    return { run: run.kind === 'graph' ? await recordArn(deps, fresh, executionArn) : fresh, created };
  }
}

/** How many more times a first start that failed without a refusal is tried (StartExecution, by name). */
export const START_RETRIES = 2;

/**
 * A run this call created without an idempotency key whose first start failed: no trigger can find it to start
 * it again, so it is settled here. A start that may have happened (a throttle, a timeout, a 5xx) is tried again:
 * StartExecution of a Standard workflow is idempotent by name and input ("If StartExecution is called with the
 * same name and input as a running execution, the call succeeds and return the same response as the original
 * request", and a closed execution of that name answers ExecutionAlreadyExists, which the port takes as started:
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html). If no attempt
 * started it, DescribeExecution on the ARN it would have (ExecutionsPort.arnOf) says whether an earlier one did
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html: ExecutionDoesNotExist).
 * A run whose execution does not exist (a refusal: ExecutionNotStartedError, or the describe's answer) is
 * ended `failed` in one commit with turn 0's reservation given back, and RunNotStartedError names it. When
 * nothing can say (the describe failed too, or the port cannot describe) the run stays `pending`, its
 * reservation counted, and the start's error is thrown (docs/api.md, the remaining window).
 */
async function settleFirstStart(
  deps: StartRunDeps,
  run: Run,
  error: unknown,
): Promise<{ executionArn: string }> {
  let last = error;
  for (let retry = 1; retry <= START_RETRIES && !(last instanceof ExecutionNotStartedError); retry++) {
    try {
      return await startExecutionFor(deps.executions, run);
    } catch (again) {
      last = again;
    }
  }
  // Refused at the first attempt: no execution of that name exists (ExecutionsPort.start). After an uncertain
  // attempt, even a refusal is checked: the uncertain one may have started it.
  if (!(error instanceof ExecutionNotStartedError)) {
    const arn = deps.executions.arnOf?.(run.kind, run.runId);
    const exists =
      arn && deps.executions.exists ? await deps.executions.exists(arn).catch(() => undefined) : undefined;
    if (arn && exists === true) return { executionArn: arn };
    // Nothing can say: the run stays pending, for the jobs sweep to settle.
    if (exists !== false) throw new RunStartPendingError(run.runId, false, { cause: last });
  }
  if (!(await endUnstarted(deps, run, last))) throw last;
  throw new RunNotStartedError(run.runId, { cause: last });
}

/**
 * Ends a run whose first execution does not exist `failed` (stop reason `error`, the error naming the start's
 * failure), giving back turn 0's reservation in the same commit: no execution named after it exists, so nothing
 * can spend it. A conflict (the run moved: only its execution moves a pending run) leaves it as it is. The
 * final head is anchored, best effort: a failure leaves it for a later anchor of the owner's chain. Also used by
 * the pending-runs sweep (pending-sweep.ts) for a run whose execution it finds does not exist.
 */
export async function endUnstarted(
  deps: { store: Pick<DynamoStore, 'commit' | 'anchorRunHead'>; clock: Clock },
  run: Run,
  cause: unknown,
): Promise<boolean> {
  const held = run.reservation;
  const release =
    held?.ahead && 'executionName' in held.ahead && held.turn === run.turn
      ? releasePart(run, held, { unused: true, notStarted: true })
      : undefined;
  const reason = cause as { name?: unknown; message?: unknown } | undefined;
  // The start's error names are outside text too: the audit entry holds the error as the run stores it.
  const error = storedError({
    name: 'ExecutionNotStarted',
    message: `the run's execution could not be started: ${String(reason?.name ?? 'Error')}: ${cutText(String(reason?.message ?? cause), 500)}`,
  });
  const at = isoAt(deps.clock);
  let ended: Run;
  try {
    ended = await new RunHandle(run, deps).commit({
      ...(release ?? {}),
      next: (current) => ({
        ...(release?.next ? release.next(current) : current),
        status: 'failed',
        stopReason: 'error',
        error,
        endedAt: at,
        lastNext: 'failed',
      }),
      audit: [
        ...(release?.audit ?? []),
        { type: 'error', actor: 'system', data: error },
        {
          type: 'status_changed',
          actor: 'system',
          data: { from: run.status, to: 'failed', stopReason: 'error' },
        },
      ],
    });
  } catch (conflict) {
    if (conflict instanceof RunConflictError) return false;
    throw conflict;
  }
  await deps.store.anchorRunHead(ended, at, { maxAttempts: CANCEL_ANCHOR_ATTEMPTS }).catch(() => undefined);
  return true;
}

async function recordArn(deps: StartRunDeps, run: Run, executionArn: string): Promise<Run> {
  let current: Run | undefined = run;
  for (let attempt = 1; current && !current.executionArn; attempt++) {
    try {
      return await deps.store.commit({ run: current, next: { ...current, executionArn } });
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
      current = await deps.store.getRun(run.runId);
    }
  }
  return current ?? run;
}

/** Starts the run's first execution on the state machine of its kind. */
export function startExecutionFor(executions: ExecutionsPort, run: Run, name = run.runId) {
  if (run.kind === 'external') {
    if (!executions.external)
      throw new Error('external runs cannot start: no external state machine is configured');
    return executions.external.start(name, { runId: run.runId });
  }
  if (run.kind === 'graph') {
    if (!executions.graph) throw new Error('graph runs cannot start: no graph state machine is configured');
    return executions.graph.start(name, { runId: run.runId });
  }
  return executions.start(name, runExecutionInput(run));
}

/**
 * The input of an agent run's execution: the pointer at the run's turn, and where its workflow head is when
 * the run is at its start (turn 0, its first message only), so the first turn reads run, message and head in
 * one request (shared/store/turn-read.ts). Not for a delegated job's run, whose live policy is its grant,
 * not a head; nor for a run further on (a resume after a local restart), whose transcript a first-turn read
 * would not hold. Deterministic for the run, so a retried start sends the same input (idempotent by name and
 * input: https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html).
 */
export function runExecutionInput(
  run: Pick<Run, 'runId' | 'turn' | 'messageCount' | 'owner' | 'workflowId' | 'trigger'>,
): RunExecutionInput {
  const pointer = { runId: run.runId, turn: run.turn, segmentStartTurn: run.turn };
  const fresh = run.turn === 0 && run.messageCount === 1 && run.trigger.type !== 'job';
  return fresh ? { ...pointer, headHint: { owner: run.owner, workflowId: run.workflowId } } : pointer;
}
