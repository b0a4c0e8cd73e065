/** The payloads the state machine hands to the handlers (docs/state-machine.md): ids and counters only. */

import { MAX_TOOL_USES_PER_MESSAGE } from '../core/transcript-limits.ts';
import { WaitAttemptSchema } from '../graph-run/wait-fence.ts';
import { TaskTokenSchema } from '../schemas/common.ts';
import * as z from '../zod.ts';

export const TurnPointerSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  turn: z.number().check(z.int(), z.nonnegative()),
  segmentStartTurn: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /** Which attempt of the Turn state this is, from the context object (shared/core/attempt.ts). */
  attempt: z.optional(
    z.object({
      retryCount: z.number().check(z.int(), z.nonnegative()),
      redriveCount: z.number().check(z.int(), z.nonnegative()),
      executionId: z.string().check(z.minLength(1)),
    }),
  ),
});

/**
 * Where a run's workflow head is, in its first execution's input (shared/runs/start-run.ts): owner and workflow
 * ids, a read hint only (the run read decides whose head is used: shared/core/turn-context.ts).
 */
export const HeadHintSchema = z.object({
  owner: z.string().check(z.minLength(1), z.maxLength(256)),
  workflowId: z.string().check(z.minLength(1), z.maxLength(256)),
});

/**
 * What the previous turn's outcome names for this one to read (shared/core/outcome.ts `ReadHint`): its head's
 * owner and workflow, and how many messages the run held. A read hint only (the run read decides).
 */
export const ReadHintSchema = z.extend(HeadHintSchema, {
  messageCount: z.number().check(z.int(), z.nonnegative()),
});

/**
 * What `Turn` gets: the pointer, its attempt, the execution's input as it was started (`$$.Execution.Input`,
 * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html) for its `headHint`, and
 * the state the Turn state was entered with (`$`: the previous Turn's outcome, or the execution's input) for its
 * `readHint`. A hint that does not parse is dropped, not an error: the turn then reads as without it; so is a
 * state without one (the first turn of an execution, a resume, an execution of an earlier definition).
 */
export const TurnEventSchema = z.extend(TurnPointerSchema, {
  execution: z.catch(
    z.optional(z.object({ headHint: z.catch(z.optional(HeadHintSchema), undefined) })),
    undefined,
  ),
  state: z.catch(
    z.optional(z.object({ readHint: z.catch(z.optional(ReadHintSchema), undefined) })),
    undefined,
  ),
});

export const RequestApprovalEventSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  turn: z.number().check(z.int(), z.nonnegative()),
  taskToken: TaskTokenSchema,
  approvalTimeoutSeconds: z.optional(z.number()),
  /** A graph service step's wait: the one approval it waits on (its wait is its own). */
  approvalId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  /**
   * Which attempt of the wait this is, from the context object (`$$.State.RetryCount`,
   * `$$.Execution.RedriveCount`, `$$.Execution.StartTime`,
   * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html): the token is stored
   * only if no later attempt stored one (request-record.ts). Absent from executions of an earlier definition.
   */
  wait: z.optional(WaitAttemptSchema),
  /**
   * The Turn's outcome that routed here (the whole state, `$`: present whatever release wrote it). Its
   * `approvalIds` say which approvals to read with the run; a state from an earlier release has none, and
   * the run is read first to learn them.
   */
  turnOutcome: z.optional(
    z.object({
      approvalIds: z.optional(
        z
          .array(z.string().check(z.minLength(1), z.maxLength(64)))
          .check(z.maxLength(MAX_TOOL_USES_PER_MESSAGE)),
      ),
    }),
  ),
});

/** MarkFailed gets the whole state: the pointer, and `error` when a Catch routed here. */
export const MarkFailedEventSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
  stopReason: z.optional(z.string()),
});
