/** The payloads the graph state machine hands its Lambda tasks (docs/state-machine.md, "The graph machine"). */

import { TaskTokenSchema } from '../schemas/common.ts';
import * as z from '../zod.ts';

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

/** A callback task's payload: the step and the task token the wait is answered with. */
export const StepWaitEventSchema = z.extend(StepRefSchema, { taskToken: TaskTokenSchema });

/** After a wait: the output it was answered with, or the error that ended it (a Catch). */
export const StepCompleteEventSchema = z.extend(StepRefSchema, {
  result: z.optional(z.unknown()),
  error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
});

/** `AwaitResume`: the paused run and the wait's task token. */
export const AwaitResumeEventSchema = z.extend(GraphPointerSchema, { taskToken: TaskTokenSchema });
