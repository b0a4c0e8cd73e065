/**
 * An execution that ended outside MarkFailed. Every route of the state machines that ends a run passes through
 * a task that records it (Deliver, MarkFailed …), but an execution can also end without one: MarkFailed itself
 * throttled or failing past its retries, an operator's StopExecution, the execution's own timeout, or its
 * 25,000-event history limit. Step Functions then sends an "Execution Status Change" event with status FAILED,
 * ABORTED or TIMED_OUT to the default bus (best effort;
 * https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html,
 * https://docs.aws.amazon.com/step-functions/latest/dg/cw-events.html). Its `detail` holds `executionArn`,
 * `stateMachineArn`, `name`, `status` and `input` (the execution input as a JSON string: a run pointer).
 *
 * `endRunOfEndedExecution` ends that run `failed` (the error names the execution's status) when the run is
 * still open and the execution is the run's current one; a late event for an execution the run left behind (a
 * reopened graph run's old one) or for a run that already ended changes nothing. The write is the fenced
 * commit of `endRun`, which checks the current execution against the very revision it commits.
 */
import { endRun } from '../core/end-run.ts';
import type { Clock } from '../core/ports.ts';
import type { RunStore } from '../core/store-port.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { GENERATED_RUN_ID } from '../schemas/run-id.ts';
import * as z from '../zod.ts';
import { currentExecutionName } from './execution-arn.ts';

/** The statuses of an execution that ended without its run's own ending (SUCCEEDED always passed one). */
export const UNHANDLED_END_STATUSES = ['FAILED', 'ABORTED', 'TIMED_OUT'] as const;

const EndedExecutionEventSchema = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal('Step Functions Execution Status Change'),
  detail: z.object({
    executionArn: z.string().check(z.minLength(1), z.maxLength(2048)),
    stateMachineArn: z.string().check(z.minLength(1), z.maxLength(2048)),
    name: z.string().check(z.minLength(1), z.maxLength(80)),
    status: z.enum(UNHANDLED_END_STATUSES),
    input: z.string().check(z.maxLength(262_144)),
  }),
});

export type EndedExecution = {
  runId: string;
  status: (typeof UNHANDLED_END_STATUSES)[number];
  executionArn: string;
  stateMachineArn: string;
  name: string;
};

/** The ended execution an EventBridge event reports, or undefined for any other event. */
export function endedExecutionOf(event: unknown): EndedExecution | undefined {
  const parsed = EndedExecutionEventSchema.safeParse(event);
  if (!parsed.success) return undefined;
  const { detail } = parsed.data;
  let input: unknown;
  try {
    input = JSON.parse(detail.input);
  } catch {
    return undefined;
  }
  const runId = (input as { runId?: unknown } | null)?.runId;
  if (typeof runId !== 'string' || !GENERATED_RUN_ID.test(runId)) return undefined;
  const { executionArn, stateMachineArn, name, status } = detail;
  return { runId, status, executionArn, stateMachineArn, name };
}

/** The ARN execution `name` of `stateMachineArn` has (API_StartExecution: `…:execution:<machine>:<name>`). */
const executionArnOf = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/**
 * Whether `ended` is the run's current execution: the continuation it recorded (`continuedAs`), else the one it
 * recorded by its ARN (a resumed or reopened run), else its first one (named after the run, start-run.ts), or a
 * continue-as-new of it (one its first turn has not recorded yet) (`<runId>-c…`, named by the
 * run machine's ContinueAsNew: infra/constructs/run-state-machine.ts, CONTINUATION_NAME). A continuation's
 * predecessor ends SUCCEEDED, so a FAILED / ABORTED / TIMED_OUT one is the live end of the chain.
 */
export function isCurrentExecution(run: Run, ended: EndedExecution): boolean {
  if (ended.runId !== run.runId) return false;
  if (run.kind !== 'graph' && run.kind !== 'external' && ended.name.startsWith(`${run.runId}-c`)) return true;
  const derived = executionArnOf(ended.stateMachineArn, currentExecutionName(run));
  const current = run.continuedAs === undefined ? (run.executionArn ?? derived) : derived;
  return current === ended.executionArn;
}

const ERROR_NAMES: Record<EndedExecution['status'], string> = {
  FAILED: 'ExecutionFailed',
  ABORTED: 'ExecutionAborted',
  TIMED_OUT: 'ExecutionTimedOut',
};

/** The run's error: the execution's status, and that the run was not ended by its own state machine. */
export const endedExecutionError = (ended: EndedExecution): { name: string; message: string } => ({
  name: ERROR_NAMES[ended.status],
  message: `the run's execution ${ended.name} ended ${ended.status} before the run was recorded as ended`,
});

/** The run whose current execution ended: ended by this call (`endedHere`), or ended before it. */
export type EndedExecutionRun = { run: Run; endedHere: boolean };

/**
 * Ends the run of `ended` as `failed` (stop reason `error`, audit `error` + `status_changed`) if it is still open
 * and `ended` is its current execution. Answers that run, `endedHere` true; a run of that execution that had
 * already ended, `endedHere` false (nothing written, but a cancelled run's missing anchor): its execution may
 * have ended before the task that answers a parent graph step did (a cancel's stop; Deliver or MarkFailed
 * failing for good after the turn ended the run). Undefined for another execution's event or an external run.
 */
export async function endRunOfEndedExecution(
  deps: { store: RunStore; clock: Clock },
  ended: EndedExecution,
): Promise<EndedExecutionRun | undefined> {
  const error = endedExecutionError(ended);
  let open = false;
  let current: Run | undefined;
  const run = await endRun(deps, {
    runId: ended.runId,
    status: 'failed',
    stopReason: 'error',
    error,
    why: `the run failed (${error.name})`,
    actor: 'system',
    audit: [{ type: 'error', actor: 'system', data: { ...error, executionArn: ended.executionArn } }],
    // Checked on the revision endRun commits against: a run that ended or moved to another execution is left.
    // A run cancelled while this execution ran is the exception: its cancel stopped it (this event), and
    // anchoring its head may have failed after the cancel committed (shared/runs/cancel-run.ts); endRun anchors
    // a run it finds ended, once per head (shared/store/anchors.ts), and writes nothing else.
    accept: (candidate) => {
      open = !isTerminalRunStatus(candidate.status);
      // An external run's engine must be asked to cancel first: its own handler ends it (AbandonExternal).
      current = candidate.kind !== 'external' && isCurrentExecution(candidate, ended) ? candidate : undefined;
      return (open || candidate.status === 'cancelled') && current !== undefined;
    },
  });
  if (run && open) return { run, endedHere: true };
  const before = run ?? current;
  return before && isTerminalRunStatus(before.status) ? { run: before, endedHere: false } : undefined;
}
