import type { ApprovalNotice } from '../../shared/notify/index.ts';

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
