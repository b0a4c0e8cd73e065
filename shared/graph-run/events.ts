/** The payloads the graph state machine hands its Lambda tasks (docs/state-machine.md, "The graph machine"). */

import { TaskTokenSchema } from '../schemas/common.ts';
import * as z from '../zod.ts';
import { WaitAttemptSchema } from './wait-fence.ts';

export const GraphPointerSchema = z.object({ runId: z.string().check(z.minLength(1), z.maxLength(64)) });

export const StepRefSchema = z.object({
  runId: z.string().check(z.minLength(1), z.maxLength(64)),
  stepId: z.string().check(z.minLength(1), z.maxLength(40)),
  type: z.enum(['service_task', 'agent_task', 'human_task', 'external_task']),
  attempt: z.number().check(z.int(), z.positive()),
  timeoutSeconds: z.optional(z.number().check(z.int(), z.positive())),
  /** A lone service step decides what is next itself (the fast path); inside the Map, Advance does. */
  decide: z._default(z.boolean(), true),
});

/**
 * A callback task's payload: the step, the task token the wait is answered with, and which attempt of the
 * state this is (`$$.State.RetryCount`, `$$.Execution.RedriveCount`: wait-fence.ts), so a late attempt never
 * replaces a newer attempt's token. `wait` is absent in executions of an earlier definition.
 */
export const StepWaitEventSchema = z.extend(StepRefSchema, {
  taskToken: TaskTokenSchema,
  wait: z.optional(WaitAttemptSchema),
});

/** After a wait: the output it was answered with, or the error that ended it (a Catch). */
export const StepCompleteEventSchema = z.extend(StepRefSchema, {
  result: z.optional(z.unknown()),
  error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
});

/**
 * `AwaitResume`: the paused run, the wait's task token and which attempt of which entry this is: `rev`, the
 * run's revision Advance decided `paused` at, and the context object's counts (wait-fence.ts). Both absent in
 * executions of an earlier definition.
 */
export const AwaitResumeEventSchema = z.extend(GraphPointerSchema, {
  taskToken: TaskTokenSchema,
  rev: z.optional(z.number().check(z.int(), z.nonnegative())),
  wait: z.optional(WaitAttemptSchema),
});
