/** `gates`: per action, allow / needs_approval / deny, with approvers and an approval timeout. */
import * as z from '../zod.ts';

export const GATE_MODES = ['allow', 'needs_approval', 'deny'] as const;
export type GateMode = (typeof GATE_MODES)[number];

export const ApproverSchema = z
  .string()
  .check(
    z.minLength(3),
    z.maxLength(254),
    z.regex(/^[^\s<>"']+$/, 'must be an approver id or email address without spaces or quotes'),
  );

export const ApprovalTimeoutSchema = z
  .number()
  .check(
    z.int(),
    z.gte(60, 'must be at least 60 seconds'),
    z.lte(7 * 24 * 3600, 'must be at most 7 days (604800 seconds)'),
  );

export const GateSchema = z.strictObject({
  mode: z.enum(GATE_MODES),
  approvers: z
    .optional(z.array(ApproverSchema).check(z.minLength(1), z.maxLength(20)))
    .check(z.describe('Overrides approvals.approvers.')),
  timeoutSeconds: z.optional(ApprovalTimeoutSchema).check(z.describe('Overrides approvals.timeoutSeconds.')),
});
export type Gate = z.infer<typeof GateSchema>;

/** Workflow-wide approval defaults. */
export const ApprovalDefaultsSchema = z.strictObject({
  approvers: z.array(ApproverSchema).check(z.minLength(1), z.maxLength(20)),
  timeoutSeconds: z._default(ApprovalTimeoutSchema, 3600),
});
