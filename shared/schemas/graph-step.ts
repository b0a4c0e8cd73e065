/**
 * The state of one step (node) of a graph run: one item per node that has left `pending`, next to the run item
 * (`RUN#<runId>` / `STEP#<nodeId>`). A node without an item is `pending`, attempt 0. docs/graph-workflows.md.
 */
import * as z from '../zod.ts';
import { IsoTimeSchema, SCHEMA_VERSION, TaskTokenSchema } from './common.ts';

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

/** A step in one of these is over: nothing runs for it until an operator retries a failed one. */
export const FINISHED_STEP_STATUSES: readonly StepStatus[] = ['succeeded', 'failed', 'skipped', 'cancelled'];
export const isFinishedStep = (status: StepStatus): boolean => FINISHED_STEP_STATUSES.includes(status);

export const GraphStepSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  stepId: z.string(),
  type: z.string(),
  status: StepStatusSchema,
  /** 1 on the first start; an operator's retry of a failed step starts the next attempt. */
  attempt: z.number().check(z.int(), z.nonnegative()),
  /** What the step was given: a service step's resolved arguments, an agent step's prompt. */
  input: z.optional(z.unknown()),
  /** The structured output later nodes and conditions read as `steps.<id>.output`. */
  output: z.optional(z.unknown()),
  /** A human task that ran out of time and took its `continue` path. */
  timedOut: z.optional(z.literal(true)),
  /** Stored cut to 2,000 UTF-16 units (shared/core/stored-error.ts, STORED_ERROR_MESSAGE_UNITS). */
  error: z.optional(z.object({ name: z.string(), message: z.string().check(z.maxLength(2000)) })),
  /** The child agent run of an `agent_task` (its parent pointer names this step). */
  childRunId: z.optional(z.string()),
  /**
   * The ARN of an agent child's first execution, recorded with the wait (graph-wait knows the run machine):
   * the functions that end a child when its step gives up on it (mark-failed, graph-advance) know no state
   * machine ARN, and stop its current execution by it (shared/graph-run/end-children.ts).
   */
  childExecutionArn: z.optional(z.string()),
  /**
   * The Step Functions task token of the wait (agent and human steps): the child run's end, or the human
   * task's submit, answers it. Never shown by the API.
   */
  taskToken: z.optional(TaskTokenSchema),
  /**
   * Which attempt of the wait state stored `taskToken` (shared/graph-run/wait-fence.ts): a late invocation of
   * an earlier attempt never replaces it. Absent for waits of an earlier definition.
   */
  waitFence: z.optional(z.string().check(z.maxLength(64))),
  /** A `service_task` gated `needs_approval`: the approval this attempt waits on (docs/graph-workflows.md). */
  approvalId: z.optional(z.string()),
  startedAt: z.optional(IsoTimeSchema),
  endedAt: z.optional(IsoTimeSchema),
  updatedAt: IsoTimeSchema,
});
export type GraphStep = z.infer<typeof GraphStepSchema>;

/** What a step write expects to find: no item yet, or the item in this status and attempt. */
export type StepExpectation = 'absent' | { status: StepStatus; attempt: number };

/** A step write inside a run commit: conditional, so two writers never both move one step. */
export type StepWrite = { step: GraphStep; expect: StepExpectation };
