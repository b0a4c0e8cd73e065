/**
 * Human tasks: one record per `human_task` step attempt of a graph run. The assignees get signed links to a
 * form rendered from `form` (a JSON Schema); the first valid submission wins (a conditional write) and becomes
 * the step's output. Docs: docs/human-tasks.md.
 */
import * as z from '../zod.ts';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION } from './common.ts';

/**
 * `open` → `submitted` (a valid form, once) | `expired` (its time ran out: fail closed) | `closed` (the run was
 * cancelled or ended, or no assignee could be reached). Only `open` can change.
 */
export const HUMAN_TASK_STATUSES = ['open', 'submitted', 'expired', 'closed'] as const;
export const HumanTaskStatusSchema = z.enum(HUMAN_TASK_STATUSES);
export type HumanTaskStatus = z.infer<typeof HumanTaskStatusSchema>;

/** `htk_<run id without run_>_<step id>_<attempt>`: one per step attempt, so a re-request finds its record. */
export const HUMAN_TASK_ID = /^htk_([A-Za-z0-9]{6,40})_([a-z][a-z0-9_]{0,39})_([1-9][0-9]{0,3})$/;
export const HumanTaskIdSchema = z.string().check(z.regex(HUMAN_TASK_ID));

/** One value of the run context the node declares (`context` paths), as it was when the task was requested. */
export const ContextValueSchema = z.object({
  path: z.string(),
  /** The value at `path`, or absent when the path selects nothing. */
  value: z.optional(z.unknown()),
  /** The value was larger than the page shows; `value` is then a shortened preview (a string). */
  truncated: z.optional(z.literal(true)),
});
export type ContextValue = z.infer<typeof ContextValueSchema>;

export const HumanTaskSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  taskId: HumanTaskIdSchema,
  owner: OwnerIdSchema,
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().check(z.int(), z.gte(1)),
  workflowId: z.string(),
  workflowName: z.string(),
  workflowVersion: z.number().check(z.int(), z.positive()),
  title: z.string(),
  assignees: z.array(z.string()).check(z.minLength(1)),
  /** The form as a JSON Schema object (validated at save time; submissions are validated against it). */
  form: z.record(z.string(), z.unknown()),
  /** SHA-256 of canonicalJSON({ stepId, form }): links are bound to exactly this form. */
  formHash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  context: z.array(ContextValueSchema),
  status: HumanTaskStatusSchema,
  createdAt: IsoTimeSchema,
  expiresAt: IsoTimeSchema,
  /** The current Step Functions task token; replaced when the wait is re-requested. Never in a link. */
  taskToken: z.optional(z.string()),
  /**
   * Which attempt of the step's wait state stored `taskToken` (shared/graph-run/wait-fence.ts): a late
   * request of an earlier attempt never replaces it. Never shown by the API.
   */
  waitFence: z.optional(z.string().check(z.maxLength(64))),
  notifiedAt: z.optional(IsoTimeSchema),
  /** The validated submission: the step's structured output. */
  submission: z.optional(z.record(z.string(), z.unknown())),
  submittedBy: z.optional(z.string()),
  submittedAt: z.optional(IsoTimeSchema),
  /** When it became expired or closed, and why (closed: `run_cancelled`, `undeliverable`, `wait_failed: <error>`). */
  closedAt: z.optional(IsoTimeSchema),
  closedReason: z.optional(z.string()),
});
export type HumanTask = z.infer<typeof HumanTaskSchema>;

/** The task id of a step attempt of a run. */
export function humanTaskId(runId: string, stepId: string, attempt: number): string {
  return `htk_${runId.replace(/^run_/, '')}_${stepId}_${attempt}`;
}

/** The run id, step id and attempt of a task id, or undefined for anything that is not one. */
export function parseHumanTaskId(
  taskId: string,
): { runId: string; stepId: string; attempt: number } | undefined {
  const match = HUMAN_TASK_ID.exec(taskId);
  if (!match) return undefined;
  return { runId: `run_${match[1]}`, stepId: match[2]!, attempt: Number(match[3]) };
}
