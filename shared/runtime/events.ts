/** The payloads the state machine hands to the handlers (docs/state-machine.md): ids and counters only. */
import * as z from 'zod';
import { MAX_TOOL_USES_PER_MESSAGE } from '../core/transcript-limits.ts';
import { TaskTokenSchema } from '../schemas/common.ts';

export const TurnPointerSchema = z.object({
  runId: z.string().min(1),
  turn: z.number().int().nonnegative(),
  segmentStartTurn: z.number().int().nonnegative().default(0),
  /** Which attempt of the Turn state this is, from the context object (shared/core/attempt.ts). */
  attempt: z
    .object({
      retryCount: z.number().int().nonnegative(),
      redriveCount: z.number().int().nonnegative(),
      executionId: z.string().min(1),
    })
    .optional(),
});

export const RequestApprovalEventSchema = z.object({
  runId: z.string().min(1),
  turn: z.number().int().nonnegative(),
  taskToken: TaskTokenSchema,
  approvalTimeoutSeconds: z.number().optional(),
  /** A graph service step's wait: the one approval it waits on (its wait is its own). */
  approvalId: z.string().min(1).max(64).optional(),
  /**
   * The Turn's outcome that routed here (the whole state, `$`: present whatever release wrote it). Its
   * `approvalIds` say which approvals to read with the run; a state from an earlier release has none, and
   * the run is read first to learn them.
   */
  turnOutcome: z
    .object({
      approvalIds: z.array(z.string().min(1).max(64)).max(MAX_TOOL_USES_PER_MESSAGE).optional(),
    })
    .optional(),
});

/** MarkFailed gets the whole state: the pointer, and `error` when a Catch routed here. */
export const MarkFailedEventSchema = z.object({
  runId: z.string().min(1),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
  stopReason: z.string().optional(),
});
