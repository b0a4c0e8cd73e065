/** Approvals: one record per gated call, decided once. */
import * as z from '../zod.ts';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION } from './common.ts';

/**
 * `undeliverable`: no channel of this deployment could reach any of its approvers, so the call was denied at
 * once (fail closed) instead of waiting for an expiry nobody could prevent.
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'undeliverable'] as const;
export const ApprovalStatusSchema = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

export const ApprovalSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  approvalId: z.string().check(z.regex(/^apr_[A-Za-z0-9]{10,40}$/)),
  owner: OwnerIdSchema,
  runId: z.string(),
  workflowId: z.string(),
  workflowName: z.string(),
  workflowVersion: z.number().check(z.int(), z.positive()),
  turn: z.number().check(z.int(), z.nonnegative()),
  toolUseId: z.string(),
  tool: z.string(),
  /** The exact arguments that will run if approved (secrets are never part of them). */
  args: z.unknown(),
  argsHash: z.string(),
  /** The model's stated reason: the text it wrote before the call. Not verified. */
  reason: z.string(),
  approvers: z.array(z.string()).check(z.minLength(1)),
  status: ApprovalStatusSchema,
  expiresAt: IsoTimeSchema,
  createdAt: IsoTimeSchema,
  decidedAt: z.optional(IsoTimeSchema),
  decidedBy: z.optional(z.string()),
  /** The current Step Functions task token; replaced when the wait is re-requested. Never in a link. */
  taskToken: z.optional(z.string()),
  /**
   * Which attempt of the wait stored `taskToken` (`waitFence`, shared/graph-run/wait-fence.ts): a late attempt
   * of a retried RequestApproval never replaces the token of a later one. Absent on tokens stored by executions
   * of a definition that did not pass the attempt (a fenced write replaces those).
   */
  fence: z.optional(z.string()),
  notifiedAt: z.optional(IsoTimeSchema),
  /**
   * A graph run's `service_task` step that asked (no model did): its wait is its own (a task-token wait per
   * step), so deciding it resumes that wait even while other steps' approvals are pending.
   */
  step: z.optional(z.object({ stepId: z.string(), attempt: z.number().check(z.int(), z.positive()) })),
});
export type Approval = z.infer<typeof ApprovalSchema>;
