/**
 * The run data conditions and templates read: `{ input, steps: { <nodeId>: { status, output, timedOut? } } }`.
 * Step statuses move `pending → running → waiting → succeeded | failed | skipped | cancelled`.
 */
import * as z from '../zod.ts';

export const STEP_STATUSES = [
  'pending',
  'running',
  'waiting',
  'succeeded',
  'failed',
  'skipped',
  'cancelled',
] as const;
export const StepStatusSchema = z.enum(STEP_STATUSES);
export type StepStatus = z.infer<typeof StepStatusSchema>;

/** Statuses of a step that is under way: it may still succeed and fire its edges. */
export const IN_PROGRESS_STATUSES: readonly StepStatus[] = ['running', 'waiting'];

/** One step as conditions and templates see it. */
export const StepDataSchema = z.object({
  status: StepStatusSchema,
  /** The structured output: an agent_task's `output`, a human task's form submission, a service call result. */
  output: z.optional(z.unknown()),
  /** Set on a human_task that timed out and continued with its `onTimeout.output`. */
  timedOut: z.optional(z.boolean()),
});
export type StepData = z.infer<typeof StepDataSchema>;

export const RunDataSchema = z.object({
  input: z.unknown(),
  steps: z.record(z.string(), StepDataSchema),
});
/** The data of one graph run; a step absent from `steps` is pending. */
export type RunData = z.infer<typeof RunDataSchema>;

/** The fields of `steps.<id>` an expression may read. */
export const STEP_DATA_FIELDS = ['status', 'output', 'timedOut'] as const;
