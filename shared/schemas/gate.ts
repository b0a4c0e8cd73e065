/** `gates`: per action, allow / needs_approval / deny, with approvers and an approval timeout. */
import * as z from 'zod';

export const GATE_MODES = ['allow', 'needs_approval', 'deny'] as const;
export type GateMode = (typeof GATE_MODES)[number];

export const ApproverSchema = z
  .string()
  .min(3)
  .max(254)
  .regex(/^[^\s<>"']+$/, 'must be an approver id or email address without spaces or quotes');

export const ApprovalTimeoutSchema = z
  .number()
  .int()
  .min(60, 'must be at least 60 seconds')
  .max(7 * 24 * 3600, 'must be at most 7 days (604800 seconds)');

export const GateSchema = z
  .object({
    mode: z.enum(GATE_MODES),
    approvers: z.array(ApproverSchema).min(1).max(20).optional().describe('Overrides approvals.approvers.'),
    timeoutSeconds: ApprovalTimeoutSchema.optional().describe('Overrides approvals.timeoutSeconds.'),
  })
  .strict();
export type Gate = z.infer<typeof GateSchema>;

/** Workflow-wide approval defaults. */
export const ApprovalDefaultsSchema = z
  .object({
    approvers: z.array(ApproverSchema).min(1).max(20),
    timeoutSeconds: ApprovalTimeoutSchema.default(3600),
  })
  .strict();
