import { type ApprovalNotice, declaredApprovers, type OwnerNotice } from '../../shared/notify/index.ts';

/** A notice as requestApproval builds it. */
export const notice = (overrides: Partial<ApprovalNotice> = {}): ApprovalNotice => ({
  owner: 'team-a',
  approver: 'Boss@Example.com',
  workflowName: 'release-notes',
  runId: 'run_abc123',
  tool: 'notes_append',
  argsPreview: '{"name":"deploy-log","line":"ship v2"}',
  expiresAt: '2026-11-30T07:10:00.000Z',
  url: 'https://approve.example.com/approvals/apr_0123456789?t=eyJhcHByb3Zh.c2ln',
  ...overrides,
});

/** An owner notice as the MarkFailed shell builds it for a failed run. */
export const ownerNotice = (overrides: Partial<OwnerNotice> = {}): OwnerNotice => ({
  owner: '123456789012:role:CI',
  kind: 'run_failed',
  workflowName: 'release-notes',
  runId: 'run_abc123',
  status: 'failed',
  stopReason: 'error',
  reason: 'ModelServerError: the model is down',
  runUrl: 'https://api.example.com/v1/runs/run_abc123',
  ...overrides,
});

/** An SNS reach declaring each of `approvers` for every owner (`*`), as tests of other concerns need. */
export const forEveryOwner = (...approvers: string[]) =>
  declaredApprovers('sns', Object.fromEntries(approvers.map((approver) => [approver, ['*']])));
