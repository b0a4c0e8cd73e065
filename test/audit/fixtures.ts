import { type AuditEntry, type AuditEntryInput, appendAuditEntry } from '../../shared/audit/index.ts';

/** Six entries of a plausible run, with times derived from a fixed base so chains are deterministic. */
export function buildChain(owner = 'team-a', runId = 'run_1', count = 6): AuditEntry[] {
  // Ids derived from the run, so an entry of another run differs in content, not only in runId.
  const approvalId = `apr_${owner}_${runId}`;
  const steps: Omit<AuditEntryInput, 'owner' | 'runId' | 'at'>[] = [
    { type: 'run_created', actor: 'owner:alice', data: { workflowId: 'wf_1', version: 3 } },
    { type: 'model_call', actor: 'system', data: { model: 'claude', turn: 1, usage: { inputTokens: 10 } } },
    { type: 'gate_decision', actor: 'system', data: { tool: 'send_email', decision: 'needs_approval' } },
    { type: 'approval_requested', actor: 'model', data: { approvalId, argsHash: 'ab'.repeat(32) } },
    { type: 'approval_decided', actor: 'approver:bob', data: { approvalId, decision: 'approve' } },
    { type: 'dispatch', actor: 'system', data: { tool: 'send_email', idempotencyKey: 'k1' } },
  ];
  const entries: AuditEntry[] = [];
  for (let seq = 0; seq < count; seq++) {
    const step = steps[seq % steps.length]!;
    const at = new Date(Date.UTC(2025, 0, 1, 12, 0, seq)).toISOString();
    entries.push(appendAuditEntry(entries.at(-1), { ...step, owner, runId, at }));
  }
  return entries;
}
