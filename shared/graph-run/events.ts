/** The payloads the graph state machine hands its Lambda tasks (docs/state-machine.md, "The graph machine"). */
import * as z from 'zod';
import { TaskTokenSchema } from '../schemas/common.ts';

export const GraphPointerSchema = z.object({ runId: z.string().min(1).max(64) });

export const StepRefSchema = z.object({
  runId: z.string().min(1).max(64),
  stepId: z.string().min(1).max(40),
  type: z.enum(['service_task', 'agent_task', 'human_task', 'external_task']),
  attempt: z.number().int().positive(),
  timeoutSeconds: z.number().int().positive().optional(),
  /** A lone service step decides what is next itself (the fast path); inside the Map, Advance does. */
  decide: z.boolean().default(true),
});

/** A callback task's payload: the step and the task token the wait is answered with. */
export const StepWaitEventSchema = StepRefSchema.extend({ taskToken: TaskTokenSchema });

/** After a wait: the output it was answered with, or the error that ended it (a Catch). */
export const StepCompleteEventSchema = StepRefSchema.extend({
  result: z.unknown().optional(),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});

/** `AwaitResume`: the paused run and the wait's task token. */
export const AwaitResumeEventSchema = GraphPointerSchema.extend({ taskToken: TaskTokenSchema });
